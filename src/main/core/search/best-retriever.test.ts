import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestPaths } from '../ingest/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { backfillVectors } from '../vectors/index.ts';
import { tinyModels, type TinyModelDir } from '../vectors/testing/tiny-embedder.ts';
import { createBm25Retriever } from './bm25.ts';
import { chooseRetriever, hybridBlocker } from './best-retriever.ts';
import { DEFAULT_HYBRID } from './hybrid.ts';
import { openSemanticSearch } from './semantic-search.ts';
import { createTextMmrRetriever, textVectors } from './text-mmr.ts';

const tmp = tempDirs('cp-best-');
let store: Store;
let models: TinyModelDir;

// One long file whose sections all match the query (its chunks overlap), and four short files that match too.
const longFile = Array.from({ length: 10 }, (_, i) => `## Part ${i}\n\n${'The pelican gateway rotates signing keys every day and reloads them. '.repeat(6)}Detail ${i}.\n`).join('\n');
const others = {
  'ops.md': '# Ops\n\nThe pelican gateway pages the on-call engineer when key rotation fails.\n',
  'audit.md': '# Audit\n\nAuditors read the pelican gateway rotation log every quarter.\n',
  'clients.md': '# Clients\n\nClients cache pelican gateway keys for one hour after rotation.\n',
  'history.md': '# History\n\nKey rotation for the pelican gateway began in 2019.\n',
};

beforeAll(async () => {
  models = await tinyModels();
  store = openStore(join(tmp.make(), 'b.db'));
  const root = tmp.make();
  writeTree(root, { 'design.md': `# Design\n\n${longFile}`, ...others });
  await ingestPaths(store.db, [root]);
});
afterAll(async () => {
  store.close();
  await models.cleanup();
  tmp.cleanup();
});

const files = (hits: { path: string }[]) => new Set(hits.map((h) => h.path)).size;

describe('text MMR (BM25 without vectors)', () => {
  it('spreads the top hits over more files than plain BM25, and records its parameters', async () => {
    // Plain chunk BM25 (no code signals: their per-file decay already spreads files), to see text MMR's own effect.
    const bm25 = createBm25Retriever(store.db, { signals: false });
    const q = { text: 'pelican gateway key rotation', k: 8 };
    const plain = await bm25.search(q);
    const mmr = createTextMmrRetriever(bm25);
    const diverse = await mmr.search(q);
    expect(diverse).toHaveLength(8);
    expect(files(diverse)).toBeGreaterThan(files(plain));
    expect(files(plain)).toBe(1);
    expect(files(diverse)).toBeGreaterThanOrEqual(4);
    expect(mmr).toMatchObject({ mode: 'bm25', params: { mmr: { lambda: 0.5, fetch_k: 50, similarity: 'text' } } });
    for (let i = 1; i < diverse.length; i++) expect(diverse[i]!.score).toBeLessThanOrEqual(diverse[i - 1]!.score);
    // λ = 1 is plain BM25 order.
    expect((await createTextMmrRetriever(bm25, { mmrLambda: 1 }).search(q)).map((h) => h.chunkId)).toEqual(plain.map((h) => h.chunkId));
  });

  it('text vectors are unit length, equal for equal texts, and near for overlapping chunks only', () => {
    const [a, b, c, d] = textVectors(['alpha beta gamma delta', 'alpha beta gamma delta', 'alpha beta gamma epsilon', 'zeta eta theta iota']);
    const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i]!, 0);
    expect(dot(a!, a!)).toBeCloseTo(1, 5);
    expect(dot(a!, b!)).toBeCloseTo(1, 5);
    expect(dot(a!, c!)).toBeGreaterThan(0.3);
    expect(dot(a!, d!)).toBeLessThan(0.1);
  });
});

