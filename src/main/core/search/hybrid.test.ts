import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../embed/embedder.ts';
import { ingestPaths } from '../ingest/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { backfillVectors, openVectorIndex, type VectorIndex } from '../vectors/index.ts';
import { tinyModels, type TinyModelDir } from '../vectors/testing/tiny-embedder.ts';
import { createBm25Retriever } from './bm25.ts';
import { createHybridRetriever } from './hybrid.ts';

// Real store, FTS5 and vector index; the stored vectors are then overwritten with chosen directions, so which chunk
// the vector arm finds, and how close the others are, is known exactly.
const tmp = tempDirs('cp-hybrid-');
let models: TinyModelDir;
let embedder: Embedder;
let store: Store;
let index: VectorIndex;
const ids = new Map<string, number>();
const DIMS = 64;

function unit(cos: number): Float32Array {
  // cos to e0, the rest on e1: unit length.
  const v = new Float32Array(DIMS);
  v[0] = cos;
  v[1] = Math.sqrt(1 - cos * cos);
  return v;
}

beforeAll(async () => {
  const root = tmp.make();
  // a and b tie on BM25 (same word, same length); c and d do not contain the query word at all.
  writeTree(root, { 'a.txt': 'magma alpha\n', 'b.txt': 'magma bravo\n', 'c.txt': 'teapot charlie\n', 'd.txt': 'teapot delta\n' });
  store = openStore(':memory:');
  await ingestPaths(store.db, [root]);
  for (const [id, path] of store.db.prepare('SELECT c.id, s.path FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id').raw().all() as [number, string][]) {
    ids.set(path.slice(root.length + 1), id);
  }
  models = await tinyModels(['Xenova/all-MiniLM-L6-v2'], DIMS);
  embedder = await models.open();
  const report = await backfillVectors(store.db, embedder);
  index = openVectorIndex(store.db, report.spaceId);
  index.write([
    { chunkId: ids.get('c.txt')!, vector: unit(1) },
    { chunkId: ids.get('d.txt')!, vector: unit(0.99) },
    { chunkId: ids.get('b.txt')!, vector: unit(0.9) },
    { chunkId: ids.get('a.txt')!, vector: unit(0) },
  ]);
});
afterAll(async () => {
  await embedder.close();
  await models.cleanup();
  store.close();
  tmp.cleanup();
});

describe('hybrid fusion', () => {
  it('a chunk found by BM25 alone gets its own vector similarity, not the vector arm floor', async () => {
    // k 2: the vector arm's two nearest are c and d; a and b come from BM25 only, tied there.
    const hybrid = createHybridRetriever(store.db, { index, embedQuery: async () => unit(1), bm25: createBm25Retriever(store.db, { signals: false }), fetchK: 1 });
    const hits = await hybrid.search({ text: 'magma', k: 2 });
    const bm25 = await createBm25Retriever(store.db, { signals: false }).search({ text: 'magma', k: 2 });
    expect(bm25.map((h) => h.score)[0]).toBeCloseTo(bm25[1]!.score, 12);
    expect(bm25[0]!.chunkId).toBe(ids.get('a.txt'));
    // b is close to the query (0.9), a is orthogonal: b must rank first (with the floor for both, a won the tie).
    expect(hits[0]!.chunkId).toBe(ids.get('b.txt'));
    // b's fused score: bm25 weight 0.5 × 1 + vector weight 0.5 × (0.9 - 0) / (1 - 0), min-max over c, d, b and a.
    expect(hits[0]!.score).toBeCloseTo(0.5 + 0.5 * 0.9, 5);
  });

  it('returns the same rows as a fresh load, reusing what BM25 loaded', async () => {
    const hybrid = createHybridRetriever(store.db, { index, embedQuery: async () => unit(1) });
    const hits = await hybrid.search({ text: 'magma', k: 4 });
    const bm25 = new Map((await createBm25Retriever(store.db).search({ text: 'magma', k: 4 })).map((h) => [h.chunkId, h]));
    expect(hits.length).toBe(4);
    for (const h of hits) {
      expect(h.text.length).toBeGreaterThan(0);
      expect(h.displayPath).toMatch(/^[a-d]\.txt$/);
      const b = bm25.get(h.chunkId);
      if (b) expect({ ...h, score: 0 }).toEqual({ ...b, score: 0 });
    }
  });

  it('scores given chunks exactly, leaving out ids without a vector', () => {
    const scored = index.score(unit(1), [ids.get('b.txt')!, 999_999]);
    expect(scored).toHaveLength(1);
    expect(scored[0]!.score).toBeCloseTo(0.9, 5);
  });
});

describe('vector index shortlist cap', () => {
  it('maxShortlistFactor narrows the bit shortlist for one search, and never widens it', () => {
    const wide = openVectorIndex(store.db, index.space.id, { minShortlist: 1, shortlistFactor: 100 });
    // a is nearest by cosine but its sign bits disagree with the query's on 63 of 64 dimensions; the others agree
    // on every bit, so a shortlist of one (and its ties) leaves a out.
    const q = new Float32Array(DIMS).fill(0.01);
    q[0] = 1;
    const a = new Float32Array(DIMS).fill(-0.001);
    a[0] = 1;
    const flat = new Float32Array(DIMS).fill(1 / 8);
    const saved = index.vectors([...ids.values()]);
    try {
      wide.write([{ chunkId: ids.get('a.txt')!, vector: a }, ...['b.txt', 'c.txt', 'd.txt'].map((f) => ({ chunkId: ids.get(f)!, vector: flat }))]);
      expect(wide.knn(q, 1)[0]!.chunkId).toBe(ids.get('a.txt'));
      expect(wide.knn(q, 1, { maxShortlistFactor: 1 })[0]!.chunkId).not.toBe(ids.get('a.txt'));
      const narrow = openVectorIndex(store.db, index.space.id, { minShortlist: 1, shortlistFactor: 1 });
      expect(narrow.knn(q, 1, { maxShortlistFactor: 100 })[0]!.chunkId).not.toBe(ids.get('a.txt'));
    } finally {
      wide.write([...saved].map(([chunkId, vector]) => ({ chunkId, vector })));
    }
  });
});
