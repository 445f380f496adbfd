import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { API_METHODS, apiInputs } from '../../shared/api/index.ts';
import { MAX_MAX_TOKENS, MIN_MAX_TOKENS, TAG_MAX, TITLE_MAX } from '../../shared/limits.ts';
import { SOURCE_TYPES } from '../../shared/types.ts';
import type { ApiEvent } from '../../shared/api/events.ts';
import type { Api } from './index.ts';
import { apiFixture } from './testing/api-fixture.ts';

const tmp = tempDirs('cp-api-');
const fx = apiFixture('cp-api-db-');
const { ok } = fx;
let store: Store;
let api: Api;
let dataDir: string;
const events: ApiEvent[] = [];
const b64 = (s: string) => Buffer.from(s).toString('base64');

beforeAll(() => {
  ({ store, api, dataDir } = fx);
  api.events.subscribe((e) => events.push(e));
});
afterAll(() => tmp.cleanup());

describe('API contract', () => {
  it('has a schema for every method name and no other', () => {
    expect(Object.keys(apiInputs).sort()).toEqual([...API_METHODS].sort());
  });

  it('refuses unknown methods and invalid input with per-field issues, before any handler runs', async () => {
    expect(await api.dispatch('fs.readFile', {})).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(await api.dispatch('__proto__', {})).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    const r = await api.dispatch('search.query', { query: '   ', k: 0, extra: 1 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('invalid_input');
    const fields = r.error.issues!.map((i) => i.field);
    expect(fields).toContain('query');
    expect(fields).toContain('k');
  });

  it('refuses a filter date the engine cannot read as invalid_input naming the field, not as a failure', async () => {
    for (const [method, input, field] of [
      ['search.query', { query: 'x', filters: { modifiedAfter: 'last tuesday' } }, 'filters.modifiedAfter'],
      ['search.query', { query: 'x', mode: 'hybrid', filters: { modifiedBefore: '2026-13-45' } }, 'filters.modifiedBefore'],
      ['packets.build', { query: 'x', filters: { modifiedAfter: 'soon' } }, 'filters.modifiedAfter'],
    ] as const) {
      const r = await api.dispatch(method, input);
      expect(r, `${method} ${field}`).toMatchObject({ ok: false, error: { code: 'invalid_input', issues: [{ field, message: expect.stringContaining('must be a date') }] } });
    }
    expect(await api.dispatch('search.query', { query: 'x', filters: { modifiedAfter: '2026-01-31', modifiedBefore: '2026-02-01T12:00:00Z' } })).toMatchObject({ ok: true });
  });

  it('checks inputs against the engine limits themselves (src/shared/limits.ts), so the contract and the engine agree', async () => {
    const decision = { title: 'T', decision: 'D', rationale: 'R', importance: 5 };
    const create = apiInputs['decisions.create'];
    expect(create.safeParse({ ...decision, title: 'x'.repeat(TITLE_MAX) }).success).toBe(true);
    expect(create.safeParse({ ...decision, title: 'x'.repeat(TITLE_MAX + 1) }).success).toBe(false);
    expect(create.safeParse({ ...decision, tags: ['t'.repeat(TAG_MAX)] }).success).toBe(true);
    expect(create.safeParse({ ...decision, tags: ['t'.repeat(TAG_MAX + 1)] }).success).toBe(false);
    // The engine numbers decisions past 999 on a busy day; the contract must not refuse to supersede those.
    expect(create.safeParse({ ...decision, supersedes: 'DEC-2026-01-31-1000' }).success).toBe(true);
    expect(create.safeParse({ ...decision, supersedes: 'DEC-2026-01-31-01' }).success).toBe(false);
    for (const type of SOURCE_TYPES) expect(apiInputs['search.query'].safeParse({ query: 'x', filters: { types: [type] } }).success, type).toBe(true);
    expect(apiInputs['search.query'].safeParse({ query: 'x', filters: { types: ['binary'] } }).success).toBe(false);

    const low = await api.dispatch('packets.build', { query: 'x', maxTokens: MIN_MAX_TOKENS - 1 });
    expect(low).toMatchObject({ ok: false, error: { code: 'invalid_input', issues: [{ field: 'maxTokens', message: `token budget must be at least ${MIN_MAX_TOKENS}` }] } });
    expect(await api.dispatch('packets.build', { query: 'x', maxTokens: MIN_MAX_TOKENS })).toMatchObject({ ok: true });
    expect(apiInputs['packets.build'].safeParse({ query: 'x', maxTokens: MAX_MAX_TOKENS }).success).toBe(true);
    expect(apiInputs['packets.build'].safeParse({ query: 'x', maxTokens: MAX_MAX_TOKENS + 1 }).success).toBe(false);
  });

  it('rejects upload paths that could leave the imports folder', async () => {
    for (const path of ['../evil.md', '/etc/passwd', 'a/../../b.md', 'a\\b.md', 'C:/x.md', 'a//b.md']) {
      const r = await api.dispatch('library.import', { files: [{ path, base64: b64('x') }] });
      expect(r, path).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    }
    expect(existsSync(join(dataDir, 'imports'))).toBe(false);
  });

  it('reports engine parts that are not there as unavailable, with the reason', async () => {
    const info = await ok('app.info', {});
    expect(info).toMatchObject({ version: '0.0.0-test', transport: 'http', dataDir });
    for (const [name, cap] of Object.entries(info.capabilities as Record<string, { available: boolean; reason?: string }>)) {
      const method = { vector: 'search.query', decisions: 'decisions.list', hierarchy: 'hierarchy.tree', packets: 'packets.list' }[name]!;
      const input = name === 'vector' ? { query: 'x', mode: 'vector' } : {};
      const r = await api.dispatch(method, input);
      if (cap.available) expect(r.ok, name).toBe(true);
      else expect(r, name).toMatchObject({ ok: false, error: { code: 'unavailable', message: cap.reason } });
    }
  });

  it('desktop-only methods answer unavailable in serve mode', async () => {
    expect(await api.dispatch('desktop.copyText', { text: 'x' })).toMatchObject({ ok: false, error: { code: 'unavailable' } });
  });
});

describe('library, sources and search through the API', () => {
  it('ingests a folder in place with progress events, lists sources, finds a passage and opens it in context', async () => {
    const root = tmp.make();
    writeTree(root, {
      'guide.md': '# Guide\n\n## Retries\n\nUse exponential backoff with jitter for flaky uploads.\n\n## Other\n\nNothing here.\n',
      'data.bin': Buffer.from([0, 1, 2, 0]),
    });
    events.length = 0;
    const report = await ok('library.ingest', { paths: [root] });
    expect(report.added).toEqual([join(root, 'guide.md')]);
    expect(report.skipped.map((s: { path: string }) => s.path)).toEqual([join(root, 'data.bin')]);
    const progress = events.filter((e) => e.name === 'ingest.progress').map((e) => e.payload);
    expect(progress.at(-1)).toMatchObject({ phase: 'done', filesDone: 2, filesTotal: 2 });
    expect(new Set(progress.map((p) => p.jobId)).size).toBe(1);

    const sources = await ok('sources.list', {});
    expect(sources.map((s: { path: string; status: string }) => [s.path, s.status])).toEqual([
      [join(root, 'data.bin'), 'skipped'],
      [join(root, 'guide.md'), 'indexed'],
    ]);
    expect(sources[1].chunks).toBeGreaterThan(0);

    const found = await ok('search.query', { query: 'exponential backoff', k: 5 });
    expect(found.mode).toBe('bm25');
    expect(found.hits[0]).toMatchObject({ path: join(root, 'guide.md'), anchor: expect.stringContaining('retries') });
    const ctx = await ok('chunks.context', { chunkId: found.hits[0].chunkId });
    expect(ctx.focus).toBe(found.hits[0].chunkId);
    expect(ctx.chunks.some((c: { text: string }) => c.text.includes('jitter'))).toBe(true);
    expect(await api.dispatch('chunks.context', { chunkId: 999999 })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    // Best available on a store without vectors: bm25, with the reason; a λ adds MMR over the chunks' words.
    expect(found.retrieval).toMatchObject({ fusion: null, mmr: null, fallback_reason: expect.stringContaining('no vectors yet') });
    expect(await api.dispatch('search.query', { query: 'backoff', mmrLambda: 0.5 })).toMatchObject({ ok: true, value: { mode: 'bm25', retrieval: { mmr: { lambda: 0.5, similarity: 'text' } } } });
  });

  it('imports uploaded folders under the data dir; a re-drop replaces the folder, so deleted files leave the index', async () => {
    const first = await ok('library.import', {
      files: [
        { path: 'proj/a.md', base64: b64('# Alpha\n\nzebra crossing notes\n') },
        { path: 'proj/sub/b.txt', base64: b64('quokka habitat\n') },
        { path: 'loose.md', base64: b64('# Loose\n\nplatypus\n') },
      ],
    });
    const imports = join(dataDir, 'imports');
    expect(first.folder).toBe(imports);
    expect(first.added.sort()).toEqual([join(imports, 'loose.md'), join(imports, 'proj/a.md'), join(imports, 'proj/sub/b.txt')]);
    expect(readFileSync(join(imports, 'proj/sub/b.txt'), 'utf8')).toBe('quokka habitat\n');

    const second = await ok('library.import', { files: [{ path: 'proj/a.md', base64: b64('# Alpha\n\nzebra crossing notes\n') }] });
    expect(second.removed).toEqual([join(imports, 'proj/sub/b.txt')]);
    expect(existsSync(join(imports, 'proj/sub'))).toBe(false);
    expect((await ok('search.query', { query: 'quokka' })).hits).toEqual([]);
    expect((await ok('search.query', { query: 'platypus' })).hits).toHaveLength(1);
  });

  it('runs concurrent ingests one after the other, each with its own job id', async () => {
    const a = tmp.make();
    const b = tmp.make();
    writeTree(a, { 'one.md': '# One\n\nfirst\n' });
    writeTree(b, { 'two.md': '# Two\n\nsecond\n' });
    events.length = 0;
    const [ra, rb] = await Promise.all([ok('library.ingest', { paths: [a] }), ok('library.ingest', { paths: [b] })]);
    expect(ra.added).toHaveLength(1);
    expect(rb.added).toHaveLength(1);
    const order = events.flatMap((e) => (e.name === 'ingest.progress' ? [e.payload.jobId] : []));
    const firstOfSecond = order.indexOf(order.at(-1)!);
    expect(order.slice(0, firstOfSecond).every((j) => j === order[0])).toBe(true);
    expect(order.slice(firstOfSecond).every((j) => j === order.at(-1))).toBe(true);
    const rescan = await ok('library.rescan', {});
    expect(rescan.added).toEqual([]);
    expect(rescan.unchanged).toBeGreaterThanOrEqual(4);
  });

  it('reports stats of the same store', async () => {
    const s = await ok('stats.get', {});
    expect(s.dbPath).toBe(store.path);
    expect(s.sources.indexed).toBeGreaterThanOrEqual(4);
  });
});

describe('decisions and hierarchy through the API', () => {
  const base = { title: 'Use SQLite', decision: 'Keep everything in one SQLite file', rationale: 'local-first, one file to back up', importance: 8 };

  it('refuses an incomplete decision with a message per field, then saves the fixed one', async () => {
    const bad = await api.dispatch('decisions.create', { ...base, rationale: ' ', importance: 11 });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.error.issues).toEqual(
      expect.arrayContaining([
        { field: 'rationale', message: 'is required' },
        { field: 'importance', message: 'must be an integer from 1 to 10' },
      ]),
    );
    const saved = await ok('decisions.create', { ...base, tags: ['storage'] });
    expect(saved.decision_id).toMatch(/^DEC-\d{4}-\d{2}-\d{2}-\d{3}$/);
    expect((await ok('decisions.list', { tag: 'storage' })).decisions.map((d: { title: string }) => d.title)).toEqual(['Use SQLite']);
  });

  it('supersedes: the new decision links back, the old one leaves the active list but stays in the export', async () => {
    const old = (await ok('decisions.list', { tag: 'storage' })).decisions[0];
    const next = await ok('decisions.supersede', { decisionId: old.decision_id, replacement: { ...base, title: 'Use SQLite with WAL', tags: ['storage'] } });
    expect(next.supersedes).toBe(old.decision_id);
    const active = (await ok('decisions.list', { tag: 'storage' })).decisions;
    expect(active.map((d: { decision_id: string }) => d.decision_id)).toEqual([next.decision_id]);
    const all = (await ok('decisions.list', { tag: 'storage', includeSuperseded: true })).decisions;
    expect(all).toHaveLength(2);
    const md = (await ok('decisions.exportMarkdown', {})).markdown;
    expect(md).toContain('Use SQLite with WAL');
    expect(md.indexOf(old.decision_id)).toBeLessThan(md.indexOf(`DECISION: Use SQLite with WAL`));
    const again = await api.dispatch('decisions.supersede', { decisionId: old.decision_id, replacement: { ...base, title: 'Third' } });
    expect(again).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('returns the L1–L4 tree with the ingested files as L4 and the consistency findings', async () => {
    const view = await ok('hierarchy.tree', {});
    expect(view.tree.l4.length).toBeGreaterThan(0);
    expect(view.tree.l4[0].marker).toMatch(/^4\./);
    expect(Array.isArray(view.findings)).toBe(true);
  });
});

describe('packets through the API', () => {
  it('builds a packet within budget that never carries a dropped secret, lists it, replays it identically', async () => {
    const { createRng, fakeJwt } = await import('../core/redact/fake-secrets.testkit.ts');
    const jwt = fakeJwt(createRng(7));
    const upload = await ok('library.import', {
      files: [
        { path: 'svc/auth.md', base64: b64(`# Auth service\n\nThe pelican gateway signs session tokens.\n\nsession_token = ${jwt}\n`) },
        { path: 'svc/notes.md', base64: b64('# Notes\n\nThe pelican gateway retries twice.\n') },
      ],
    });
    expect(upload.added).toHaveLength(2);
    const built = await ok('packets.build', { query: 'pelican gateway session', task: 'Explain token signing.\n- [ ] names the gateway', maxTokens: 1000 });
    expect(built.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(built.text).toContain('pelican gateway');
    expect(built.text).not.toContain(jwt);
    expect(JSON.stringify(built)).not.toContain(jwt);
    expect(built.text).toMatch(/\[REDACTED: [^\]]+\]/);
    expect(built.manifest.redactions.count).toBeGreaterThan(0);
    const b = built.manifest.budgets;
    expect(b.total_chars).toBeLessThanOrEqual(b.total_budget);
    expect('bytes' in built).toBe(false);
    // The audit logs docs/packets.md promises, in the database's own data folder as for `contextpack pack`.
    const logLines = (name: string) => readFileSync(join(dataDir, 'api-data', 'logs', `${name}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(logLines('injection-log').map((r) => r.context_snapshot_hash)).toContain(built.hash);
    const redactions = logLines('redaction');
    expect(redactions.length).toBe(built.manifest.redactions.count);
    expect(redactions[0]).toMatchObject({ type: expect.any(String), source: expect.any(String), section: expect.any(String) });
    expect(JSON.stringify(redactions)).not.toContain(jwt);

    const list = await ok('packets.list', {});
    expect(list[0]).toMatchObject({ hash: built.hash, query: 'pelican gateway session' });
    const again = await ok('packets.get', { hash: built.hash });
    expect(again.text).toBe(built.text);
    const diff = await ok('packets.replay', { hash: built.hash });
    expect(diff).toMatchObject({ hash: built.hash, reassembled_hash: built.hash, identical: true, added: [], removed: [], changed: [] });
  });

  it('reports unknown hashes and bad requests as contract errors', async () => {
    expect(await api.dispatch('packets.get', { hash: 'a'.repeat(64) })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await api.dispatch('packets.replay', { hash: 'xyz' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    const r = await api.dispatch('packets.build', { query: 'x', maxTokens: 5 });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_input', issues: [{ field: 'maxTokens' }] } });
  });
});
