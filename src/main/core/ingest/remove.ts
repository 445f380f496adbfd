// Removing or re-indexing one source on request (the workbench's Library actions).
import type { Database } from 'better-sqlite3';

export interface SourceRef {
  id: number;
  path: string;
  root: string;
  chunks: number;
}

export function getSourceRef(db: Database, id: number): SourceRef | null {
  return (
    (db
      .prepare(
        `SELECT s.id, s.path, s.root,
                (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.source_id = s.id) AS chunks
         FROM sources s WHERE s.id = ?`,
      )
      .get(id) as SourceRef | undefined) ?? null
  );
}

/**
 * Deletes a source in one transaction: its documents and chunks go by foreign-key cascade, the FTS rows and vectors
 * by the chunk triggers (migrations 1 and 10), and its L4 entry with it (L4 is read from the sources table).
 */
export function removeSource(db: Database, id: number): SourceRef | null {
  return db.transaction(() => {
    const ref = getSourceRef(db, id);
    if (!ref) return null;
    db.prepare('DELETE FROM sources WHERE id = ?').run(id);
    return ref;
  })();
}

/** Forgets what made the source look unchanged, so the next ingest of its root reads, chunks and embeds it again. */
export function markForReindex(db: Database, id: number): SourceRef | null {
  const ref = getSourceRef(db, id);
  if (!ref) return null;
  db.prepare('UPDATE sources SET content_hash = NULL, mtime_ms = -1, chunker_version = NULL WHERE id = ?').run(id);
  return ref;
}
