import type { Database } from 'better-sqlite3';
import type { SessionContinuity } from '../../../shared/session.ts';

// Read here (not in core/session) because rehydration needs it and memory sits below the session capability.
function hasTable(db: Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agent_sessions'").get() !== undefined;
}

/** Seed 002's rehydration session_continuity block. */
export function sessionContinuity(db: Database, now: Date, projectId?: string): SessionContinuity {
  if (!hasTable(db)) return { last_session_end: null, minutes_since_last_session: null, time_since_last_session: null, sessions_in_project: 0 };
  const where = projectId !== undefined ? 'WHERE project_id = ?' : '';
  const params = projectId !== undefined ? [projectId] : [];
  const row = db.prepare(`SELECT max(ended_at) AS last, count(*) AS n FROM agent_sessions ${where}`).get(...params) as { last: string | null; n: number };
  if (!row.last) return { last_session_end: null, minutes_since_last_session: null, time_since_last_session: null, sessions_in_project: 0 };
  const minutes = Math.max(0, Math.floor((now.getTime() - Date.parse(row.last)) / 60_000));
  return { last_session_end: row.last, minutes_since_last_session: minutes, time_since_last_session: humanGap(minutes), sessions_in_project: row.n };
}

export function humanGap(minutes: number): string {
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  const parts = [d ? `${d} day${d === 1 ? '' : 's'}` : '', h ? `${h} hour${h === 1 ? '' : 's'}` : '', !d && m ? `${m} minute${m === 1 ? '' : 's'}` : ''].filter(Boolean);
  return parts.length ? parts.join(' ') : 'less than a minute';
}
