// The API methods added for agents (issue #11), as every transport (IPC, HTTP, MCP) gets them.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSection } from '../core/hierarchy/index.ts';
import { ingestPaths } from '../core/ingest/index.ts';
import { openStore, type Store } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { createApi, type Api } from './index.ts';

const tmp = tempDirs('cp-api-agent-');
let store: Store;
let api: Api;

beforeAll(async () => {
  const dir = tmp.make();
  store = openStore(join(dir, 'a.db'));
  const root = tmp.make();
  writeTree(root, { 'docs/guide.md': '# Guide\n\n## Retries\n\nUse exponential backoff.\n' });
  await ingestPaths(store.db, [root]);
  api = createApi({ store, dataDir: dir, version: 't', transport: 'mcp', background: false });
});
afterAll(async () => {
  await api.close();
  store.close();
  tmp.cleanup();
});

const ok = async (method: string, input: unknown) => {
  const r = await api.dispatch(method, input);
  if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
  return r.value as any;
};

describe('memory.create', () => {
  it('creates a decision through the template, naming bad fields under content', async () => {
    const bad = await api.dispatch('memory.create', { type: 'decision', title: 'Use WAL', content: { decision: 'Turn WAL on', reason: 'x' }, importance: 7 });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input', issues: [{ field: 'content.reason', message: expect.any(String) }] } });
    const missing = await api.dispatch('memory.create', { type: 'decision', title: 'Use WAL', content: { decision: 'Turn WAL on' }, importance: 7 });
    expect(missing).toMatchObject({ ok: false, error: { issues: [{ field: 'content.rationale' }] } });
    const d = await ok('memory.create', { type: 'decision', title: 'Use WAL', content: { decision: 'Turn WAL on', rationale: 'Readers never block the writer' }, importance: 7, tags: ['db'] });
    expect(d.decision_id).toMatch(/^DEC-/);
    expect(d.tags).toEqual(['db']);
  });

  it('creates issues, states and learnings with the engine validation', async () => {
    const issue = await ok('memory.create', { type: 'issue', title: 'Slow start', content: { description: 'CLI is slow', severity: 'high' } });
    expect(issue).toMatchObject({ memory_type: 'issue', content: { severity: 'high', status: 'open' } });
    const bad = await api.dispatch('memory.create', { type: 'state', title: 'x', content: { completion_percentage: 140 } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    if (!bad.ok) expect(bad.error.issues!.map((i) => i.field)).toEqual(expect.arrayContaining(['content.task_description', 'content.completion_percentage']));
    expect(await api.dispatch('memory.create', { type: 'opinion', title: 'x', content: {} })).toMatchObject({ ok: false, error: { issues: [{ field: 'type' }] } });
  });
});

describe('memory.rehydrate and hierarchy.show', () => {
  it('rehydrates within the budget', async () => {
    const b = await ok('memory.rehydrate', { maxTokens: 2000 });
    expect(b.text).toContain('Use WAL');
    expect(b.tokens).toBeLessThanOrEqual(2000);
    expect(await api.dispatch('memory.rehydrate', { maxTokens: 10 })).toMatchObject({ ok: false, error: { issues: [{ field: 'maxTokens' }] } });
  });

  it('shows the navigation index, one section, and not_found for an unknown marker', async () => {
    const nav = await ok('hierarchy.show', {});
    expect(nav.marker).toBeNull();
    expect(nav.index.entries.some((e: { level: number }) => e.level === 4)).toBe(true);
    const s = addSection(store.db, { level: 2, title: 'Storage', body: 'One SQLite file per project.' });
    const one = await ok('hierarchy.show', { marker: `§${s.marker}` });
    expect(one).toMatchObject({ marker: s.marker, section: { title: 'Storage' } });
    expect(one.text).toContain('One SQLite file per project.');
    expect(await api.dispatch('hierarchy.show', { marker: '§3.42' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    // §4: an ingested file with its chunks, by path or prefix.
    const file = await ok('hierarchy.show', { marker: '§4.docs/guide.md' });
    expect(file.text).toMatch(/^§4\.docs\/guide\.md \(markdown, \d+ chunks/);
    expect(file.text).toMatch(/docs\/guide\.md#retries:\d+-\d+/);
    expect((await ok('hierarchy.show', { marker: '§4.docs/*' })).files).toHaveLength(1);
    expect(await api.dispatch('hierarchy.show', { marker: '§4.nope.md' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});

describe('packets.build and search.query for agents', () => {
  it('renders the asked format and records the retrieval choice', async () => {
    const p = await ok('packets.build', { query: 'exponential backoff', format: 'json' });
    expect(p.format).toBe('json');
    expect(JSON.parse(p.text).manifest.context_snapshot_hash).toBe(p.hash);
    expect(p.manifest.retrieval).toMatchObject({ mode: 'bm25', mmr: { similarity: 'text' }, fallback_reason: expect.stringContaining('no vectors yet') });
    const md = await ok('packets.build', { query: 'exponential backoff' });
    expect(md.hash).toBe(p.hash);
    expect(md.format).toBe('md');
  });
});
