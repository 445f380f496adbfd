import type { Database } from 'better-sqlite3';
import type { SearchHit } from '../../../shared/types.ts';
import type { VectorIndex } from '../vectors/vector-index.ts';
import { loadHits } from './hits.ts';
import { mmrSelect } from './mmr.ts';
import type { RetrievalQuery, Retriever } from './retriever.ts';

export type EmbedQuery = (text: string) => Promise<Float32Array>;

export interface VectorRetrieverOptions {
  index: VectorIndex;
  /** Must be the model of index.space (openQueryModel guarantees it). */
  embedQuery: EmbedQuery;
  /** When set, MMR re-ranks the fetchK nearest chunks; unset returns them by similarity. */
  mmrLambda?: number;
  fetchK?: number;
}

export const DEFAULT_FETCH_K = 50;

export function createVectorRetriever(db: Database, options: VectorRetrieverOptions): Retriever {
  const { index, embedQuery, mmrLambda } = options;
  const fetchK = options.fetchK ?? DEFAULT_FETCH_K;
  return {
    mode: 'vector',
    async search(query: RetrievalQuery): Promise<SearchHit[]> {
      if (query.k <= 0 || query.text.trim() === '') return [];
      const q = await embedQuery(query.text);
      if (mmrLambda === undefined) {
        return loadHits(db, index.knn(q, query.k, { filters: query.filters }));
      }
      const near = index.knn(q, Math.max(query.k, fetchK), { filters: query.filters });
      const vectors = index.vectors(near.map((h) => h.chunkId));
      const picks = mmrSelect(near.map((h) => ({ chunkId: h.chunkId, relevance: h.score })), vectors, query.k, mmrLambda);
      return loadHits(db, picks);
    },
  };
}
