export { createBm25Retriever, DEFAULT_BM25_WEIGHTS, type Bm25Weights } from './bm25.ts';
export { buildFtsQuery, queryTerms, STOPWORDS } from './fts-query.ts';
export { bestPerDocument, type Retriever, type RetrievalQuery, type RetrieverParams } from './retriever.ts';
export { filterSql, hasFilters, loadHits, HIT_COLUMNS, HIT_JOINS } from './hits.ts';
export { createVectorRetriever, DEFAULT_FETCH_K, type EmbedQuery, type VectorRetrieverOptions } from './vector.ts';
export { createHybridRetriever, DEFAULT_HYBRID, type HybridRetrieverOptions } from './hybrid.ts';
export { DEFAULT_RRF_K, normalizedScoreFusion, reciprocalRankFusion, type FusionMethod, type Ranked } from './fusion.ts';
export { DEFAULT_MMR_LAMBDA, mmrSelect, type MmrCandidate, type MmrPick } from './mmr.ts';
export { openSemanticSearch, type OpenSemanticSearch, type SemanticSearch, type SemanticSearchOptions, type SemanticSearchRequest } from './semantic-search.ts';
export { createTextMmrRetriever, textVectors, TEXT_VECTOR_DIMS, type TextMmrOptions } from './text-mmr.ts';
export {
  bm25Fallback, chooseRetriever, hybridBlocker, semanticHybridRetriever, SEARCH_FALLBACK_TEXT_MMR,
  type BestRetrieverDeps, type RetrievalChoice, type RetrievalOptions, type RetrievalOverrides, type RetrievalPurpose,
} from './best-retriever.ts';
