// library.refresh (the MCP `ingest` tool): only what lies under the project's remembered roots, however it is named.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestPaths } from '../core/ingest/index.ts';
import { openStore, type Store } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { createApi, type Api } from './index.ts';

const tmp = tempDirs('cp-api-refresh-');
let store: Store;
let api: Api;
let web: string;
let outside: string;
let docs: string;

beforeAll(async () => {
  const dir = tmp.make();
  store = openStore(join(dir, 'r.db'));
  web = join(tmp.make(), 'web');
  docs = join(tmp.make(), 'notes');
  outside = tmp.make();
  writeTree(web, { 'src/a.ts': 'export const a = 1;\n' });
  writeTree(docs, { 'guide.md': '# Guide\n\nRetries back off.\n' });
  writeTree(outside, { 'secret.md': '# Private\n\nNot part of the project.\n' });
  await ingestPaths(store.db, [web, docs]);
  api = createApi({ store, dataDir: dir, version: 't', transport: 'mcp', background: false, watch: false });
});
afterAll(async () => {
  await api.close();
  store.close();
  tmp.cleanup();
});

describe('library.refresh', () => {
  it('re-reads a changed file named relative to its root, or by root name, and cites what changed', async () => {
    writeFileSync(join(web, 'src/a.ts'), 'export const a = 2;\n');
    writeFileSync(join(web, 'src/b.ts'), 'export const b = 3;\n');
    const r = await api.dispatch('library.refresh', { paths: ['src'] });
    expect(r).toMatchObject({ ok: true, value: { roots: ['notes', 'web'], added: ['web/src/b.ts'], updated: ['web/src/a.ts'], removed: [] } });
    writeFileSync(join(web, 'src/b.ts'), 'export const b = 4;\n');
    expect(await api.dispatch('library.refresh', { paths: ['web/src/b.ts'] })).toMatchObject({ ok: true, value: { updated: ['web/src/b.ts'] } });
  });

  it('refuses a path outside every root: absolute, climbing out, or through a symbolic link', async () => {
    const abs = await api.dispatch('library.refresh', { paths: [join(outside, 'secret.md')] });
    expect(abs).toMatchObject({ ok: false, error: { code: 'forbidden', issues: [{ field: 'paths.0', message: expect.stringContaining('outside the project') }] } });
    expect(await api.dispatch('library.refresh', { paths: ['../../etc'] })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    mkdirSync(join(web, 'links'));
    symlinkSync(outside, join(web, 'links', 'out'));
    expect(await api.dispatch('library.refresh', { paths: [join(web, 'links', 'out', 'secret.md')] })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await api.dispatch('library.refresh', { paths: ['missing.md'] })).toMatchObject({ ok: false, error: { code: 'not_found', issues: [{ field: 'paths.0' }] } });
    const sources = store.db.prepare('SELECT path FROM sources').pluck().all() as string[];
    expect(sources.some((p) => p.startsWith(outside))).toBe(false);
  });

  it('without paths re-walks every root, and an unknown field is named', async () => {
    expect(await api.dispatch('library.refresh', {})).toMatchObject({ ok: true, value: { roots: ['notes', 'web'] } });
    expect(await api.dispatch('library.refresh', { path: 'src' })).toMatchObject({ ok: false, error: { code: 'invalid_input', issues: [{ field: 'path', message: 'unknown field' }] } });
  });

  it('cites paths as search does: no root-name prefix once only one root still holds sources', async () => {
    rmSync(join(docs, 'guide.md'));
    writeFileSync(join(web, 'src/c.ts'), 'export const c = 5;\n');
    const r = await api.dispatch('library.refresh', {});
    expect(r).toMatchObject({ ok: true, value: { added: ['src/c.ts'], removed: ['guide.md'] } });
    const hit = await api.dispatch('search.query', { query: 'export const c', k: 1 });
    expect(hit).toMatchObject({ ok: true, value: { hits: [{ displayPath: 'src/c.ts' }] } });
  });
});
