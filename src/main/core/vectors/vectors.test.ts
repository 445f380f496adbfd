import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../embed/embedder.ts';
import { CHUNKER_VERSION, ingestPaths } from '../ingest/index.ts';
import { createBm25Retriever } from '../search/bm25.ts';
import { createHybridRetriever } from '../search/hybrid.ts';
import { createVectorRetriever } from '../search/vector.ts';
import { openStore, type Store } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import {
  activeSpace, backfillVectors, listSpaces, openQueryModel, openVectorIndex, semanticStatus, setConfiguredModelId, spaceTables,
  type BackfillProgress,
} from './index.ts';
import { tinyModels, type TinyModelDir } from './testing/tiny-embedder.ts';
import { loadSketchForTest } from './vector-index.ts';

const MODEL_A = 'Xenova/all-MiniLM-L6-v2';
const MODEL_B = 'Xenova/gte-small';

const CORPUS: Record<string, string> = {};
const TOPICS = ['volcano magma eruption ash', 'ocean coral reef fish', 'galaxy telescope nebula star', 'garden tomato compost soil', 'cache eviction memory capacity'];
for (let i = 0; i < 40; i++) CORPUS[`notes/n${String(i).padStart(2, '0')}.txt`] = `${TOPICS[i % TOPICS.length]} note ${i} about item${i}\n`;

const tmp = tempDirs('cp-vectors-');
let models: TinyModelDir;
let a: Embedder;
let b: Embedder;
beforeAll(async () => {
  models = await tinyModels([MODEL_A, MODEL_B]);
  a = await models.open(MODEL_A, { worker: true });
  b = await models.open(MODEL_B);
});
afterAll(async () => {
  await a.close();
  await b.close();
  await models.cleanup();
  tmp.cleanup();
});

async function freshStore(): Promise<{ store: Store; root: string; dbPath: string }> {
  const root = tmp.make();
  writeTree(root, CORPUS);
  const dbPath = join(tmp.make(), 'v.db');
  const store = openStore(dbPath);
  await ingestPaths(store.db, [root]);
  return { store, root, dbPath };
}

