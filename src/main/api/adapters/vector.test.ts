import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ingestPaths } from '../../core/ingest/index.ts';
import { openStore, type Store } from '../../core/store/index.ts';
import { tempDirs, writeTree } from '../../core/testing/tmp.ts';
import { openSemanticSearch } from '../../core/search/index.ts';
import * as vectors from '../../core/vectors/index.ts';
import { tinyModels, type TinyModelDir } from '../../core/vectors/testing/tiny-embedder.ts';
import { ApiFailure } from '../failure.ts';
import { createVectorAdapter } from './vector.ts';

// Counts how often a vector index (its bit sketch) is loaded from SQLite.
vi.mock('../../core/vectors/index.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../core/vectors/index.ts')>();
  return { ...original, openVectorIndex: vi.fn(original.openVectorIndex) };
});

const tmp = tempDirs('cp-vec-adapter-');
let models: TinyModelDir;
let store: Store;
let root: string;

beforeAll(async () => {
  models = await tinyModels();
  const dir = tmp.make();
  store = openStore(join(dir, 'v.db'));
  root = tmp.make();
  writeTree(root, {
    'volcano.md': '# Volcano\n\nmagma and ash rise from the crater\n',
    'ocean.md': '# Ocean\n\ncoral reefs and currents\n',
    'forest.md': '# Forest\n\nmoss ferns and tall pines\n',
    'glacier.md': '# Glacier\n\nice sheets calving into the fjord\n',
    'glacier-copy.md': '# Glacier\n\nice sheets calving into the fjord\n',
    'meltwater.md': '# Meltwater\n\nglacier ice melts into a turquoise lake below the fjord\n',
  });
  await ingestPaths(store.db, [root]);
  await models.embedAll(store.db);
});

afterAll(async () => {
  store.close();
  await models.cleanup();
  tmp.cleanup();
});

describe('vector adapter', () => {
  it('keeps one vector index open across searches instead of reloading it per query', async () => {
    const adapter = createVectorAdapter(store, [models.root]);
    const loads = vi.mocked(vectors.openVectorIndex);
    loads.mockClear();
    try {
      for (const mode of ['vector', 'hybrid', 'vector'] as const) {
        const hits = await adapter.search({ text: 'magma ash crater', k: 1, mode });
        expect(hits[0]!.path).toBe(join(root, 'volcano.md'));
      }
      expect(loads).toHaveBeenCalledTimes(1);
    } finally {
      await adapter.close();
    }
  });

  it('opens again after a failed open: a model that appears later is used without a restart', async () => {
    const later = join(tmp.make(), 'models');
    const adapter = createVectorAdapter(store, [later]);
    try {
      const first = await adapter.search({ text: 'coral reefs', k: 1, mode: 'vector' }).catch((e: unknown) => e);
      expect(first).toBeInstanceOf(ApiFailure);
      expect(first).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/semantic search off/) });
      renameSync(models.root, later);
      try {
        expect((await adapter.status()).available).toBe(true);
        const hits = await adapter.search({ text: 'coral reefs currents', k: 1, mode: 'vector' });
        expect(hits[0]!.path).toBe(join(root, 'ocean.md'));
      } finally {
        renameSync(later, models.root);
      }
    } finally {
      await adapter.close();
    }
  });

  it('hybrid search without a λ uses the retriever default (no MMR), as the CLI does; a given λ is used as is', async () => {
    const adapter = createVectorAdapter(store, [models.root]);
    const opened = await openSemanticSearch(store.db, { dirs: [models.root], inProcess: true });
    if (!opened.ok) throw new Error(opened.reason);
    try {
      const query = { text: 'glacier ice calving fjord', k: 2, mode: 'hybrid' as const };
      const paths = (hits: { path: string }[]) => hits.map((h) => h.path);
      const withDefault = await opened.engine.search(query);
      const withMmr = await opened.engine.search({ ...query, mmrLambda: 0.3 });
      // The fixture has a duplicate: without MMR both copies come first, with it the second pick is another file.
      expect(paths(withDefault).sort()).toEqual([join(root, 'glacier-copy.md'), join(root, 'glacier.md')]);
      expect(paths(withMmr)).not.toEqual(paths(withDefault));
      expect(await adapter.search(query)).toEqual(withDefault);
      expect(await adapter.search({ ...query, mmrLambda: 0.3 })).toEqual(withMmr);
    } finally {
      await opened.engine.close();
      await adapter.close();
    }
  });

  it('answers unavailable once closed', async () => {
    const adapter = createVectorAdapter(store, [models.root]);
    expect(await adapter.search({ text: 'moss ferns', k: 1, mode: 'vector' })).toHaveLength(1);
    await adapter.close();
    await expect(adapter.search({ text: 'moss ferns', k: 1, mode: 'vector' })).rejects.toMatchObject({ code: 'unavailable' });
  });
});
