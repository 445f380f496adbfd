import Database from 'better-sqlite3';

/**
 * The classic retrieval baseline of the SWE-bench paper: BM25 over whole files (each file's path and text one
 * document), the whole issue as the query. SQLite's FTS5 does the ranking (its bm25(), k1 1.2, b 0.75) with a
 * Porter-stemmed tokenizer, as Lucene's English analyzer the paper used stems; an in-memory table per tree.
 */
export interface WholeFileBm25 {
  /** Up to k paths, best first (ties by path). */
  rank(query: string, k: number): string[];
  close(): void;
}

/** The distinct words of a text as an FTS5 OR query (each quoted, so no word is read as an operator). */
export function orQuery(text: string, maxTerms = 2000): string {
  const words = new Set<string>();
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    if (words.size >= maxTerms) break;
    words.add(m[0]);
  }
  return [...words].map((w) => `"${w}"`).join(' OR ');
}

export function createWholeFileBm25(files: Iterable<{ path: string; text: string }>): WholeFileBm25 {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE f USING fts5(path UNINDEXED, body, tokenize = 'porter unicode61 remove_diacritics 2')`);
  const insert = db.prepare('INSERT INTO f (path, body) VALUES (?, ?)');
  db.transaction(() => {
    for (const f of files) insert.run(f.path, `${f.path}\n${f.text}`);
  })();
  const select = db.prepare('SELECT path, bm25(f) AS score FROM f WHERE f MATCH ? ORDER BY score, path LIMIT ?');
  return {
    rank(query, k) {
      const match = orQuery(query);
      if (match === '') return [];
      return (select.all(match, k) as { path: string }[]).map((r) => r.path);
    },
    close: () => db.close(),
  };
}
