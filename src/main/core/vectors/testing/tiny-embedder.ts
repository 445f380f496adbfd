// Test helper: a real embedder (transformers.js + onnxruntime) over the tiny ONNX model the embed module builds,
// so vector tests run the real loading, pooling, storage and KNN paths without pretrained weights.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbedder, openInProcessEmbedder, type Embedder } from '../../embed/embedder.ts';
import { probeModel, type ModelFound } from '../../embed/probe.ts';
import { buildTinyModel, TINY_TEST_MODEL } from '../../embed/testing/tiny-model.ts';
import type { Database } from 'better-sqlite3';
import { backfillVectors, type BackfillReport } from '../backfill.ts';

export interface TinyModelDir {
  root: string;
  found(modelId?: string): Promise<ModelFound>;
  open(modelId?: string, options?: { worker?: boolean }): Promise<Embedder>;
  /** Embeds every chunk of the store with the model (the backfill job), closing the embedder afterwards. */
  embedAll(db: Database, modelId?: string): Promise<BackfillReport>;
  cleanup(): Promise<void>;
}

export const TINY_MODEL_ID = TINY_TEST_MODEL.modelId;

/** Builds tiny models under one temp root; each id gets different random tables (seed) so they disagree. */
export async function tinyModels(ids: readonly string[] = [TINY_MODEL_ID], dim: number = TINY_TEST_MODEL.dim): Promise<TinyModelDir> {
  const root = await mkdtemp(join(tmpdir(), 'cp-vec-models-'));
  // The first id is exactly what `npm run models:tiny` writes (same id, dims and seed).
  for (const [i, modelId] of ids.entries()) await buildTinyModel({ root, modelId, dim, seed: TINY_TEST_MODEL.seed + i });
  const found = async (modelId = ids[0]!): Promise<ModelFound> => {
    const p = await probeModel({ modelId, dirs: [root] });
    if (!p.ok) throw new Error(p.reason);
    return p;
  };
  const open: TinyModelDir['open'] = async (modelId, options) =>
    options?.worker ? openEmbedder(await found(modelId)) : openInProcessEmbedder(await found(modelId));
  return {
    root,
    found,
    open,
    embedAll: async (db, modelId) => {
      const embedder = await open(modelId);
      try {
        return await backfillVectors(db, embedder);
      } finally {
        await embedder.close();
      }
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
