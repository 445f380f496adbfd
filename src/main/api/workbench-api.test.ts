import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../core/testing/tmp.ts';
import { UPLOAD_FILE_MAX_BYTES } from '../../shared/limits.ts';
import type { Api } from './index.ts';
import { apiFixture } from './testing/api-fixture.ts';

// The API methods the workbench's #18 work added: batched uploads, removing and re-indexing a source, a file's
// chunks, project settings with default evidence excludes, filters, the L1 written in place, the export's file.
const tmp = tempDirs('cp-wb-api-');
const fx = apiFixture('cp-wb-api-db-');
const { ok } = fx;
let api: Api;
let dataDir: string;
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

beforeAll(() => ({ api, dataDir } = fx));
afterAll(() => tmp.cleanup());

const imports = () => join(dataDir, 'imports');

describe('uploads in batches', () => {
  it('stages batches, swaps the folder in on the final one, keeps the folder name in L4, and names skipped files', async () => {
    const id = 'batch-test-0001';
    const first = await ok('library.import', { files: [{ path: 'harbor/lib/ferry.md', base64: b64('# Ferry\n\nThe pelican harbor ferry leaves hourly.\n') }], batch: { id, final: false } });
    expect(first).toMatchObject({ staged: 1, added: [] });
    expect(existsSync(join(imports(), 'harbor'))).toBe(false);
    const big = Buffer.alloc(UPLOAD_FILE_MAX_BYTES + 1, 'a');
    const last = await ok('library.import', {
      files: [
        { path: 'harbor/test/ferry.test.md', base64: b64('# Ferry test\n\nThe pelican harbor test checks the ferry.\n') },
        { path: 'harbor/src/loader.js', base64: b64('// pelican harbor loader\nexport const n = 1;\n') },
        { path: 'harbor/huge.txt', base64: b64(big) },
      ],
      batch: { id, final: true },
      skipped: [{ path: 'harbor/.env', reason: 'not uploaded: may hold secrets' }],
    });
    expect(last.added.map((p: string) => p.slice(imports().length + 1)).sort()).toEqual(['harbor/lib/ferry.md', 'harbor/src/loader.js', 'harbor/test/ferry.test.md']);
    expect(last.skipped.map((s: { path: string }) => s.path)).toEqual(expect.arrayContaining(['harbor/.env', 'harbor/huge.txt']));
    expect(last.skipped.find((s: { path: string }) => s.path === 'harbor/huge.txt').reason).toMatch(/too big to upload/);
    expect(existsSync(join(imports(), 'harbor/huge.txt'))).toBe(false);
    expect(existsSync(`${imports()}.staging/${id}`)).toBe(false);
    const l4 = (await ok('hierarchy.tree', {})).tree.l4.map((n: { marker: string }) => n.marker);
    expect(l4).toEqual(expect.arrayContaining(['4.harbor/lib/ferry.md', '4.harbor/src/loader.js']));
  });

  it('a re-dropped folder replaces the old one: files gone from it leave the index', async () => {
    const r = await ok('library.import', { files: [{ path: 'harbor/lib/ferry.md', base64: b64('# Ferry\n\nThe pelican harbor ferry leaves hourly.\n') }, { path: 'harbor/src/loader.js', base64: b64('// pelican harbor loader\nexport const n = 1;\n') }, { path: 'harbor/test/ferry.test.md', base64: b64('# Ferry test\n\nThe pelican harbor test checks the ferry.\n') }, { path: 'harbor/docs/extra.md', base64: b64('# Extra\n\nwalrus\n') }] });
    expect(r.added.map((p: string) => p.split('/').pop())).toEqual(['extra.md']);
    const again = await ok('library.import', { files: [{ path: 'harbor/lib/ferry.md', base64: b64('# Ferry\n\nThe pelican harbor ferry leaves hourly.\n') }, { path: 'harbor/src/loader.js', base64: b64('// pelican harbor loader\nexport const n = 1;\n') }, { path: 'harbor/test/ferry.test.md', base64: b64('# Ferry test\n\nThe pelican harbor test checks the ferry.\n') }] });
    expect(again.removed.map((p: string) => p.split('/').pop())).toEqual(['extra.md']);
  });
});