describe('the retriever factory', () => {
  const deps = (dirs: string[]) => ({ db: store.db, vec: store.vec, openSemantic: () => openSemanticSearch(store.db, { dirs, inProcess: true }) });

  it('falls back to BM25 with the reason when there are no vectors: text MMR for packets, plain for searches', async () => {
    expect(hybridBlocker(store.db, store.vec)).toMatch(/no vectors yet/);
    const packet = await chooseRetriever(deps([models.root]), { purpose: 'packet' });
    expect(packet).toMatchObject({ embedderId: null, fallbackReason: expect.stringMatching(/no vectors yet/) });
    expect(packet.retriever.params?.mmr?.similarity).toBe('text');
    const search = await chooseRetriever(deps([models.root]), { purpose: 'search' });
    expect(search.retriever.mode).toBe('bm25');
    expect(search.retriever.params).toBeUndefined();
    expect(hybridBlocker(store.db, { loaded: false, reason: 'disabled' })).toMatch(/sqlite-vec is not loaded/);
  });

  it('while a first embedding run is under way, answers with BM25 and says how far the run is', async () => {
    const fresh = openStore(join(tmp.make(), 'first.db'));
    try {
      const root = tmp.make();
      writeTree(root, { 'a.md': '# A\n\nalpha notes\n', 'b.md': '# B\n\nbeta notes\n', 'c.md': '# C\n\ngamma notes\n' });
      await ingestPaths(fresh.db, [root]);
      const embedder = await models.open();
      const stop = new AbortController();
      try {
        // One batch of one chunk, then stopped: the space is building, not active.
        const r = await backfillVectors(fresh.db, embedder, { batchSize: 1, signal: stop.signal, onProgress: () => stop.abort() });
        expect(r).toMatchObject({ aborted: true, active: false, embedded: 1 });
      } finally {
        await embedder.close();
      }
      const choice = await chooseRetriever({ db: fresh.db, vec: fresh.vec, openSemantic: () => Promise.reject(new Error('not opened while building')) }, { purpose: 'search' });
      expect(choice.retriever.mode).toBe('bm25');
      expect(choice.fallbackReason).toMatch(/^semantic search off: no vectors yet; embedding with Xenova\/all-MiniLM-L6-v2 has covered 1 of 3 chunks, BM25 answers until it finishes$/);
    } finally {
      fresh.close();
    }
  });

  it('keeps BM25 on a store that is mostly source code, vectors or not, and says why', async () => {
    const code = openStore(join(tmp.make(), 'code.db'));
    try {
      const root = tmp.make();
      writeTree(root, {
        'src/retry.ts': 'export function retry(fn: () => void, times: number) {\n  for (let i = 0; i < times; i++) fn();\n}\n',
        'src/backoff.ts': 'export function backoff(attempt: number): number {\n  return 2 ** attempt * 100;\n}\n',
        'README.md': '# Retry\n\nHelpers for retrying with backoff.\n',
      });
      await ingestPaths(code.db, [root]);
      await models.embedAll(code.db);
      const choice = await chooseRetriever({ db: code.db, vec: code.vec, openSemantic: () => Promise.reject(new Error('not opened for code')) }, { purpose: 'packet' });
      expect(choice.retriever.mode).toBe('bm25');
      expect(choice.fallbackReason).toMatch(/^code-aware BM25: 2 of 3 chunks are source code/);
    } finally {
      code.close();
    }
  });

  it('chooses hybrid once every chunk has a vector and the model is here; falls back when a chunk lacks one or the model is gone', async () => {
    await models.embedAll(store.db);
    expect(hybridBlocker(store.db, store.vec)).toBeNull();
    const hybrid = await chooseRetriever(deps([models.root]), { purpose: 'packet' });
    try {
      expect(hybrid).toMatchObject({ embedderId: 'Xenova/all-MiniLM-L6-v2', fallbackReason: null });
      expect(hybrid.retriever).toMatchObject({ mode: 'hybrid', params: { fusion: { method: 'normalized', weights: DEFAULT_HYBRID.weights }, mmr: null } });
      expect((await hybrid.retriever.search({ text: 'pelican gateway', k: 5 })).length).toBe(5);
    } finally {
      const opened = await openSemanticSearch(store.db, { dirs: [models.root], inProcess: true });
      if (opened.ok) await opened.engine.close();
    }
    const broken = await chooseRetriever({ db: store.db, vec: store.vec, openSemantic: () => Promise.reject(new Error('onnxruntime exploded')) }, { purpose: 'packet' });
    expect(broken).toMatchObject({ embedderId: null, fallbackReason: 'semantic search failed to open: onnxruntime exploded' });
    expect(broken.retriever.mode).toBe('bm25');
    const gone = await chooseRetriever(deps([tmp.make()]), { purpose: 'packet' });
    expect(gone.fallbackReason).toMatch(/no model at/);
    // A new file without vectors: incomplete, so BM25 with the coverage in the reason.
    const root = tmp.make();
    writeTree(root, { 'new.md': '# New\n\npelican gateway notes\n' });
    await ingestPaths(store.db, [root]);
    const partial = await chooseRetriever(deps([models.root]), { purpose: 'packet' });
    expect(partial.fallbackReason).toMatch(/cover \d+ of \d+ chunks; run `contextpack embed`/);
  });

  it('asks for the coverage again after a write by this or another connection (it is remembered in between)', async () => {
    await models.embedAll(store.db);
    expect(hybridBlocker(store.db, store.vec)).toBeNull();
    // Another process (the watcher, a CLI ingest) adds a chunk without a vector.
    const other = openStore(store.path);
    try {
      const root = tmp.make();
      writeTree(root, { 'late.md': '# Late\n\nwritten by another process\n' });
      await ingestPaths(other.db, [root]);
    } finally {
      other.close();
    }
    expect(hybridBlocker(store.db, store.vec)).toMatch(/cover \d+ of \d+ chunks/);
    await models.embedAll(store.db);
    expect(hybridBlocker(store.db, store.vec)).toBeNull();
  });
});
