import type { Database } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import type { AuditEntry, LifecycleActionKind, MemoryInput, MemoryRecord, MemoryType } from '../../../shared/memory.ts';
import { NotFoundError, ValidationError, validateMemoryInput, type NormalizedMemory } from './validate.ts';

/** Everything time- or id-dependent is injected, so tests run on a fixed clock and outputs are reproducible. */
export interface MemoryDeps {
  now?: () => Date;
  newId?: () => string;
  /** Who is acting, for the audit log. */
  actor?: string;
}

export const DAY_MS = 86_400_000;
export const nowOf = (deps: MemoryDeps | undefined): Date => (deps?.now ?? (() => new Date()))();

export interface MemoryRow {
  seq: number;
  id: string;
  type: MemoryType;
  timestamp: string;
  project_id: string;
  agent_id: string;
  title: string;
  content: string;
  body: string;
  tags: string;
  importance: number;
  expires_at: string | null;
  parent_memory_id: string | null;
  is_archived: 0 | 1;
  archived_at: string | null;
  restored_at: string | null;
  access_count: number;
  last_accessed: string | null;
  decision_id: string | null;
  supersedes: string | null;
  superseded_by: string | null;
  updated_at: string;
}

export const MEMORY_COLUMNS = `m.seq, m.id, m.type, m.timestamp, m.project_id, m.agent_id, m.title, m.content, m.body, m.tags,
  m.importance, m.expires_at, m.parent_memory_id, m.is_archived, m.archived_at, m.restored_at, m.access_count,
  m.last_accessed, m.decision_id, m.supersedes, m.superseded_by, m.updated_at`;

export function rowToRecord<T extends MemoryType = MemoryType>(row: MemoryRow): MemoryRecord<T> {
  return {
    memory_id: row.id,
    memory_type: row.type as T,
    timestamp: row.timestamp,
    project_id: row.project_id,
    agent_id: row.agent_id,
    title: row.title,
    content: JSON.parse(row.content),
    tags: JSON.parse(row.tags),
    importance: row.importance,
    expires_at: row.expires_at,
    parent_memory_id: row.parent_memory_id,
    is_archived: row.is_archived === 1,
    archived_at: row.archived_at,
    access_count: row.access_count,
    last_accessed: row.last_accessed,
    decision_id: row.decision_id,
    supersedes: row.supersedes,
    superseded_by: row.superseded_by,
    updated_at: row.updated_at,
  };
}

