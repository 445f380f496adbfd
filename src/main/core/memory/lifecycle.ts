import type { Database } from 'better-sqlite3';
import type { LifecycleAction, MaintenanceReport, MemoryRecord, MemoryType } from '../../../shared/memory.ts';
import { getMeta, setMeta } from '../store/index.ts';
import { DAY_MS, MEMORY_COLUMNS, nowOf, requireRow, rowToRecord, writeAudit, type MemoryDeps, type MemoryRow } from './records.ts';

interface RuleContext {
  now: number;
  /** seq of the newest state per project: every other state is superseded. */
  latestStateSeq: Map<string, number>;
}

export interface LifecycleRule {
  id: string;
  action: 'archive' | 'delete';
  type: MemoryType | 'any';
  /** The seed's condition, as shown in the audit log. */
  description: string;
  matches(row: MemoryRow, ctx: RuleContext): boolean;
}

/** Whole days, as the seed's age_days: 90 days and 23 hours is 90 days old, not 91. */
const daysSince = (iso: string | null, now: number): number => (iso === null ? -1 : Math.floor((now - Date.parse(iso)) / DAY_MS));
const isResolved = (row: MemoryRow) => (JSON.parse(row.content) as { status?: string }).status === 'resolved';
const supersededState = (row: MemoryRow, ctx: RuleContext) => ctx.latestStateSeq.get(row.project_id) !== row.seq;

/**
 * The seed's Memory Lifecycle Management tables. Archive rules look at active memories, delete rules only at
 * archived ones, so nothing is deleted without first being archived (and restorable) for its whole window.
 * Ages are from the memory's timestamp; "archived > N days" from when it was archived.
 */
export const LIFECYCLE_RULES: readonly LifecycleRule[] = [
  { id: 'decision-low-importance', action: 'archive', type: 'decision', description: 'importance ≤ 5 AND age > 90 days', matches: (r, c) => r.importance <= 5 && daysSince(r.timestamp, c.now) > 90 },
  { id: 'decision-superseded', action: 'archive', type: 'decision', description: 'superseded by a newer decision', matches: (r) => r.superseded_by !== null },
  { id: 'issue-resolved', action: 'archive', type: 'issue', description: 'status = resolved AND age > 30 days', matches: (r, c) => isResolved(r) && daysSince(r.timestamp, c.now) > 30 },
  { id: 'state-superseded', action: 'archive', type: 'state', description: 'superseded by a newer state', matches: (r, c) => supersededState(r, c) },
  { id: 'learning-unused', action: 'archive', type: 'learning', description: 'access count = 0 AND age > 180 days', matches: (r, c) => r.access_count === 0 && daysSince(r.timestamp, c.now) > 180 },
  // Not in the seed's table, but the schema's expires_at has to mean something: past it, a memory is archived.
  { id: 'expired', action: 'archive', type: 'any', description: 'expires_at has passed', matches: (r, c) => r.expires_at !== null && Date.parse(r.expires_at) <= c.now },

  { id: 'decision-very-low-importance', action: 'delete', type: 'decision', description: 'importance ≤ 3 AND archived > 365 days', matches: (r, c) => r.importance <= 3 && daysSince(r.archived_at, c.now) > 365 },
  { id: 'issue-resolved-archived', action: 'delete', type: 'issue', description: 'resolved AND archived > 180 days', matches: (r, c) => isResolved(r) && daysSince(r.archived_at, c.now) > 180 },
  { id: 'state-superseded-archived', action: 'delete', type: 'state', description: 'superseded AND archived > 90 days', matches: (r, c) => supersededState(r, c) && daysSince(r.archived_at, c.now) > 90 },
  { id: 'learning-unused-year', action: 'delete', type: 'learning', description: 'access count = 0 AND age > 365 days', matches: (r, c) => r.access_count === 0 && daysSince(r.timestamp, c.now) > 365 },
];

