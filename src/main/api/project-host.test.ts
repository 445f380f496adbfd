import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../core/store/index.ts';
import { tempDirs } from '../core/testing/tmp.ts';
import { createApi, createProjectHost } from './index.ts';
import type { ProjectsAccess } from './project-host.ts';

const tmp = tempDirs('cp-host-');
afterAll(() => tmp.cleanup());

describe('project host', () => {
  it('a switch to a project this build refuses (newer schema) stays on the open project, which keeps working', async () => {
    const home = tmp.make();
    const dbs: Record<string, string> = { alpha: join(home, 'alpha.db'), beta: join(home, 'beta.db') };
    const beta = openStore(dbs.beta!, { loadVec: false });
    beta.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, ?, ?)').run('future', 'x');
    beta.close();
    let access: ProjectsAccess | undefined;
    const host = createProjectHost({
      home,
      project: 'alpha',
      open: (project, projects) => {
        access = projects;
        const store = openStore(dbs[project!]!, { loadVec: false });
        return { store, api: createApi({ store, dataDir: home, version: 't', transport: 'http', background: false, projects }) };
      },
    });
    await expect(access!.switchTo!('beta')).rejects.toThrow(/written by a newer ContextPack \(schema 9999/);
    expect(host.current().project).toBe('alpha');
    expect(host.current().store.db.open).toBe(true);
    expect(await host.dispatch('stats.get', {})).toMatchObject({ ok: true, value: { dbPath: dbs.alpha } });
    await host.close();
  });
});