/** The text FTS5 indexes as "content": every string in the typed content, in field order. */
export function flattenContent(content: unknown): string {
  const parts: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') {
      if (v !== '') parts.push(v);
    } else if (typeof v === 'number') parts.push(String(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(content);
  return parts.join('\n');
}

export function findRow(db: Database, idOrDecisionId: string): MemoryRow | undefined {
  return db.prepare(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.id = ? OR m.decision_id = ?`).get(idOrDecisionId, idOrDecisionId) as
    | MemoryRow
    | undefined;
}

export function requireRow(db: Database, idOrDecisionId: string): MemoryRow {
  const row = findRow(db, idOrDecisionId);
  if (!row) throw new NotFoundError(`memory ${JSON.stringify(idOrDecisionId)} not found`);
  return row;
}

export interface GetOptions extends MemoryDeps {
  /** Reading counts as an access (access_count, last_accessed); pass false for previews. Default true. */
  touch?: boolean;
}

/** Looks a memory up by memory_id or decision id (DEC-…). */
export function getMemory(db: Database, idOrDecisionId: string, options: GetOptions = {}): MemoryRecord | null {
  const row = findRow(db, idOrDecisionId);
  if (!row) return null;
  if (options.touch === false) return rowToRecord(row);
  touchMemories(db, [row.id], nowOf(options));
  return rowToRecord(requireRow(db, row.id));
}

export function touchMemories(db: Database, ids: readonly string[], at: Date): void {
  const stmt = db.prepare('UPDATE memories SET access_count = access_count + 1, last_accessed = ? WHERE id = ?');
  const ts = at.toISOString();
  db.transaction(() => {
    for (const id of ids) stmt.run(ts, id);
  }).immediate();
}

export interface InsertExtras {
  decision_id?: string | null;
  supersedes?: string | null;
}

/** Inserts a validated memory; callers own the transaction. */
export function insertMemoryRow(db: Database, m: NormalizedMemory, extras: InsertExtras, deps: MemoryDeps): MemoryRecord {
  const now = nowOf(deps);
  if (m.parent_memory_id !== null && !findRow(db, m.parent_memory_id)) {
    throw new ValidationError([{ field: 'parent_memory_id', message: `memory ${JSON.stringify(m.parent_memory_id)} not found` }]);
  }
  const id = (deps.newId ?? randomUUID)();
  const ts = m.timestamp ?? now.toISOString();
  const info = db
    .prepare(
      `INSERT INTO memories (id, type, timestamp, project_id, agent_id, title, content, body, tags, importance, expires_at,
         parent_memory_id, decision_id, supersedes, updated_at)
       VALUES (@id, @type, @ts, @project, @agent, @title, @content, @body, @tags, @importance, @expires, @parent, @decision_id,
         @supersedes, @updated)`,
    )
    .run({
      id,
      type: m.memory_type,
      ts,
      project: m.project_id,
      agent: m.agent_id,
      title: m.title,
      content: JSON.stringify(m.content),
      body: flattenContent(m.content),
      tags: JSON.stringify(m.tags),
      importance: m.importance,
      expires: m.expires_at,
      parent: m.parent_memory_id,
      decision_id: extras.decision_id ?? null,
      supersedes: extras.supersedes ?? null,
      updated: now.toISOString(),
    });
  writeTags(db, Number(info.lastInsertRowid), m.tags);
  const record = rowToRecord(requireRow(db, id));
  writeAudit(db, { action: 'CREATED', record, reason: 'created', actor: deps.actor ?? m.agent_id, at: now });
  return record;
}

function writeTags(db: Database, seq: number, tags: readonly string[]): void {
  db.prepare('DELETE FROM memory_tags WHERE memory_seq = ?').run(seq);
  const ins = db.prepare('INSERT INTO memory_tags (memory_seq, tag) VALUES (?, ?)');
  for (const t of tags) ins.run(seq, t);
}

/** Creates any memory type. Decisions get a DEC id: use createDecision for those (this delegates to it). */
export function addMemory<T extends MemoryType>(db: Database, input: MemoryInput<T>, deps: MemoryDeps = {}): MemoryRecord<T> {
  const m = validateMemoryInput(input);
  if (m.memory_type === 'decision') {
    throw new Error('decisions need a decision id: use createDecision');
  }
  // IMMEDIATE: a deferred transaction that reads first gets SQLITE_BUSY at once when another writer committed in the
  // meantime (WAL never lets a stale snapshot write, and the busy handler is not consulted); immediate waits instead.
  return db.transaction(() => insertMemoryRow(db, m, {}, deps) as MemoryRecord<T>).immediate();
}

/** Replaces the user-editable fields of a memory (id, type, access and archive state are kept). */
export function updateMemory<T extends MemoryType>(db: Database, idOrDecisionId: string, input: MemoryInput<T>, deps: MemoryDeps = {}): MemoryRecord<T> {
  return db.transaction(() => {
    const row = requireRow(db, idOrDecisionId);
    if (input.memory_type !== row.type) throw new ValidationError([{ field: 'memory_type', message: `is ${row.type} and cannot change` }]);
    const m = validateMemoryInput(input);
    return replaceFields(db, row, m, deps) as MemoryRecord<T>;
  }).immediate();
}

/** Writes validated fields over a row, audits UPDATED, and returns the record; no-op (no audit) if nothing changed. */
export function replaceFields(db: Database, row: MemoryRow, m: NormalizedMemory, deps: MemoryDeps, audit?: { action: LifecycleActionKind; reason: string }): MemoryRecord {
  const now = nowOf(deps);
  const next = {
    title: m.title,
    content: JSON.stringify(m.content),
    tags: JSON.stringify(m.tags),
    importance: m.importance,
    project_id: m.project_id,
    agent_id: m.agent_id,
    timestamp: m.timestamp ?? row.timestamp,
    expires_at: m.expires_at,
    parent_memory_id: m.parent_memory_id,
  };
  const changed = (Object.keys(next) as (keyof typeof next)[]).filter((k) => next[k] !== row[k]);
  if (changed.length === 0) return rowToRecord(row);
  if (m.parent_memory_id !== null && m.parent_memory_id !== row.parent_memory_id) {
    if (m.parent_memory_id === row.id) throw new ValidationError([{ field: 'parent_memory_id', message: 'a memory cannot be its own parent' }]);
    if (!findRow(db, m.parent_memory_id)) throw new ValidationError([{ field: 'parent_memory_id', message: `memory ${JSON.stringify(m.parent_memory_id)} not found` }]);
  }
  db.prepare(
    `UPDATE memories SET title = @title, content = @content, body = @body, tags = @tags, importance = @importance,
       project_id = @project_id, agent_id = @agent_id, timestamp = @timestamp, expires_at = @expires_at,
       parent_memory_id = @parent_memory_id, updated_at = @updated WHERE seq = @seq`,
  ).run({ ...next, body: flattenContent(m.content), updated: now.toISOString(), seq: row.seq });
  writeTags(db, row.seq, m.tags);
  const record = rowToRecord(requireRow(db, row.id));
  writeAudit(db, { action: audit?.action ?? 'UPDATED', record, reason: audit?.reason ?? `changed ${changed.join(', ')}`, actor: deps.actor ?? m.agent_id, at: now });
  return record;
}

export function writeAudit(
  db: Database,
  e: { action: LifecycleActionKind; record: Pick<MemoryRecord, 'memory_id' | 'memory_type' | 'title'>; rule?: string | null; reason: string; actor: string; at: Date },
): void {
  db.prepare('INSERT INTO memory_audit (ts, action, memory_id, memory_type, title, rule, reason, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
    e.at.toISOString(),
    e.action,
    e.record.memory_id,
    e.record.memory_type,
    e.record.title,
    e.rule ?? null,
    e.reason,
    e.actor,
  );
}

export function listAudit(db: Database, options: { memoryId?: string; limit?: number } = {}): AuditEntry[] {
  const limit = options.limit ?? 100;
  const rows = options.memoryId
    ? db.prepare('SELECT * FROM memory_audit WHERE memory_id = ? ORDER BY id DESC LIMIT ?').all(options.memoryId, limit)
    : db.prepare('SELECT * FROM memory_audit ORDER BY id DESC LIMIT ?').all(limit);
  return rows as AuditEntry[];
}