describe('filters and project default excludes', () => {
  it('search takes include/exclude globs over root-relative paths', async () => {
    const all = await ok('search.query', { query: 'pelican harbor', k: 10 });
    expect(all.hits.length).toBe(3);
    const noTests = await ok('search.query', { query: 'pelican harbor', k: 10, filters: { exclude: ['test/**'] } });
    expect(noTests.hits.map((h: { path: string }) => h.path.split('/').slice(-2).join('/')).sort()).toEqual(['lib/ferry.md', 'src/loader.js']);
    const onlyLib = await ok('search.query', { query: 'pelican harbor', k: 10, filters: { include: ['harbor/lib/**'] } });
    expect(onlyLib.hits.map((h: { path: string }) => h.path.split('/').pop())).toEqual(['ferry.md']);
    const code = await ok('search.query', { query: 'pelican harbor', k: 10, filters: { types: ['code'], exclude: ['*.md'] } });
    expect(code.hits.map((h: { path: string }) => h.path.split('/').pop())).toEqual(['loader.js']);
    const bad = await api.dispatch('search.query', { query: 'x', filters: { exclude: ['a\nb'] } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('packets honour the project setting, record it apart in the manifest, and can leave it off', async () => {
    expect(await ok('settings.get', {})).toEqual({ evidenceExclude: [], sessionStartTokens: 1500 });
    const before = await ok('packets.build', { query: 'pelican harbor ferry', maxTokens: 2000 });
    expect(before.packet.inputs.filters).toBeNull();
    expect(before.text).toContain('test/ferry.test.md');
    expect(await ok('settings.set', { evidenceExclude: ['test/**', '**/fixtures/**', 'test/**'] })).toEqual({ evidenceExclude: ['test/**', '**/fixtures/**'], sessionStartTokens: 1500 });
    const after = await ok('packets.build', { query: 'pelican harbor ferry', maxTokens: 2000 });
    expect(after.packet.inputs.filters).toEqual({ excludeDefault: ['test/**', '**/fixtures/**'] });
    expect(after.manifest.retrieval.filters).toEqual({ excludeDefault: ['test/**', '**/fixtures/**'] });
    expect(after.text).not.toContain('test/ferry.test.md');
    expect(after.text).toContain('lib/ferry.md');
    // Same request, same store: same packet.
    expect((await ok('packets.build', { query: 'pelican harbor ferry', maxTokens: 2000 })).hash).toBe(after.hash);
    const off = await ok('packets.build', { query: 'pelican harbor ferry', maxTokens: 2000, useDefaultExcludes: false, filters: { exclude: ['src/**'] } });
    expect(off.packet.inputs.filters).toEqual({ exclude: ['src/**'] });
    expect(off.text).toContain('test/ferry.test.md');
    expect(off.text).not.toContain('src/loader.js');
    // The stored request replays to the same packet (the default is re-read from the settings, not the request).
    expect(await ok('packets.replay', { hash: after.hash })).toMatchObject({ identical: true });
    expect(await api.dispatch('settings.set', { evidenceExclude: [''] })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    await ok('settings.set', { evidenceExclude: [] });
  });
});

describe('editing the library', () => {
  it('re-indexes one source, lists its chunks, and removes it (chunks, search, L4 and the uploaded copy go)', async () => {
    const sources = await ok('sources.list', {});
    const ferry = sources.find((s: { path: string }) => s.path.endsWith('harbor/lib/ferry.md'));
    // A packet that cites the file, built before it is removed, must turn stale when it goes.
    const cited = await ok('packets.build', { query: 'pelican harbor ferry', maxTokens: 2000, useDefaultExcludes: false });
    expect(cited.text).toContain('ferry.md');
    const staleOf = async () => (await ok('packets.list', {})).find((p: { hash: string }) => p.hash === cited.hash);
    expect(await staleOf()).toMatchObject({ stale: false });
    const re = await ok('sources.reindex', { id: ferry.id });
    expect(re.updated).toEqual([ferry.path]);
    expect(re.added).toEqual([]);
    const chunks = await ok('sources.chunks', { path: ferry.path });
    expect(chunks.chunks[0].text).toContain('pelican harbor ferry');
    const gone = await ok('sources.remove', { id: ferry.id });
    expect(gone).toMatchObject({ id: ferry.id, path: ferry.path, chunks: 1, deletedFile: true });
    expect(existsSync(ferry.path)).toBe(false);
    const stale = await staleOf();
    expect(stale.stale).toBe(true);
    expect(stale.changed_sources).toEqual(expect.arrayContaining([expect.objectContaining({ change: 'vanished' })]));
    expect((await ok('search.query', { query: 'pelican harbor ferry', k: 10 })).hits.map((h: { path: string }) => h.path)).not.toContain(ferry.path);
    expect((await ok('hierarchy.tree', {})).tree.l4.map((n: { path: string }) => n.path)).not.toContain(ferry.path);
    expect(await api.dispatch('sources.remove', { id: ferry.id })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await api.dispatch('sources.chunks', { path: ferry.path })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    // A rescan does not bring it back: the uploaded copy went with it.
    expect((await ok('library.rescan', {})).added).toEqual([]);
  });

  it('writes the L1 in place and the decision export to a file it names', async () => {
    const bad = await api.dispatch('hierarchy.summary', { goal: '', status_pct: 120 });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    const dec = await ok('decisions.create', { title: 'Ferries on the hour', decision: 'Leave at :00.', rationale: 'Simple.', importance: 8 });
    const l1 = await ok('hierarchy.summary', { goal: 'Run the ferries', status_pct: 40, priorities: ['Schedule'], key_decisions: [dec.decision_id] });
    expect(l1.key_decisions).toEqual([{ decision_id: dec.decision_id, title: 'Ferries on the hour', exists: true }]);
    const text = await ok('decisions.exportMarkdown', {});
    expect(text.path).toBeUndefined();
    expect(text.count).toBe(1);
    const file = await ok('decisions.exportMarkdown', { write: true });
    expect(file.path).toBe(join(dataDir, 'exports', 'decisions.md'));
    expect(readFileSync(file.path, 'utf8')).toBe(text.markdown);
    expect(text.masked).toBeUndefined();
    // A secret typed into a decision is masked in the export (and named), unless includeSecrets.
    const key = 'AKIAQ7ZK4RT2MWX9HB3N';
    const leaky = await ok('decisions.create', { title: 'Ferry API', decision: `The ferry API is called with ${key}.`, rationale: 'Vendor.', importance: 4 });
    const masked = await ok('decisions.exportMarkdown', { write: true });
    expect(masked.masked).toEqual([leaky.decision_id]);
    expect(readFileSync(masked.path, 'utf8')).not.toContain(key);
    expect(masked.markdown).toContain('[REDACTED: aws_key]');
    expect((await ok('decisions.exportMarkdown', { includeSecrets: true })).markdown).toContain(key);
  });
});
