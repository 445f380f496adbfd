import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';

/**
 * The floor for ingest: the same chunk texts (title, headings, body) inserted into a bare FTS5 table with the
 * store's tokenizer and pragmas, in one transaction, into a fresh file. Returns seconds.
 */
export function rawFts5InsertSeconds(store: Db, dbPath: string): { seconds: number; rows: number } {
  const rows = store
    .prepare('SELECT d.title AS title, c.heading_path AS headings, c.text AS body FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY c.id')
    .all() as { title: string; headings: string; body: string }[];
  const raw = new Database(dbPath);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.exec(`CREATE VIRTUAL TABLE f USING fts5(title, headings, body, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2')`);
  const insert = raw.prepare('INSERT INTO f (title, headings, body) VALUES (?, ?, ?)');
  const t0 = performance.now();
  raw.transaction(() => {
    for (const r of rows) insert.run(r.title, r.headings, r.body);
  })();
  const seconds = (performance.now() - t0) / 1000;
  raw.close();
  return { seconds, rows: rows.length };
}
