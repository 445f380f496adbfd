// Sessions as the hooks captured them, for the Sessions view: each session's handoffs (read back from the snapshot
// store) joined with its recorded end (agent_sessions), newest first. Reads only.
import type { Database } from 'better-sqlite3';
import type { CapturedFinding, CapturedSession } from '../../../shared/captures.ts';
import type { SessionSummary } from '../../../shared/session.ts';
import { capacityStatus, DEFAULT_WINDOW } from '../session/index.ts';
import { recentHandoffs } from './inject.ts';
import { spooledCaptures } from './spool.ts';

export function listCaptures(db: Database, opts: { limit?: number; window?: number; scan?: number } = {}): CapturedSession[] {
  const window = opts.window ?? DEFAULT_WINDOW;
  const byId = new Map<string, CapturedSession>();
  const session = (id: string): CapturedSession => {
    let s = byId.get(id);
    if (!s) byId.set(id, (s = { session_id: id, transcript: null, handoffs: [], ended: null, last_at: '' }));
    return s;
  };
  for (const r of recentHandoffs(db, opts.scan ?? 500)) {
    const p = r.package;
    const id = p.source.session_id;
    if (!id) continue;
    const s = session(id);
    s.transcript ??= p.source.transcript;
    const c = capacityStatus(p.compaction.tokens_before, window);
    s.handoffs.push({ hash: r.hash, type: p.handoff_metadata.handoff_type, timestamp: p.handoff_metadata.timestamp, stored_at: r.created_at, tokens: c.tokens, window, level: c.level, usage_pct: c.usage_pct, package_tokens: p.budget.package_tokens });
    if (r.created_at > s.last_at) s.last_at = r.created_at;
  }
  const hasSessions = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agent_sessions'").get() !== undefined;
  const rows = hasSessions ? (db.prepare('SELECT id, agent_id, ended_at, source, headline, summary FROM agent_sessions ORDER BY ended_at DESC, seq DESC LIMIT ?').all(opts.scan ?? 500) as { id: string; agent_id: string; ended_at: string; source: string; headline: string; summary: string }[]) : [];
  for (const r of rows) {
    const id = r.id.replace(/#\d+$/, '');
    const s = session(id);
    if (s.ended) continue;
    let summary: SessionSummary | null = null;
    try {
      summary = JSON.parse(r.summary) as SessionSummary;
    } catch {
      // a row this build cannot read still lists with its headline
    }
    const findings: CapturedFinding[] = [
      ...(summary?.decisions_made ?? []).map((d) => ({ kind: 'decision' as const, title: d.title, source: d.source ?? null })),
      ...(summary?.issues_encountered ?? []).map((i) => ({ kind: i.kind, title: i.title, source: i.source ?? null })),
      ...(summary?.learnings ?? []).map((l) => ({ kind: 'learning' as const, title: l, source: null })),
    ];
    s.ended = { at: r.ended_at, agent: r.agent_id, headline: r.headline, findings };
    s.transcript ??= r.source;
    if (r.ended_at > s.last_at) s.last_at = r.ended_at;
  }
  // Captures the hooks could not store yet (or at all), from the spool beside the store: a user sees the session was
  // not saved, and why.
  if (db.name && db.name !== ':memory:') {
    for (const c of spooledCaptures(db.name)) {
      const s = session(c.session_id ?? '(no session id)');
      (s.pending ??= []).push({ event: c.event, state: c.state, captured_at: c.captured_at, error: c.last_error });
      if (c.captured_at > s.last_at) s.last_at = c.captured_at;
    }
  }
  return [...byId.values()].sort((a, b) => (a.last_at < b.last_at ? 1 : a.last_at > b.last_at ? -1 : 0)).slice(0, opts.limit ?? 50);
}
