import type { Database } from 'better-sqlite3';
import type { DecisionInput, DecisionRecord, FieldIssue, MemoryInput } from '../../../shared/memory.ts';
import { getMeta, setMeta } from '../store/index.ts';
import { findRow, getMemory, insertMemoryRow, nowOf, replaceFields, requireRow, rowToRecord, writeAudit, type MemoryDeps, type MemoryRow } from './records.ts';
import { DECISION_ID_PATTERN, NotFoundError, ValidationError, validateMemoryInput, type NormalizedMemory } from './validate.ts';

export interface NormalizedDecision {
  memory: NormalizedMemory<'decision'>;
  decision_id: string | null;
  supersedes: string | null;
}

const TEXT_FIELDS = ['decision', 'rationale', 'expected_impact', 'validation_criteria', 'context'] as const;

/**
 * Validates the decision template. Issues name the template's fields ('rationale',
 * 'alternatives_considered[1].reason'), as a form shows them, rather than 'content.rationale'.
 */
export function validateDecision(input: DecisionInput): NormalizedDecision {
  const issues: FieldIssue[] = [];
  const memoryInput: MemoryInput<'decision'> = {
    memory_type: 'decision',
    title: input.title,
    content: {
      decision: input.decision,
      rationale: input.rationale,
      alternatives_considered: input.alternatives_considered ?? [],
      expected_impact: input.expected_impact ?? '',
      validation_criteria: input.validation_criteria ?? '',
      context: input.context ?? '',
    },
    project_id: input.project_id,
    agent_id: input.agent_id,
    tags: input.tags,
    importance: input.importance,
    timestamp: input.timestamp,
  };
  if (input.importance === undefined || input.importance === null) issues.push({ field: 'importance', message: 'is required (1–10)' });
  let memory: NormalizedMemory<'decision'> | null = null;
  try {
    memory = validateMemoryInput(memoryInput);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    issues.push(...err.issues.map((i) => ({ field: i.field.replace(/^content\./, ''), message: i.message })));
  }
  // A line starting like a template heading would end the section early when the markdown file is read back.
  for (const f of TEXT_FIELDS) {
    const v = input[f];
    if (typeof v === 'string' && /^#{2,3} /m.test(v)) issues.push({ field: f, message: "must not contain a line starting with '## ' or '### '" });
  }
  (input.alternatives_considered ?? []).forEach((a, i) => {
    if (a && typeof a.reason === 'string' && /^#{2,3} /m.test(a.reason)) {
      issues.push({ field: `alternatives_considered[${i}].reason`, message: "must not contain a line starting with '## ' or '### '" });
    }
  });
  const decision_id = optionalDecisionId(input.decision_id, 'decision_id', issues);
  const supersedes = optionalDecisionId(input.supersedes, 'supersedes', issues);
  if (issues.length > 0 || memory === null) throw new ValidationError(issues, 'decision');
  return { memory, decision_id, supersedes };
}

function optionalDecisionId(v: unknown, field: string, issues: FieldIssue[]): string | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || !DECISION_ID_PATTERN.test(v.trim())) {
    issues.push({ field, message: `must look like DEC-YYYY-MM-DD-NNN, got ${JSON.stringify(v)}` });
    return null;
  }
  return v.trim();
}

/**
 * Next DEC-YYYY-MM-DD-NNN for the day of `timestamp` (UTC). Must run inside a write transaction taken with
 * BEGIN IMMEDIATE, which serializes concurrent writers (other connections or processes) on the same store.
 * A per-day high-water mark in `meta` means a deleted decision's number is never handed out again.
 */
export function allocateDecisionId(db: Database, timestamp: string): string {
  const day = timestamp.slice(0, 10);
  const next = Math.max(highWater(db, day), maxExisting(db, day)) + 1;
  setMeta(db, metaKey(day), String(next));
  return `DEC-${day}-${String(next).padStart(3, '0')}`;
}

const metaKey = (day: string) => `memory.decision_seq.${day}`;
const highWater = (db: Database, day: string) => Number(getMeta(db, metaKey(day)) ?? 0);