export interface MaintenanceOptions extends MemoryDeps {
  projectId?: string;
  /** Report what would happen without changing anything. */
  dryRun?: boolean;
}

/**
 * One lifecycle pass: archive, then delete, in one transaction, each action written to the audit log.
 * A memory the user restored is left alone by the archive rules (restoring would be pointless otherwise).
 */
export function runMaintenance(db: Database, options: MaintenanceOptions = {}): MaintenanceReport {
  const now = nowOf(options);
  const actor = options.actor ?? 'lifecycle';
  const report: MaintenanceReport = { ran_at: now.toISOString(), dry_run: options.dryRun === true, archived: [], deleted: [] };
  const pass = db.transaction(() => {
    const ctx: RuleContext = { now: now.getTime(), latestStateSeq: latestStates(db) };
    const scope = options.projectId !== undefined ? 'AND m.project_id = ?' : '';
    const params = options.projectId !== undefined ? [options.projectId] : [];
    const active = db.prepare(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.is_archived = 0 ${scope} ORDER BY m.seq`).all(...params) as MemoryRow[];
    for (const row of active) {
      if (row.restored_at !== null) continue;
      const rule = firstRule(row, 'archive', ctx);
      if (!rule) continue;
      report.archived.push(action(row, rule));
      if (!report.dry_run) setArchived(db, row, now, { rule: rule.id, reason: rule.description, actor });
    }
    const archived = db.prepare(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.is_archived = 1 ${scope} ORDER BY m.seq`).all(...params) as MemoryRow[];
    for (const row of archived) {
      const rule = firstRule(row, 'delete', ctx);
      if (!rule) continue;
      report.deleted.push(action(row, rule));
      if (!report.dry_run) removeRow(db, row, now, { rule: rule.id, reason: `retention period expired: ${rule.description}`, actor });
    }
    if (!report.dry_run) setMeta(db, MAINTENANCE_META_KEY, report.ran_at);
  });
  pass.immediate();
  return report;
}

export const MAINTENANCE_META_KEY = 'memory.maintenance.last_run';

function firstRule(row: MemoryRow, kind: 'archive' | 'delete', ctx: RuleContext): LifecycleRule | undefined {
  return LIFECYCLE_RULES.find((r) => r.action === kind && (r.type === 'any' || r.type === row.type) && r.matches(row, ctx));
}

const action = (row: MemoryRow, rule: LifecycleRule): LifecycleAction => ({
  memory_id: row.id,
  memory_type: row.type,
  title: row.title,
  rule: rule.id,
  reason: rule.description,
});

function latestStates(db: Database): Map<string, number> {
  const rows = db
    .prepare(
      `SELECT project_id, seq FROM (
         SELECT project_id, seq, row_number() OVER (PARTITION BY project_id ORDER BY timestamp DESC, seq DESC) AS rn
         FROM memories WHERE type = 'state') WHERE rn = 1`,
    )
    .all() as { project_id: string; seq: number }[];
  return new Map(rows.map((r) => [r.project_id, r.seq]));
}

function setArchived(db: Database, row: MemoryRow, now: Date, why: { rule: string | null; reason: string; actor: string }): void {
  db.prepare('UPDATE memories SET is_archived = 1, archived_at = ?, restored_at = NULL WHERE seq = ?').run(now.toISOString(), row.seq);
  writeAudit(db, { action: 'ARCHIVED', record: rowToRecord(row), ...why, at: now });
}

function removeRow(db: Database, row: MemoryRow, now: Date, why: { rule: string | null; reason: string; actor: string }): void {
  db.prepare('DELETE FROM memories WHERE seq = ?').run(row.seq);
  writeAudit(db, { action: 'DELETED', record: rowToRecord(row), ...why, at: now });
}

