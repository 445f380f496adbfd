import type { Migration } from '../migrate.ts';

// Chunks are indexed by a contentless FTS5 table (text lives once, in `chunks`); contentless_delete lets a
// trigger remove rows by rowid so cascading deletes from sources keep the index exact.
export const coreMigration: Migration = {
  version: 1,
  name: 'core: sources, documents, chunks, fts, ingest log',
  up: `
    CREATE TABLE meta (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL
    );

    CREATE TABLE sources (
      id INTEGER PRIMARY KEY,
      path TEXT NOT NULL UNIQUE,
      root TEXT NOT NULL,
      content_hash TEXT,
      size INTEGER NOT NULL DEFAULT 0,
      mtime_ms INTEGER NOT NULL DEFAULT 0,
      type TEXT NOT NULL,
      language TEXT,
      status TEXT NOT NULL CHECK (status IN ('indexed', 'skipped', 'failed')),
      error TEXT,
      chunker_version INTEGER,
      indexed_at TEXT NOT NULL
    );
    CREATE INDEX sources_root ON sources(root);

    CREATE TABLE documents (
      id INTEGER PRIMARY KEY,
      source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
      ordinal INTEGER NOT NULL,
      external_id TEXT,
      title TEXT NOT NULL DEFAULT '',
      UNIQUE (source_id, ordinal)
    );
    CREATE INDEX documents_external_id ON documents(external_id);

    CREATE TABLE chunks (
      id INTEGER PRIMARY KEY,
      document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
      ordinal INTEGER NOT NULL,
      text TEXT NOT NULL,
      heading_path TEXT NOT NULL DEFAULT '',
      anchor TEXT NOT NULL DEFAULT '',
      line_start INTEGER NOT NULL,
      line_end INTEGER NOT NULL,
      token_count INTEGER NOT NULL,
      chunker_version INTEGER NOT NULL,
      UNIQUE (document_id, ordinal)
    );

    CREATE VIRTUAL TABLE chunks_fts USING fts5(
      title, headings, body,
      content = '',
      contentless_delete = 1,
      tokenize = 'porter unicode61 remove_diacritics 2'
    );

    CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
      INSERT INTO chunks_fts (rowid, title, headings, body)
      VALUES (new.id, (SELECT title FROM documents WHERE id = new.document_id), new.heading_path, new.text);
    END;
    CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
      DELETE FROM chunks_fts WHERE rowid = old.id;
    END;

    CREATE TABLE ingest_log (
      id INTEGER PRIMARY KEY,
      started_at TEXT NOT NULL,
      finished_at TEXT,
      roots TEXT NOT NULL,
      added INTEGER NOT NULL DEFAULT 0,
      updated INTEGER NOT NULL DEFAULT 0,
      unchanged INTEGER NOT NULL DEFAULT 0,
      removed INTEGER NOT NULL DEFAULT 0,
      failed INTEGER NOT NULL DEFAULT 0,
      skipped INTEGER NOT NULL DEFAULT 0,
      duration_ms INTEGER,
      report TEXT
    );
  `,
};
