import type { Database } from 'better-sqlite3';
import type {
  DecisionRecord,
  IssueRecord,
  IssueSeverity,
  LearningRecord,
  MemoryQuery,
  MemoryRecord,
  MemorySearchHit,
  RelevanceBreakdown,
  StateRecord,
} from '../../../shared/memory.ts';
import { ISSUE_SEVERITIES, MEMORY_TYPES } from '../../../shared/memory.ts';
import { buildFtsQuery } from '../search/fts-query.ts';
import { DAY_MS, MEMORY_COLUMNS, nowOf, rowToRecord, type MemoryDeps, type MemoryRow } from './records.ts';
import { ValidationError, normalizeTimestamp } from './validate.ts';

/** The seed's weights (Memory Search and Retrieval → Search Ranking Algorithm). */
export const RELEVANCE_WEIGHTS = { title: 0.15, content: 0.25, importance: 0.25, recency: 0.2, access: 0.15 } as const;

export interface RelevanceInput {
  /** Text similarity of the query to the title / content, each 0..1. */
  titleSimilarity: number;
  contentSimilarity: number;
  importance: number;
  timestamp: string;
  accessCount: number;
}

/** Weighted parts of the seed's relevance score; their sum is the score (0..1). */
export function relevanceBreakdown(m: RelevanceInput, now: Date): RelevanceBreakdown {
  // Whole days, as the seed's `(now - timestamp).days`; a memory dated in the future counts as today's.
  const daysOld = Math.max(0, Math.floor((now.getTime() - Date.parse(m.timestamp)) / DAY_MS));
  return {
    title: m.titleSimilarity * RELEVANCE_WEIGHTS.title,
    content: m.contentSimilarity * RELEVANCE_WEIGHTS.content,
    importance: (m.importance / 10) * RELEVANCE_WEIGHTS.importance,
    recency: (1 / (1 + daysOld / 30)) * RELEVANCE_WEIGHTS.recency,
    access: Math.min(m.accessCount / 10, 1) * RELEVANCE_WEIGHTS.access,
  };
}

export const sumBreakdown = (b: RelevanceBreakdown): number => b.title + b.content + b.importance + b.recency + b.access;

const SEVERITY_RANK = `CASE m.severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END`;
const MAX_LIMIT = 10_000;

/**
 * The seed's search_memories: full-text query (FTS5 BM25 over title and content separately, each normalized to
 * 0..1 by the best score among the filtered candidates), filters, and relevance or field sorts.
 * Searching does not count as reading: use getMemory (or rehydrate) to record access.
 */