/** Archives a memory by hand (reversible with restoreMemory). */
export function archiveMemory(db: Database, idOrDecisionId: string, options: MemoryDeps & { reason?: string } = {}): MemoryRecord {
  return db
    .transaction(() => {
      const row = requireRow(db, idOrDecisionId);
      if (row.is_archived === 0) setArchived(db, row, nowOf(options), { rule: null, reason: options.reason ?? 'archived by user', actor: options.actor ?? 'user' });
      return rowToRecord(requireRow(db, row.id));
    })
    .immediate();
}

/** Undoes an archive. The lifecycle's archive rules then leave this memory alone until it is archived again. */
export function restoreMemory(db: Database, idOrDecisionId: string, options: MemoryDeps & { reason?: string } = {}): MemoryRecord {
  return db
    .transaction(() => {
      const row = requireRow(db, idOrDecisionId);
      if (row.is_archived === 1) {
        const now = nowOf(options);
        db.prepare('UPDATE memories SET is_archived = 0, archived_at = NULL, restored_at = ? WHERE seq = ?').run(now.toISOString(), row.seq);
        writeAudit(db, { action: 'RESTORED', record: rowToRecord(row), rule: null, reason: options.reason ?? 'restored by user', actor: options.actor ?? 'user', at: now });
      }
      return rowToRecord(requireRow(db, row.id));
    })
    .immediate();
}

/** The user's explicit delete ("marked for deletion by user"): permanent, audited. */
export function deleteMemory(db: Database, idOrDecisionId: string, options: MemoryDeps & { reason?: string } = {}): LifecycleAction {
  return db
    .transaction(() => {
      const row = requireRow(db, idOrDecisionId);
      const reason = options.reason ?? 'deleted by user';
      removeRow(db, row, nowOf(options), { rule: 'user-delete', reason, actor: options.actor ?? 'user' });
      return { memory_id: row.id, memory_type: row.type, title: row.title, rule: 'user-delete', reason };
    })
    .immediate();
}

export interface MaintenanceTimerOptions {
  db: Database;
  now?: () => Date;
  /** Default one day. */
  intervalMs?: number;
  projectId?: string;
  onReport?: (report: MaintenanceReport) => void;
  onError?: (err: unknown) => void;
}

/**
 * Runs maintenance now if the last run is older than the interval (or never happened), then every interval.
 * Returns a stop function. The timer is unref'd so it never keeps a process alive on its own.
 */
export function startMaintenanceTimer(options: MaintenanceTimerOptions): () => void {
  const intervalMs = options.intervalMs ?? DAY_MS;
  const now = options.now ?? (() => new Date());
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    if (stopped) return;
    try {
      const last = getMeta(options.db, MAINTENANCE_META_KEY);
      if (last === undefined || now().getTime() - Date.parse(last) >= intervalMs) {
        options.onReport?.(runMaintenance(options.db, { now, projectId: options.projectId }));
      }
    } catch (err) {
      options.onError?.(err);
    }
    if (!stopped) {
      timer = setTimeout(tick, intervalMs);
      timer.unref?.();
    }
  };
  timer = setTimeout(tick, 0);
  timer.unref?.();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

/**
 * The archive rules for one memory, right after it changed (an update or a resolve): a resolved issue older than 30
 * days, a decision lowered to importance ≤ 5 after 90 days, a past expiry are archived at once, audited like the
 * daily pass. A memory the user restored is left alone, as there. Returns the rule that fired, or null.
 */
export function applyLifecycleTo(db: Database, idOrDecisionId: string, options: MemoryDeps = {}): LifecycleAction | null {
  const row = requireRow(db, idOrDecisionId);
  if (row.is_archived === 1 || row.restored_at !== null) return null;
  const now = nowOf(options);
  const rule = firstRule(row, 'archive', { now: now.getTime(), latestStateSeq: latestStates(db) });
  if (!rule) return null;
  setArchived(db, row, now, { rule: rule.id, reason: rule.description, actor: options.actor ?? 'lifecycle' });
  return action(row, rule);
}
