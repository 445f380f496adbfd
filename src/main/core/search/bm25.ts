import type { Database } from 'better-sqlite3';
import type { SearchHit } from '../../../shared/types.ts';
import { buildFtsQuery } from './fts-query.ts';
import { HIT_COLUMNS, HIT_JOINS, filterSql } from './hits.ts';
import type { RetrievalQuery, Retriever } from './retriever.ts';

/**
 * FTS5 column weights (title, headings, body): a word in a title or heading says more about a chunk than one in
 * its body. 1.25 was the best of {1, 1.25, 1.5, 2} on SciFact's *train* queries (the test split is only reported).
 */
export interface Bm25Weights {
  title: number;
  headings: number;
  body: number;
}

export const DEFAULT_BM25_WEIGHTS: Bm25Weights = { title: 1.25, headings: 1.25, body: 1 };

export function createBm25Retriever(db: Database, weights: Bm25Weights = DEFAULT_BM25_WEIGHTS): Retriever {
  const w = [weights.title, weights.headings, weights.body];
  // FTS5's bm25() is "lower is better"; scores are negated so every retriever returns "higher is better".
  const plain = db.prepare(
    `SELECT ${HIT_COLUMNS}, -r.rank AS score
     FROM (SELECT rowid, bm25(chunks_fts, ?, ?, ?) AS rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?) r
     JOIN chunks c ON c.id = r.rowid ${HIT_JOINS}
     ORDER BY r.rank, c.id`,
  );
  return {
    mode: 'bm25',
    async search(query: RetrievalQuery): Promise<SearchHit[]> {
      return searchBm25Sync(query);
    },
  };

  function searchBm25Sync(query: RetrievalQuery): SearchHit[] {
    const match = buildFtsQuery(query.text);
    if (match === null || query.k <= 0) return [];
    const filter = filterSql(query.filters);
    if (filter.params.length === 0) return plain.all(...w, match, query.k) as SearchHit[];
    return db
      .prepare(
        `SELECT ${HIT_COLUMNS}, -bm25(chunks_fts, ?, ?, ?) AS score
         FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid ${HIT_JOINS}
         WHERE chunks_fts MATCH ? AND ${filter.where}
         ORDER BY score DESC, c.id LIMIT ?`,
      )
      .all(...w, match, ...filter.params, query.k) as SearchHit[];
  }
}