export function searchMemories(db: Database, q: MemoryQuery = {}, deps: MemoryDeps = {}): MemorySearchHit[] {
  const now = nowOf(deps);
  const limit = q.limit ?? 10;
  const issues: { field: string; message: string }[] = [];
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) issues.push({ field: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
  for (const t of q.types ?? []) if (!MEMORY_TYPES.includes(t)) issues.push({ field: 'types', message: `unknown memory type ${JSON.stringify(t)}` });
  for (const s of q.severities ?? []) if (!ISSUE_SEVERITIES.includes(s)) issues.push({ field: 'severities', message: `unknown severity ${JSON.stringify(s)}` });
  if (q.importanceGte !== undefined && !(Number.isFinite(q.importanceGte) && q.importanceGte >= 1 && q.importanceGte <= 10)) {
    issues.push({ field: 'importanceGte', message: 'must be a number from 1 to 10' });
  }
  const after = q.after === undefined ? undefined : normalizeTimestamp(q.after);
  const before = q.before === undefined ? undefined : normalizeTimestamp(q.before);
  if (after === null) issues.push({ field: 'after', message: `must be an ISO 8601 timestamp, got ${JSON.stringify(q.after)}` });
  if (before === null) issues.push({ field: 'before', message: `must be an ISO 8601 timestamp, got ${JSON.stringify(q.before)}` });
  if (issues.length > 0) throw new ValidationError(issues, 'memory query');

  const where: string[] = [];
  const params: unknown[] = [];
  const archived = q.archived ?? false;
  if (archived !== 'any') where.push(`m.is_archived = ${archived ? 1 : 0}`);
  if (q.projectId !== undefined) (where.push('m.project_id = ?'), params.push(q.projectId));
  if (q.types && q.types.length > 0) (where.push(`m.type IN (${q.types.map(() => '?').join(', ')})`), params.push(...q.types));
  if (q.severities && q.severities.length > 0) (where.push(`m.severity IN (${q.severities.map(() => '?').join(', ')})`), params.push(...q.severities));
  if (q.importanceGte !== undefined) (where.push('m.importance >= ?'), params.push(q.importanceGte));
  if (after) (where.push('m.timestamp >= ?'), params.push(after));
  if (before) (where.push('m.timestamp <= ?'), params.push(before));
  if (q.tags && q.tags.length > 0) {
    where.push(`EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_seq = m.seq AND t.tag IN (${q.tags.map(() => '?').join(', ')}))`);
    params.push(...q.tags);
  }
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';

  // Score on a few light columns first; only the rows that make the cut are loaded and parsed in full.
  type Row = { seq: number; t: number; b: number; sev: number; importance: number; timestamp: string; access_count: number };
  const LIGHT = `m.seq, m.importance, m.timestamp, m.access_count, ${SEVERITY_RANK} AS sev`;
  let rows: Row[];
  const match = q.query !== undefined && q.query.trim() !== '' ? buildFtsQuery(q.query) : undefined;
  if (match === null) return []; // a query with no searchable term matches nothing
  if (match !== undefined) {
    // bm25() is "lower is better" and weight 0 mutes a column, giving per-column scores from one MATCH.
    rows = db
      .prepare(
        `SELECT ${LIGHT}, -f.t AS t, -f.b AS b
         FROM (SELECT rowid AS seq, bm25(memories_fts, 1.0, 0.0) AS t, bm25(memories_fts, 0.0, 1.0) AS b
               FROM memories_fts WHERE memories_fts MATCH ?) f
         JOIN memories m ON m.seq = f.seq ${whereSql}`,
      )
      .all(match, ...params) as Row[];
  } else {
    rows = db.prepare(`SELECT ${LIGHT}, 0 AS t, 0 AS b FROM memories m ${whereSql}`).all(...params) as Row[];
  }
  let maxT = 0;
  let maxB = 0;
  for (const r of rows) (maxT = Math.max(maxT, r.t)), (maxB = Math.max(maxB, r.b));
  const scored = rows.map((r) => {
    const breakdown = relevanceBreakdown(
      {
        titleSimilarity: maxT > 0 ? Math.max(0, r.t) / maxT : 0,
        contentSimilarity: maxB > 0 ? Math.max(0, r.b) / maxB : 0,
        importance: r.importance,
        timestamp: r.timestamp,
        accessCount: r.access_count,
      },
      now,
    );
    return { row: r, score: sumBreakdown(breakdown), breakdown };
  });
  const byTime = (a: Row, b: Row) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : b.seq - a.seq);
  const sort = q.sort ?? 'relevance';
  scored.sort((x, y) => {
    const a = x.row;
    const b = y.row;
    switch (sort) {
      case 'timestamp':
        return byTime(a, b);
      case 'importance':
        return b.importance - a.importance || byTime(a, b);
      case 'access':
        return b.access_count - a.access_count || byTime(a, b);
      case 'severity':
        return a.sev - b.sev || byTime(a, b);
      default:
        return y.score - x.score || byTime(a, b);
    }
  });
  const full = db.prepare(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.seq = ?`);
  return scored.slice(0, limit).map((h) => ({ memory: rowToRecord(full.get(h.row.seq) as MemoryRow), score: h.score, breakdown: h.breakdown }));
}

// ── Typed views the packet assembler and the rehydration bundle use ───────────────────────────────────────────────

export interface ScopeOptions extends MemoryDeps {
  projectId?: string;
}

/** The most recent active state memory (the seed's "active state"). */
export function getLatestState(db: Database, options: ScopeOptions = {}): StateRecord | null {
  const params: unknown[] = [];
  let where = "m.type = 'state' AND m.is_archived = 0";
  if (options.projectId !== undefined) (where += ' AND m.project_id = ?'), params.push(options.projectId);
  const row = db.prepare(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE ${where} ORDER BY m.timestamp DESC, m.seq DESC LIMIT 1`).get(...params) as
    | MemoryRow
    | undefined;
  return row ? rowToRecord<'state'>(row) : null;
}

