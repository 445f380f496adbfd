import type { Database, Statement } from 'better-sqlite3';
import type { SearchHit } from '../../../shared/types.ts';
import type { ScoredChunk, VectorIndex } from '../vectors/vector-index.ts';
import { createBm25Retriever } from './bm25.ts';
import { DEFAULT_RRF_K, normalizedScoreFusion, reciprocalRankFusion, type FusionMethod } from './fusion.ts';
import { loadHits, loadHitsStatement } from './hits.ts';
import { mmrSelect } from './mmr.ts';
import type { RetrievalQuery, Retriever } from './retriever.ts';
import { DEFAULT_FETCH_K, type EmbedQuery } from './vector.ts';

export interface HybridRetrieverOptions {
  index: VectorIndex;
  embedQuery: EmbedQuery;
  bm25?: Retriever;
  fusion?: FusionMethod;
  rrfK?: number;
  /** Normalized fusion only: [bm25, vector] weights. */
  weights?: [number, number];
  /** 1 keeps the fused order; lower trades relevance for diversity. */
  mmrLambda?: number;
  /** Candidates each retriever contributes (at least k). */
  fetchK?: number;
}

/**
 * Hybrid defaults, chosen on SciFact's 809 train queries with the real default model (docs/semantic-search.md):
 * a convex combination of min-max normalized scores beat RRF at every k tried (0.733 against at most 0.719 nDCG@10);
 * equal weights sit on the plateau (bm25 weight 0.5-0.6 within 0.003) and assume nothing about a corpus; and no
 * MMR, since every λ tried (0.7-0.95) cost nDCG@10. With the vector fill (withVectorScores) weight 0.4 is 0.004
 * better on train nDCG@10 but lower on Recall@100; 0.5 is kept for a corpus where the vector arm is the weaker one.
 */
export const DEFAULT_HYBRID: { fusion: FusionMethod; weights: [number, number]; mmrLambda: number } = {
  fusion: 'normalized',
  weights: [0.5, 0.5],
  mmrLambda: 1,
};

/**
 * The vector arm's shortlist factor at most (the index's default is 10). BM25's candidates get exact similarities anyway
 * (withVectorScores), so the arm's deep tail need not be exact: on SciFact train at k 300, factors 4, 5 and 10 gave
 * the same nDCG@10 and Recall@100, and 5 halves the KNN's rescoring (~4.2 to ~1.9 ms at n 300 on 9k chunks).
 */
const HYBRID_SHORTLIST_FACTOR = 5;

/** BM25 and vector candidates, fused (DEFAULT_HYBRID unless told), then optionally MMR with chunk vectors. */
export function createHybridRetriever(db: Database, options: HybridRetrieverOptions): Retriever {
  const { index, embedQuery } = options;
  const bm25 = options.bm25 ?? createBm25Retriever(db);
  const fusion = options.fusion ?? DEFAULT_HYBRID.fusion;
  const weights = options.weights ?? (fusion === 'normalized' ? DEFAULT_HYBRID.weights : undefined);
  const lambda = options.mmrLambda ?? DEFAULT_HYBRID.mmrLambda;
  const fetchK = options.fetchK ?? DEFAULT_FETCH_K;
  if (!(lambda >= 0 && lambda <= 1)) throw new Error(`mmrLambda must be in [0, 1], got ${lambda}`);
  if (!Number.isInteger(fetchK) || fetchK < 1) throw new Error(`fetchK must be a positive integer, got ${fetchK}`);
  const load = loadHitsStatement(db);
  return {
    mode: 'hybrid',
    params: {
      fusion: fusion === 'rrf' ? { method: 'rrf', k: options.rrfK ?? DEFAULT_RRF_K } : { method: 'normalized', ...(weights ? { weights } : {}) },
      mmr: lambda < 1 ? { lambda, fetch_k: fetchK, similarity: 'vector' } : null,
    },
    async search(query: RetrievalQuery): Promise<SearchHit[]> {
      if (query.k <= 0 || query.text.trim() === '') return [];
      const n = Math.max(query.k, fetchK);
      // The query goes to the embedding worker first, so BM25 runs on this thread while the worker infers.
      const embedding = embedQuery(query.text);
      const [keyword, q] = await Promise.all([bm25.search({ text: query.text, k: n, filters: query.filters }), embedding]);
      const semantic = index.knn(q, n, { filters: query.filters, ...(fusion === 'normalized' ? { maxShortlistFactor: HYBRID_SHORTLIST_FACTOR } : {}) });
      const vectorList = fusion === 'normalized' ? withVectorScores(index, q, semantic, keyword) : semantic;
      const lists = [keyword.map((h) => ({ chunkId: h.chunkId, score: h.score })), vectorList];
      const fused = fusion === 'rrf' ? reciprocalRankFusion(lists, options.rrfK ?? DEFAULT_RRF_K) : normalizedScoreFusion(lists, weights);
      // Without MMR the fused order is the answer; loading n vectors for it would only cost time.
      if (lambda >= 1) return hitsFrom(load, fused.slice(0, query.k), keyword);
      const pool = fused.slice(0, n);
      const vectors = index.vectors(pool.map((c) => c.chunkId));
      const picks = mmrSelect(pool.map((c) => ({ chunkId: c.chunkId, relevance: c.score })), vectors, query.k, lambda);
      return hitsFrom(load, picks, keyword);
    },
  };
}

/**
 * The vector arm's list with an exact similarity for every BM25 candidate it missed. Without it a chunk found by
 * BM25 alone gets the vector arm's floor (0 after min-max) however close it is to the query; with it, on SciFact's
 * train queries at k 300, Recall@100 went from 0.955 to 0.960 with nDCG@10 unchanged (docs/semantic-search.md).
 * A cosine for a few hundred known ids is one indexed read, far cheaper than a deeper KNN.
 */
function withVectorScores(index: VectorIndex, q: Float32Array, semantic: ScoredChunk[], keyword: readonly SearchHit[]): ScoredChunk[] {
  const have = new Set(semantic.map((c) => c.chunkId));
  const missed = keyword.filter((h) => !have.has(h.chunkId)).map((h) => h.chunkId);
  return missed.length === 0 ? semantic : [...semantic, ...index.score(q, missed)];
}

/** Hits in the given order and scores, reusing the rows BM25 already loaded and loading only the rest. */
function hitsFrom(load: Statement, scored: { chunkId: number; score: number }[], keyword: readonly SearchHit[]): SearchHit[] {
  const known = new Map(keyword.map((h) => [h.chunkId, h]));
  const loaded = new Map(loadHits(load, scored.filter((s) => !known.has(s.chunkId))).map((h) => [h.chunkId, h]));
  const out: SearchHit[] = [];
  for (const s of scored) {
    const row = known.get(s.chunkId);
    if (row) out.push({ ...row, score: s.score });
    else {
      const hit = loaded.get(s.chunkId);
      if (hit) out.push(hit);
    }
  }
  return out;
}
