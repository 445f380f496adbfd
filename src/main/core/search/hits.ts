import type { Database, Statement } from 'better-sqlite3';
import type { SearchHit } from '../../../shared/types.ts';

/**
 * What a hit cites: the path relative to its root, with the root's name first when several roots are indexed (a file
 * root is cited by its name). The count is an uncorrelated subquery, evaluated once per statement.
 */
/** Roots that hold at least one source: an emptied or never-filled root does not make citations longer. */
export const ROOTS_IN_USE_SQL = `(SELECT count(*) FROM roots r2 WHERE EXISTS (SELECT 1 FROM sources s2 WHERE s2.root_id = r2.id))`;

export const DISPLAY_PATH_SQL = `CASE
    WHEN s.rel_path IS NULL OR rt.id IS NULL THEN s.path
    WHEN ${ROOTS_IN_USE_SQL} > 1 THEN (CASE WHEN rt.kind = 'file' THEN rt.name ELSE rt.name || '/' || s.rel_path END)
    ELSE s.rel_path END`;

/** The columns every retriever returns for a chunk, joined once so provenance is always complete. */
export const HIT_COLUMNS = `
  c.id AS chunkId, c.document_id AS documentId, d.external_id AS externalId, s.path AS path, d.title AS title,
  c.anchor AS anchor, c.heading_path AS headingPath, c.line_start AS lineStart, c.line_end AS lineEnd, c.text AS text,
  s.root_id AS rootId, s.rel_path AS relPath, s.content_hash AS contentHash,
  ${DISPLAY_PATH_SQL} AS displayPath`;

export const HIT_JOINS = `JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id LEFT JOIN roots rt ON rt.id = s.root_id`;

export { filterSql, hasFilters, type FilterSql } from '../store/filter-sql.ts';

/** The statement that loads hit rows for a JSON array of chunk ids; prepare it once where searches repeat. */
export const loadHitsStatement = (db: Database): Statement => db.prepare(`SELECT ${HIT_COLUMNS} FROM chunks c ${HIT_JOINS} WHERE c.id IN (SELECT value FROM json_each(?))`);

/** Loads hits for chunk ids in the given order, attaching scores. */
export function loadHits(db: Database | Statement, scored: { chunkId: number; score: number }[]): SearchHit[] {
  if (scored.length === 0) return [];
  const statement = 'prepare' in db ? loadHitsStatement(db) : db;
  const rows = statement.all(JSON.stringify(scored.map((s) => s.chunkId))) as Omit<SearchHit, 'score'>[];
  const byId = new Map(rows.map((r) => [r.chunkId, r]));
  const out: SearchHit[] = [];
  for (const s of scored) {
    const row = byId.get(s.chunkId);
    if (row) out.push({ ...row, score: s.score });
  }
  return out;
}
