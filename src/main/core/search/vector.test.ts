import { afterAll } from 'vitest';
import type { Embedder } from '../embed/embedder.ts';
import { backfillVectors, openVectorIndex } from '../vectors/index.ts';
import { tinyModels, type TinyModelDir } from '../vectors/testing/tiny-embedder.ts';
import { createHybridRetriever } from './hybrid.ts';
import { retrieverContract } from './retriever-contract.ts';
import { createVectorRetriever } from './vector.ts';
import type { Store } from '../store/index.ts';

// The shared Retriever contract for the vector and hybrid modes, on the tiny model (a word-piece embedding lookup
// over the real MiniLM tokenizer, so texts that share words get similar vectors).
let models: TinyModelDir | undefined;
const embedders: Embedder[] = [];
afterAll(async () => {
  for (const e of embedders) await e.close();
  await models?.cleanup();
});

async function embedded(store: Store) {
  models ??= await tinyModels();
  const embedder = await models.open();
  embedders.push(embedder);
  const report = await backfillVectors(store.db, embedder);
  if (!report.active) throw new Error('backfill did not activate the space');
  return { index: openVectorIndex(store.db, report.spaceId), embedQuery: (t: string) => embedder.embedQuery(t) };
}

retrieverContract('vector', async (store) => createVectorRetriever(store.db, await embedded(store)));
retrieverContract('vector + MMR', async (store) => createVectorRetriever(store.db, { ...(await embedded(store)), mmrLambda: 0.5 }));
retrieverContract('hybrid (default: normalized fusion, no MMR)', async (store) => createHybridRetriever(store.db, await embedded(store)));
retrieverContract('hybrid (RRF, MMR 0.5)', async (store) =>
  createHybridRetriever(store.db, { ...(await embedded(store)), fusion: 'rrf', mmrLambda: 0.5 }));
