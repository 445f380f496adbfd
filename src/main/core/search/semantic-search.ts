// Vector and hybrid search as one engine for the CLI, the API and the benchmarks: it embeds queries with the
// active vector space's model, and follows a swap to a re-embedded space on the next search.
import type { Database } from 'better-sqlite3';
import type { SearchFilters, SearchHit } from '../../../shared/types.ts';
import type { Embedder, WorkerDeps } from '../embed/embedder.ts';
import { activeSpace, openQueryModel, openVectorIndex, type VectorIndex, type VectorIndexOptions, type VectorSpace } from '../vectors/index.ts';
import type { FusionMethod } from './fusion.ts';
import { createHybridRetriever } from './hybrid.ts';
import { createVectorRetriever } from './vector.ts';

export interface SemanticSearchRequest {
  text: string;
  k: number;
  mode: 'vector' | 'hybrid';
  /** Hybrid: default DEFAULT_HYBRID.mmrLambda. Vector: unset means no MMR. */
  mmrLambda?: number;
  fetchK?: number;
  fusion?: FusionMethod;
  /** Normalized fusion: [bm25, vector]. */
  weights?: [number, number];
  filters?: SearchFilters;
}

export interface SemanticSearch {
  readonly modelId: string;
  readonly spaceId: number;
  search(req: SemanticSearchRequest): Promise<SearchHit[]>;
  close(): Promise<void>;
}

export interface SemanticSearchOptions {
  /** Model roots, usually modelSearchDirs(...). */
  dirs: readonly string[];
  /** Embed queries in the calling thread (CLI, scripts, benchmarks); the app leaves this off and uses the worker. */
  inProcess?: boolean;
  /** The worker's entry (the desktop bundle emits its own) or a spawner; ignored with `inProcess`. */
  worker?: WorkerDeps;
  index?: VectorIndexOptions;
}

export type OpenSemanticSearch = { ok: true; engine: SemanticSearch } | { ok: false; reason: string };

interface Opened {
  space: VectorSpace;
  embedder: Embedder;
  index: VectorIndex;
}

async function open(db: Database, options: SemanticSearchOptions): Promise<Opened | { reason: string }> {
  const q = await openQueryModel(db, options.dirs, { inProcess: options.inProcess, worker: options.worker });
  if (!q.ok) return { reason: q.reason };
  return { space: q.space, embedder: q.embedder, index: openVectorIndex(db, q.space.id, options.index) };
}

export async function openSemanticSearch(db: Database, options: SemanticSearchOptions): Promise<OpenSemanticSearch> {
  const first = await open(db, options);
  if ('reason' in first) return { ok: false, reason: first.reason };
  let current: Opened = first;
  let closed = false;

  async function ensureCurrent(): Promise<Opened> {
    if (closed) throw new Error('semantic search is closed');
    if (activeSpace(db)?.id === current.space.id) return current;
    const next = await open(db, options);
    if ('reason' in next) throw new Error(next.reason);
    await current.embedder.close();
    current = next;
    return current;
  }

  return {
    ok: true,
    engine: {
      get modelId() {
        return current.space.modelId;
      },
      get spaceId() {
        return current.space.id;
      },
      async search(req) {
        const { index, embedder } = await ensureCurrent();
        const embedQuery = (t: string) => embedder.embedQuery(t);
        const retriever =
          req.mode === 'vector'
            ? createVectorRetriever(db, { index, embedQuery, mmrLambda: req.mmrLambda, fetchK: req.fetchK })
            : createHybridRetriever(db, { index, embedQuery, mmrLambda: req.mmrLambda, fetchK: req.fetchK, fusion: req.fusion, weights: req.weights });
        return retriever.search({ text: req.text, k: req.k, filters: req.filters });
      },
      async close() {
        if (closed) return;
        closed = true;
        await current.embedder.close();
      },
    },
  };
}
