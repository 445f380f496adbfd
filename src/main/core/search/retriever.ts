import type { RetrievalRanking, SearchFilters, SearchHit, SearchMode } from '../../../shared/types.ts';
import type { TaskTerms } from './task-terms.ts';

export type RetrieverParams = RetrievalRanking;

export interface RetrievalQuery {
  text: string;
  k: number;
  filters?: SearchFilters;
  /** What retrieval reads from `text` (task-terms.ts), when the caller has it already; else computed from text. */
  task?: TaskTerms;
}

/** One small interface, several implementations (bm25, vector, hybrid), one shared test suite. */
export interface Retriever {
  readonly mode: SearchMode;
  /** Fusion and MMR settings, for the packet manifest; absent means plain ranking by the mode's own score. */
  readonly params?: RetrieverParams;
  search(query: RetrievalQuery): Promise<SearchHit[]>;
}

/** Collapses chunk hits to one per document (its best chunk), keeping rank order; used for document-level runs. */
export function bestPerDocument(hits: SearchHit[], k: number): SearchHit[] {
  const seen = new Set<number>();
  const out: SearchHit[] = [];
  for (const h of hits) {
    if (seen.has(h.documentId)) continue;
    seen.add(h.documentId);
    out.push(h);
    if (out.length === k) break;
  }
  return out;
}
