// decisions.exportFiles / decisions.import read and write files: in serve mode with `--root`, only under those roots.
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../core/store/index.ts';
import { tempDirs } from '../../core/testing/tmp.ts';
import { createApi, type Api } from '../index.ts';

const tmp = tempDirs('cp-api-decision-files-');
let store: Store;
let api: Api;
let root: string;
let id: string;

beforeAll(async () => {
  const dir = tmp.make();
  root = tmp.make();
  store = openStore(join(dir, 'd.db'));
  api = createApi({ store, dataDir: dir, version: 't', transport: 'http', background: false, watch: false, ingestRoots: [root] });
  const made = await api.dispatch('decisions.create', { title: 'Keep decisions as files', decision: 'Export to docs/decisions.', rationale: 'Reviewed with the code.', importance: 5 });
  id = (made as { value: { decision_id: string } }).value.decision_id;
});
afterAll(async () => {
  await api.close();
  store.close();
  tmp.cleanup();
});

describe('decision files in serve mode', () => {
  it('writes and reads them under an allowed root', async () => {
    const dir = join(root, 'docs', 'decisions');
    const out = await api.dispatch('decisions.exportFiles', { dir });
    expect(out).toMatchObject({ ok: true, value: { written: [join(dir, `${id}.md`)] } });
    expect(await api.dispatch('decisions.import', { paths: [dir] })).toMatchObject({ ok: true, value: { results: [{ decision_id: id, action: 'unchanged' }] } });
  });

  it('refuses a folder outside the roots by field, writing nothing there', async () => {
    const elsewhere = join(tmp.make(), 'decisions');
    expect(await api.dispatch('decisions.exportFiles', { dir: elsewhere })).toMatchObject({ ok: false, error: { code: 'forbidden', issues: [{ field: 'dir' }] } });
    expect(existsSync(elsewhere)).toBe(false);
    expect(await api.dispatch('decisions.import', { paths: [tmp.make()] })).toMatchObject({ ok: false, error: { code: 'forbidden', issues: [{ field: 'paths' }] } });
  });

  it('follows no link out of a root: not to a folder the export would create, nor to a file the import would rewrite', async () => {
    const outside = tmp.make();
    symlinkSync(outside, join(root, 'link'));
    const created = join(root, 'link', 'decisions');
    expect(await api.dispatch('decisions.exportFiles', { dir: created })).toMatchObject({ ok: false, error: { code: 'forbidden', issues: [{ field: 'dir' }] } });
    expect(existsSync(join(outside, 'decisions'))).toBe(false);

    const folder = join(root, 'imports-here');
    expect(await api.dispatch('decisions.exportFiles', { dir: folder })).toMatchObject({ ok: true });
    const target = join(outside, 'target.md');
    const text = readFileSync(join(folder, `${id}.md`), 'utf8').replace(id, 'DEC-2026-01-01-001');
    writeFileSync(target, text);
    symlinkSync(target, join(folder, 'linked.md'));
    const imported = await api.dispatch('decisions.import', { paths: [folder] });
    expect(imported).toMatchObject({ ok: true, value: { skipped: [{ file: join(folder, 'linked.md'), reason: 'a symbolic link (not followed)' }] } });
    expect(readFileSync(target, 'utf8')).toBe(text);
  });

  it('refuses a relative folder by name', async () => {
    expect(await api.dispatch('decisions.exportFiles', { dir: 'docs/decisions' })).toMatchObject({ ok: false, error: { code: 'invalid_input', issues: [{ field: 'dir' }] } });
  });
});
