export { createBm25Retriever, DEFAULT_BM25_WEIGHTS, type Bm25Weights } from './bm25.ts';
export { buildFtsQuery, queryTerms, STOPWORDS } from './fts-query.ts';
export { bestPerDocument, type Retriever, type RetrievalQuery } from './retriever.ts';
export { filterSql, hasFilters, loadHits, HIT_COLUMNS, HIT_JOINS } from './hits.ts';