function maxExisting(db: Database, day: string): number {
  const rows = db.prepare('SELECT decision_id FROM memories WHERE decision_id GLOB ?').all(`DEC-${day}-*`) as { decision_id: string }[];
  let max = 0;
  for (const r of rows) {
    const m = DECISION_ID_PATTERN.exec(r.decision_id);
    if (m) max = Math.max(max, Number(m[4]));
  }
  return max;
}

/** Records a decision, allocating its id (or keeping a given, unused one) and applying `supersedes`. */
export function createDecision(db: Database, input: DecisionInput, deps: MemoryDeps = {}): DecisionRecord {
  const d = validateDecision(input);
  const run = db.transaction(() => {
    const ts = d.memory.timestamp ?? nowOf(deps).toISOString();
    const memory = { ...d.memory, timestamp: ts };
    let decisionId: string;
    if (d.decision_id) {
      if (findRow(db, d.decision_id)) throw new ValidationError([{ field: 'decision_id', message: `${d.decision_id} already exists` }], 'decision');
      decisionId = d.decision_id;
      const m = DECISION_ID_PATTERN.exec(decisionId)!;
      const day = `${m[1]}-${m[2]}-${m[3]}`;
      if (Number(m[4]) > highWater(db, day)) setMeta(db, metaKey(day), String(Number(m[4])));
    } else {
      decisionId = allocateDecisionId(db, ts);
    }
    const record = insertMemoryRow(db, memory, { decision_id: decisionId }, deps);
    if (d.supersedes) applySupersede(db, requireDecisionRow(db, d.supersedes, 'supersedes'), requireRow(db, record.memory_id), deps);
    return rowToRecord<'decision'>(requireRow(db, record.memory_id));
  });
  return run.immediate();
}

/** Replaces a decision's template fields. Supersede links are changed only through supersedeDecision. */
export function updateDecision(db: Database, idOrDecisionId: string, input: DecisionInput, deps: MemoryDeps = {}): DecisionRecord {
  const d = validateDecision(input);
  return db
    .transaction(() => {
      const row = requireDecisionRow(db, idOrDecisionId, 'decision_id');
      if (d.decision_id && d.decision_id !== row.decision_id) {
        throw new ValidationError([{ field: 'decision_id', message: `cannot change ${row.decision_id} to ${d.decision_id}` }], 'decision');
      }
      if (d.supersedes && d.supersedes !== row.supersedes) {
        if (row.supersedes) {
          throw new ValidationError([{ field: 'supersedes', message: `${row.decision_id} already supersedes ${row.supersedes}` }], 'decision');
        }
        applySupersede(db, requireDecisionRow(db, d.supersedes, 'supersedes'), row, deps);
      }
      replaceFields(db, requireRow(db, row.id), d.memory, deps);
      return rowToRecord<'decision'>(requireRow(db, row.id));
    })
    .immediate();
}

/** Links `newer` as superseding `older` and archives `older` (kept, never deleted). Returns both. */
export function supersedeDecision(db: Database, older: string, newer: string, deps: MemoryDeps = {}): { older: DecisionRecord; newer: DecisionRecord } {
  return db
    .transaction(() => {
      const o = requireDecisionRow(db, older, 'supersedes');
      const n = requireDecisionRow(db, newer, 'decision_id');
      applySupersede(db, o, n, deps);
      return { older: rowToRecord<'decision'>(requireRow(db, o.id)), newer: rowToRecord<'decision'>(requireRow(db, n.id)) };
    })
    .immediate();
}

