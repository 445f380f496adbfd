import type { Migration } from '../migrate.ts';

// Per-document fields for code-aware ranking: the path relative to its root and the symbol names the code chunker
// found, each also split into words (`contentType.js` → content type). Contentless like chunks_fts; a trigger
// keeps it exact when documents go. Rows are written by ingest, so an existing store gets them on its next rescan
// (the chunker version moved to 2 with this migration, which re-chunks every file anyway).
export const docFieldsMigration: Migration = {
  version: 70,
  name: 'search: document path and symbol fields (doc_fields_fts)',
  up: `
    CREATE VIRTUAL TABLE doc_fields_fts USING fts5(
      path, symbols,
      content = '',
      contentless_delete = 1,
      tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER documents_doc_fields_delete AFTER DELETE ON documents BEGIN
      DELETE FROM doc_fields_fts WHERE rowid = old.id;
    END;
  `,
};
