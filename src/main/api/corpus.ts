import { gateLabel } from '../core/redact/index.ts';
import { gateFields } from '../core/search/gated-hit.ts';
import type { Database } from 'better-sqlite3';
import type { SourceRecord } from '../../shared/types.ts';
import type { ChunkContext, ChunkView } from '../../shared/api/index.ts';
import { ApiFailure } from './failure.ts';

/** Read-only views over the core tables that the UI needs and the engine has no function for. */
export function listSources(db: Database): SourceRecord[] {
  return db
    .prepare(
      `SELECT s.id, s.path, s.root, s.root_id AS rootId, s.rel_path AS relPath, s.type, s.language, s.status, s.error, s.size, s.mtime_ms AS mtimeMs,
              s.content_hash AS contentHash, s.indexed_at AS indexedAt,
              (SELECT count(*) FROM documents d WHERE d.source_id = s.id) AS documents,
              (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.source_id = s.id) AS chunks
       FROM sources s ORDER BY s.path`,
    )
    .all() as SourceRecord[];
}

/** A chunk with its neighbours in the same document, for "open in context". */
export function chunkContext(db: Database, chunkId: number, radius = 3): ChunkContext {
  const focus = db
    .prepare(
      `SELECT c.id, c.ordinal, c.document_id AS documentId, d.title, s.path
       FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id WHERE c.id = ?`,
    )
    .get(chunkId) as { id: number; ordinal: number; documentId: number; title: string; path: string } | undefined;
  if (!focus) throw new ApiFailure('not_found', `chunk ${chunkId} not found (the file may have been re-indexed)`);
  const chunks = db
    .prepare(
      `SELECT id AS chunkId, ordinal, heading_path AS headingPath, anchor, line_start AS lineStart, line_end AS lineEnd, text
       FROM chunks WHERE document_id = ? AND ordinal BETWEEN ? AND ? ORDER BY ordinal`,
    )
    .all(focus.documentId, focus.ordinal - radius, focus.ordinal + radius) as ChunkView[];
  return withGated({ path: focus.path, title: focus.title, documentId: focus.documentId, focus: chunkId, chunks });
}

/** The gated forms go with the raw ones: the workbench shows the gated text unless the user reveals it. */
function withGated(context: ChunkContext): ChunkContext {
  return {
    ...context,
    gatedPath: gateLabel(context.path),
    gatedTitle: context.title ? gateLabel(context.title) : context.title,
    chunks: context.chunks.map((c) => ({ ...c, gated: gateFields({ ...c, path: context.path }) })),
  };
}

/** Every chunk of one indexed file, in order (an L4 entry opened from the hierarchy); the first is the focus. */
export function sourceChunks(db: Database, path: string, limit = 2000): ChunkContext {
  const chunks = db
    .prepare(
      `SELECT c.id AS chunkId, c.ordinal, c.heading_path AS headingPath, c.anchor, c.line_start AS lineStart, c.line_end AS lineEnd, c.text,
              d.id AS documentId, d.title
       FROM sources s JOIN documents d ON d.source_id = s.id JOIN chunks c ON c.document_id = d.id
       WHERE s.path = ? ORDER BY d.ordinal, c.ordinal LIMIT ?`,
    )
    .all(path, limit) as (ChunkView & { documentId: number; title: string })[];
  if (chunks.length === 0) throw new ApiFailure('not_found', `${path}: not indexed (or it has no chunks)`);
  const first = chunks[0]!;
  return withGated({ path, title: first.title, documentId: first.documentId, focus: first.chunkId, chunks: chunks.map(({ documentId: _d, title: _t, ...c }) => c) });
}