function applySupersede(db: Database, older: MemoryRow, newer: MemoryRow, deps: MemoryDeps): void {
  const fail = (message: string) => {
    throw new ValidationError([{ field: 'supersedes', message }], 'decision');
  };
  if (older.id === newer.id) fail('a decision cannot supersede itself');
  if (older.superseded_by && older.superseded_by !== newer.decision_id) fail(`${older.decision_id} is already superseded by ${older.superseded_by}`);
  if (newer.supersedes && newer.supersedes !== older.decision_id) fail(`${newer.decision_id} already supersedes ${newer.supersedes}`);
  // Walking back from the older decision must not reach the newer one, or the chain would loop.
  for (let cur: MemoryRow | undefined = older, hops = 0; cur?.supersedes && hops < 10_000; hops++) {
    if (cur.supersedes === newer.decision_id) fail(`${newer.decision_id} is an ancestor of ${older.decision_id}; the chain would loop`);
    cur = findRow(db, cur.supersedes);
  }
  if (older.superseded_by === newer.decision_id && newer.supersedes === older.decision_id) return;
  const now = nowOf(deps);
  const at = now.toISOString();
  db.prepare('UPDATE memories SET supersedes = ?, updated_at = ? WHERE seq = ?').run(older.decision_id, at, newer.seq);
  db.prepare(
    `UPDATE memories SET superseded_by = ?, updated_at = ?, is_archived = 1, archived_at = coalesce(CASE WHEN is_archived = 1 THEN archived_at END, ?),
       restored_at = NULL WHERE seq = ?`,
  ).run(newer.decision_id, at, at, older.seq);
  const actor = deps.actor ?? newer.agent_id;
  const rec = rowToRecord(requireRow(db, older.id));
  writeAudit(db, { action: 'SUPERSEDED', record: rec, rule: 'decision-superseded', reason: `superseded by ${newer.decision_id}`, actor, at: now });
  if (older.is_archived === 0) {
    writeAudit(db, { action: 'ARCHIVED', record: rec, rule: 'decision-superseded', reason: `superseded by ${newer.decision_id}`, actor, at: now });
  }
}

function requireDecisionRow(db: Database, id: string, field: string): MemoryRow {
  const row = findRow(db, id);
  if (!row) {
    if (field === 'decision_id') throw new NotFoundError(`decision ${JSON.stringify(id)} not found`);
    throw new ValidationError([{ field, message: `decision ${JSON.stringify(id)} not found` }], 'decision');
  }
  if (row.type !== 'decision') throw new ValidationError([{ field, message: `${id} is a ${row.type}, not a decision` }], 'decision');
  return row;
}

/** The supersede chain through a decision, oldest first. */
export function decisionChain(db: Database, idOrDecisionId: string): DecisionRecord[] {
  const start = requireDecisionRow(db, idOrDecisionId, 'decision_id');
  const back: MemoryRow[] = [];
  const seen = new Set<string>([start.id]);
  for (let cur = start.supersedes ? findRow(db, start.supersedes) : undefined; cur && !seen.has(cur.id); cur = cur.supersedes ? findRow(db, cur.supersedes) : undefined) {
    seen.add(cur.id);
    back.unshift(cur);
  }
  const forward: MemoryRow[] = [];
  for (let cur = start.superseded_by ? findRow(db, start.superseded_by) : undefined; cur && !seen.has(cur.id); cur = cur.superseded_by ? findRow(db, cur.superseded_by) : undefined) {
    seen.add(cur.id);
    forward.push(cur);
  }
  return [...back, start, ...forward].map((r) => rowToRecord<'decision'>(r));
}

/** A decision by DEC id or memory id (null if absent or not a decision); reading counts as an access unless touch is false. */
export function getDecision(db: Database, idOrDecisionId: string, options: MemoryDeps & { touch?: boolean } = {}): DecisionRecord | null {
  const row = findRow(db, idOrDecisionId);
  if (!row || row.type !== 'decision') return null;
  return getMemory(db, row.id, options) as DecisionRecord;
}

/** Decision ids (of those given) that exist in the store. */
export function existingDecisionIds(db: Database, ids: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const stmt = db.prepare("SELECT decision_id, title FROM memories WHERE decision_id = ? AND type = 'decision'");
  for (const id of new Set(ids)) {
    const r = stmt.get(id) as { decision_id: string; title: string } | undefined;
    if (r) out.set(r.decision_id, r.title);
  }
  return out;
}
