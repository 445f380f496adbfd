// projects.rename / projects.delete over the handler map: what each refuses, and that a window keeps the project it
// has open (the CLI, which holds none, may rename or delete any but the default).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../core/store/index.ts';
import { tempDirs } from '../core/testing/tmp.ts';
import { createApi, createProjectHost } from './index.ts';

const tmp = tempDirs('cp-projects-');
afterAll(() => tmp.cleanup());

function cliLikeApi(home: string) {
  const store = openStore(':memory:', { loadVec: false });
  const api = createApi({ store, dataDir: home, version: 't', transport: 'cli', background: false, watch: false, projects: { home, current: 'default' } });
  return { api, close: async () => (await api.close(), store.close()) };
}

describe('projects.rename and projects.delete', () => {
  it('rename moves the folder; delete removes it; each says what is wrong by code and field', async () => {
    const home = tmp.make();
    const { api, close } = cliLikeApi(home);
    expect(await api.dispatch('projects.create', { name: 'alpha' })).toMatchObject({ ok: true });
    expect(await api.dispatch('projects.create', { name: 'beta' })).toMatchObject({ ok: true });
    expect(await api.dispatch('projects.rename', { name: 'alpha', newName: 'gamma' })).toMatchObject({ ok: true, value: { name: 'gamma' } });
    expect(existsSync(join(home, 'projects', 'gamma'))).toBe(true);
    expect(existsSync(join(home, 'projects', 'alpha'))).toBe(false);
    expect(await api.dispatch('projects.rename', { name: 'gamma', newName: 'beta' })).toMatchObject({ ok: false, error: { code: 'conflict', issues: [{ field: 'newName' }] } });
    expect(await api.dispatch('projects.rename', { name: 'alpha', newName: 'delta' })).toMatchObject({ ok: false, error: { code: 'not_found', message: 'no project named alpha' } });
    expect(await api.dispatch('projects.rename', { name: 'default', newName: 'delta' })).toMatchObject({ ok: false, error: { code: 'invalid_input', issues: [{ field: 'name' }] } });
    expect(await api.dispatch('projects.rename', { name: 'gamma', newName: 'default' })).toMatchObject({ ok: false, error: { code: 'invalid_input', issues: [{ field: 'newName' }] } });
    expect(await api.dispatch('projects.delete', { name: 'gamma' })).toEqual({ ok: true, value: { deleted: 'gamma' } });
    expect(existsSync(join(home, 'projects', 'gamma'))).toBe(false);
    expect(await api.dispatch('projects.delete', { name: 'gamma' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await api.dispatch('projects.delete', { name: 'default' })).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringMatching(/default project cannot be deleted/) } });
    expect(await api.dispatch('projects.delete', { name: '../up' })).toMatchObject({ ok: false, error: { code: 'invalid_input', issues: [{ field: 'name' }] } });
    await close();
  });

  it('a window refuses to rename or delete the project it has open, and may after switching away', async () => {
    const home = tmp.make();
    const setup = cliLikeApi(home);
    for (const name of ['alpha', 'beta']) await setup.api.dispatch('projects.create', { name });
    await setup.close();
    const host = createProjectHost({
      home,
      project: 'alpha',
      open: (project, projects) => {
        const store = openStore(join(home, 'projects', project!, 'contextpack.db'), { loadVec: false });
        return { store, api: createApi({ store, dataDir: join(home, 'projects', project!), version: 't', transport: 'http', background: false, watch: false, projects }) };
      },
    });
    expect(await host.dispatch('projects.delete', { name: 'alpha' })).toMatchObject({ ok: false, error: { code: 'conflict', issues: [{ field: 'name' }] } });
    expect(await host.dispatch('projects.rename', { name: 'alpha', newName: 'omega' })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(existsSync(join(home, 'projects', 'alpha'))).toBe(true);
    expect(await host.dispatch('projects.switch', { name: 'beta' })).toMatchObject({ ok: true });
    expect(await host.dispatch('projects.delete', { name: 'alpha' })).toEqual({ ok: true, value: { deleted: 'alpha' } });
    expect(existsSync(join(home, 'projects', 'alpha'))).toBe(false);
    await host.close();
  });
});