export interface DecisionListOptions extends ScopeOptions {
  query?: string;
  tags?: string[];
  importanceGte?: number;
  after?: string;
  before?: string;
  archived?: boolean | 'any';
  sort?: MemoryQuery['sort'];
  limit?: number;
}

/** Decisions, filtered; by default active ones, most important first, then newest. */
export function listDecisions(db: Database, options: DecisionListOptions = {}): DecisionRecord[] {
  const { query, tags, importanceGte, after, before, archived, sort, limit, projectId } = options;
  return searchMemories(
    db,
    { types: ['decision'], query, tags, importanceGte, after, before, archived, projectId, sort: sort ?? (query ? 'relevance' : 'importance'), limit: limit ?? 1000 },
    options,
  ).map((h) => h.memory as DecisionRecord);
}

/** The seed's rehydration step 2: active decisions with importance ≥ 7 from the last 30 days, top 10. */
export function recentDecisions(db: Database, options: ScopeOptions & { days?: number; importanceGte?: number; limit?: number } = {}): DecisionRecord[] {
  const now = nowOf(options);
  return listDecisions(db, {
    ...options,
    importanceGte: options.importanceGte ?? 7,
    after: new Date(now.getTime() - (options.days ?? 30) * DAY_MS).toISOString(),
    sort: 'importance',
    limit: options.limit ?? 10,
  });
}

/** Unresolved issues, most severe first and, within a severity, oldest first (the seed's step 3 order). */
export function openIssues(db: Database, options: ScopeOptions & { severities?: IssueSeverity[]; limit?: number } = {}): IssueRecord[] {
  const where = ["m.type = 'issue'", 'm.is_archived = 0', "m.issue_status <> 'resolved'"];
  const params: unknown[] = [];
  if (options.projectId !== undefined) (where.push('m.project_id = ?'), params.push(options.projectId));
  if (options.severities && options.severities.length > 0) {
    where.push(`m.severity IN (${options.severities.map(() => '?').join(', ')})`);
    params.push(...options.severities);
  }
  const rows = db
    .prepare(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE ${where.join(' AND ')} ORDER BY ${SEVERITY_RANK}, m.timestamp ASC, m.seq ASC LIMIT ?`)
    .all(...params, options.limit ?? 1000) as MemoryRow[];
  return rows.map((r) => rowToRecord<'issue'>(r));
}

/** Learnings ranked by the seed's relevance formula for a query (all active learnings when the query is empty). */
export function relevantLearnings(db: Database, query: string, options: ScopeOptions & { limit?: number } = {}): (MemorySearchHit & { memory: LearningRecord })[] {
  return searchMemories(db, { query, types: ['learning'], projectId: options.projectId, limit: options.limit ?? 5 }, options) as (MemorySearchHit & {
    memory: LearningRecord;
  })[];
}

/** Any memories by id or decision id, in the order given, skipping unknown ones. */
export function memoriesByIds(db: Database, ids: readonly string[]): MemoryRecord[] {
  const stmt = db.prepare(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.id = ? OR m.decision_id = ?`);
  return ids.flatMap((id) => {
    const r = stmt.get(id, id) as MemoryRow | undefined;
    return r ? [rowToRecord(r)] : [];
  });
}