const chunkCount = (s: Store) => (s.db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
const tableCount = (s: Store, table: string) => (s.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('backfill', () => {
  it('embeds every chunk in the worker, in batches with progress, and records model, dims and chunker version', async () => {
    const { store } = await freshStore();
    const progress: BackfillProgress[] = [];
    const report = await backfillVectors(store.db, a, { batchSize: 16, onProgress: (p) => progress.push(p) });
    const n = chunkCount(store);
    expect(report).toMatchObject({ modelId: MODEL_A, dims: 64, chunkerVersion: CHUNKER_VERSION, embedded: n, done: n, total: n, active: true, swapped: true });
    // Each batch of 16 reports when written, and the embedder's lanes report within it as they finish.
    const done = progress.map((p) => p.done);
    expect(done).toEqual([...done].sort((x, y) => x - y));
    expect(done).toEqual(expect.arrayContaining([16, 32]));
    expect(done.at(-1)).toBe(n);
    const [space] = listSpaces(store.db);
    expect(space).toMatchObject({ modelId: MODEL_A, fingerprint: a.fingerprint, dims: 64, chunkerVersion: CHUNKER_VERSION, state: 'active' });
    const t = spaceTables(space!);
    expect(tableCount(store, t.f32)).toBe(n);
    expect(tableCount(store, t.bits)).toBe(n);
    // Stored vectors are the embedder's own output for the chunk's passage text.
    const index = openVectorIndex(store.db, space!.id);
    const row = store.db.prepare("SELECT c.id, c.text, d.title FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY c.id LIMIT 1").get() as { id: number; text: string; title: string };
    const stored = index.vectors([row.id]).get(row.id)!;
    const again = (await a.embedPassages([row.title ? `${row.title}\n${row.text}` : row.text]))[0]!;
    stored.forEach((x, i) => expect(x).toBeCloseTo(again[i]!, 5));
    const second = await backfillVectors(store.db, a);
    expect(second).toMatchObject({ embedded: 0, swapped: false, active: true });
    store.close();
  });

  it('resumes after an interruption and activates a space only once it is complete', async () => {
    const { store } = await freshStore();
    const stop = new AbortController();
    const first = await backfillVectors(store.db, a, { batchSize: 10, signal: stop.signal, onProgress: () => stop.abort() });
    expect(first).toMatchObject({ embedded: 10, aborted: true, active: false });
    expect(activeSpace(store.db)).toBeUndefined();
    const status = await semanticStatus(store.db, [models.root]);
    expect(status.on).toBe(false);
    expect(status.building[0]).toMatchObject({ vectors: 10 });
    const rest = await backfillVectors(store.db, a, { batchSize: 10 });
    expect(rest.embedded).toBe(chunkCount(store) - 10);
    expect(rest).toMatchObject({ swapped: true, active: true });
    store.close();
  });

  it('removes the vectors of deleted chunks and embeds new ones', async () => {
    const { store, root } = await freshStore();
    const report = await backfillVectors(store.db, a);
    const space = activeSpace(store.db)!;
    const t = spaceTables(space);
    rmSync(join(root, 'notes/n00.txt'));
    writeFileSync(join(root, 'notes/new.txt'), 'brand new zebra crossing note\n');
    await ingestPaths(store.db, [root]);
    const n = chunkCount(store);
    expect(tableCount(store, t.f32)).toBe(n - 1);
    expect(tableCount(store, t.bits)).toBe(n - 1);
    const orphans = store.db.prepare(`SELECT count(*) AS n FROM ${t.bits} WHERE chunk_id NOT IN (SELECT id FROM chunks)`).get() as { n: number };
    expect(orphans.n).toBe(0);
    const more = await backfillVectors(store.db, a);
    expect(more).toMatchObject({ spaceId: report.spaceId, embedded: 1, done: n });
    const hits = await createVectorRetriever(store.db, { index: openVectorIndex(store.db, space.id), embedQuery: (q) => a.embedQuery(q) }).search({ text: 'zebra crossing', k: 1 });
    expect(hits[0]!.path).toBe(join(root, 'notes/new.txt'));
    store.close();
  });

  it('re-embeds on a model change in the background and swaps only when complete', async () => {
    const { store } = await freshStore();
    const first = await backfillVectors(store.db, a);
    const oldIndex = openVectorIndex(store.db, first.spaceId);
    const stop = new AbortController();
    const partial = await backfillVectors(store.db, b, { batchSize: 8, signal: stop.signal, onProgress: () => stop.abort() });
    expect(partial).toMatchObject({ modelId: MODEL_B, embedded: 8, active: false });
    // Searches keep using model A's complete space, with model A's query vectors.
    expect(activeSpace(store.db)!.id).toBe(first.spaceId);
    const q = await a.embedQuery('volcano magma');
    expect(oldIndex.knn(q, 3)).toHaveLength(3);
    const query = await openQueryModel(store.db, [models.root], { inProcess: true });
    expect(query.ok && query.embedder.modelId).toBe(MODEL_A);
    if (query.ok) await query.embedder.close();
    const status = await semanticStatus(store.db, [models.root]);
    expect(status.notices.join('\n')).toMatch(/re-embedding with Xenova\/gte-small .*8\/\d+ chunks/);

    const done = await backfillVectors(store.db, b);
    expect(done).toMatchObject({ swapped: true, dropped: [first.spaceId] });
    expect(listSpaces(store.db).map((s) => [s.modelId, s.state])).toEqual([[MODEL_B, 'active']]);
    expect(store.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE ?").get(`vec_%_${first.spaceId}%`)).toEqual({ n: 0 });
    expect(() => oldIndex.knn(q, 3)).toThrow(/replaced by a re-embed/);
    // A query vector of the wrong model's dimensions can never be compared with these vectors.
    const newIndex = openVectorIndex(store.db, done.spaceId);
    expect(() => newIndex.knn(new Float32Array(32), 3)).toThrow(/dimensions/);
    store.close();
  });

  it('re-embeds on a chunker version change once every chunk is re-chunked', async () => {
    const NEXT = CHUNKER_VERSION + 1;
    const { store } = await freshStore();
    const v1 = await backfillVectors(store.db, a);
    const v2 = await backfillVectors(store.db, a, { chunkerVersion: NEXT });
    expect(v2).toMatchObject({ embedded: 0, active: false, otherVersion: chunkCount(store) });
    // Stands in for a rescan under a new chunker (the chunk texts are the same here).
    store.db.prepare('UPDATE chunks SET chunker_version = ? WHERE id IN (SELECT id FROM chunks ORDER BY id LIMIT 5)').run(NEXT);
    expect(await backfillVectors(store.db, a, { chunkerVersion: NEXT })).toMatchObject({ embedded: 5, active: false });
    expect(activeSpace(store.db)!.id).toBe(v1.spaceId);
    store.db.prepare('UPDATE chunks SET chunker_version = ?').run(NEXT);
    const done = await backfillVectors(store.db, a, { chunkerVersion: NEXT });
    expect(done).toMatchObject({ embedded: chunkCount(store) - 5, swapped: true, dropped: [v1.spaceId] });
    store.close();
  });
});

describe('vector index', () => {
  it('rescores a bit-sketch shortlist exactly, and sees new vectors', async () => {
    const { store } = await freshStore();
    const report = await backfillVectors(store.db, a);
    const n = chunkCount(store);
    // A shortlist of half the chunks: the sketch must prune, and what it keeps must carry exact scores.
    const index = openVectorIndex(store.db, report.spaceId, { minShortlist: 1, shortlistFactor: Math.floor(n / 2 / 3) });
    const whole = openVectorIndex(store.db, report.spaceId, { minShortlist: n });
    for (const text of ['volcano eruption', 'coral fish', 'telescope star', 'garden compost']) {
      const q = await a.embedQuery(text);
      const exact = new Map(index.knn(q, n, { exact: true }).map((h) => [h.chunkId, h.score]));
      const fast = index.knn(q, 3);
      expect(fast).toHaveLength(3);
      for (const h of fast) expect(h.score).toBeCloseTo(exact.get(h.chunkId)!, 5);
      expect(fast[0]!.chunkId).toBe([...exact.keys()][0]);
      expect(whole.knn(q, 3).map((h) => h.chunkId)).toEqual([...exact.keys()].slice(0, 3));
    }
    const id = (store.db.prepare('SELECT id FROM chunks ORDER BY id LIMIT 1').get() as { id: number }).id;
    const target = Float32Array.from({ length: 64 }, (_, i) => (i % 3 === 0 ? 0.25 : -0.125));
    const q = target.map((x) => x / Math.hypot(...target));
    expect(index.write([{ chunkId: id, vector: q }])).toBe(1);
    expect(index.knn(q, 1)[0]).toMatchObject({ chunkId: id });
    expect(index.knn(q, 1)[0]!.score).toBeCloseTo(1, 5);
    store.close();
  });

  it('reads the bit sketch from sqlite-vec chunk storage exactly as row by row, after deletes too', async () => {
    const { store, root } = await freshStore();
    const report = await backfillVectors(store.db, a);
    rmSync(join(root, 'notes/n03.txt'));
    rmSync(join(root, 'notes/n17.txt'));
    await ingestPaths(store.db, [root]);
    const space = activeSpace(store.db)!;
    expect(space.id).toBe(report.spaceId);
    const fast = loadSketchForTest(store.db, space, true)!;
    const slow = loadSketchForTest(store.db, space, false)!;
    expect(fast).toBeDefined();
    expect(fast.ids.length).toBe(chunkCount(store));
    const bySlow = new Map([...slow.ids].map((id, i) => [id, Array.from(slow.words.subarray(i * 2, i * 2 + 2))]));
    [...fast.ids].forEach((id, i) => expect(Array.from(fast.words.subarray(i * 2, i * 2 + 2))).toEqual(bySlow.get(id)));
    expect(new Set(fast.ids)).toEqual(new Set(slow.ids));
    store.close();
  });

  it('rejects bad vectors without writing any of the batch', async () => {
    const { store } = await freshStore();
    const report = await backfillVectors(store.db, a);
    const index = openVectorIndex(store.db, report.spaceId);
    const before = index.count();
    const ids = (store.db.prepare('SELECT id FROM chunks ORDER BY id LIMIT 2').all() as { id: number }[]).map((r) => r.id);
    expect(() => index.write([{ chunkId: ids[0]!, vector: new Float32Array(64) }, { chunkId: ids[1]!, vector: new Float32Array(63) }])).toThrow(/chunk \d+ has 63 dimensions/);
    expect(() => index.write([{ chunkId: ids[0]!, vector: new Float32Array(64).fill(Number.NaN) }])).toThrow(/non-finite/);
    expect(index.write([{ chunkId: 999999, vector: new Float32Array(64).fill(0.125) }])).toBe(0);
    expect(index.count()).toBe(before);
    store.close();
  });
});

describe('without a usable model', () => {
  it('says why semantic search is off, and BM25 keeps working', async () => {
    const { store, root } = await freshStore();
    const empty = tmp.make();
    const status = await semanticStatus(store.db, [empty]);
    expect(status.on).toBe(false);
    expect(status.reason).toBe(`semantic search off: no model at ${join(empty, MODEL_A)}; run \`contextpack models fetch\``);
    const query = await openQueryModel(store.db, [empty]);
    expect(query).toEqual({ ok: false, reason: status.reason });
    const hits = await createBm25Retriever(store.db).search({ text: 'volcano magma', k: 1 });
    expect(hits[0]!.path.startsWith(root)).toBe(true);
    // A configured model that exists but has no vectors yet.
    setConfiguredModelId(store.db, MODEL_B);
    expect((await semanticStatus(store.db, [models.root])).reason).toMatch(/no vectors yet for Xenova\/gte-small; run `contextpack embed`/);
    store.close();
  });

  it('refuses to query with a model whose files changed since the vectors were made', async () => {
    const { store } = await freshStore();
    await backfillVectors(store.db, a);
    // Another model's folder under the same id: same tokenizer, different weights, so another fingerprint.
    const other = await tinyModels([MODEL_B]);
    const { buildTinyModel } = await import('../embed/testing/tiny-model.ts');
    await buildTinyModel({ root: other.root, modelId: MODEL_A, dim: 64, seed: 99 });
    const query = await openQueryModel(store.db, [other.root]);
    expect(query.ok).toBe(false);
    expect(!query.ok && query.reason).toMatch(/stored vectors were made by Xenova\/all-MiniLM-L6-v2 \(fingerprint [0-9a-f]{16}, 64-d\), but the model at .* is [0-9a-f]{16}/);
    const ok = await semanticStatus(store.db, [models.root]);
    expect(ok.on).toBe(true);
    expect(ok.notices.join('\n')).toMatch(/vectors +Xenova\/all-MiniLM-L6-v2 \(64-d, chunker v\d+\): (\d+)\/\1 chunks/);
    await other.cleanup();
    store.close();
  });

  it('hybrid search over a partly embedded store still returns BM25-only hits', async () => {
    const { store, root } = await freshStore();
    const report = await backfillVectors(store.db, a);
    writeFileSync(join(root, 'notes/late.txt'), 'quokka marsupial island\n');
    await ingestPaths(store.db, [root]);
    const hybrid = createHybridRetriever(store.db, { index: openVectorIndex(store.db, report.spaceId), embedQuery: (q) => a.embedQuery(q) });
    const hits = await hybrid.search({ text: 'quokka marsupial', k: 3 });
    // Not embedded yet, it can only come from the BM25 list; RRF still ranks it with the best vector-only hit.
    expect(hits.slice(0, 2).map((h) => h.path)).toContain(join(root, 'notes/late.txt'));
    store.close();
  });
});
