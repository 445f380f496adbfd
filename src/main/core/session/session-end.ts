// Seed 002's Session Summary Generation (#17 item 2): what the session did, its decisions, bugs and TODOs, read from
// `DECISION:` / `BUG-` / `TODO:` lines of notes or from a transcript; stored per session, the findings saved as
// memories (deduplicated). The packet's HISTORY "Recent Sessions" and rehydration's session continuity read these rows.
import type { Database } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import type { StoredSessionView } from '../../../shared/api/contract.ts';
import type { SessionEndResult, SessionSummary } from '../../../shared/session.ts';
import { gateLabel, getDefaultRedactor, type RedactionEvent, type Redactor } from '../redact/index.ts';
import { countTokens } from '../tokens/index.ts';
import { NOTES_MAX, overCap } from '../../../shared/limits.ts';
import { TranscriptError, type Transcript } from '../transcripts/index.ts';
import { extract, openErrorsOf, openIssuesOf } from './extract.ts';
import { gateExtraction, gateStrings, mostlyRedacted } from './gate.ts';
import { saveExtraction } from './save.ts';
import { joinLines } from './one-line.ts';

/**
 * Plain notes as a one-turn transcript, so notes and transcripts share one extractor (line numbers are the file's).
 * Notes are the agent's report of its session, so they are read as the agent's words.
 */
export function notesTranscript(text: string, source: string): Transcript {
  if (text.length > NOTES_MAX) throw new TranscriptError(overCap(`${source}: notes`, NOTES_MAX, text.length));
  return { format: 'markdown-chat', source, session_id: null, problems: [], turns: [{ index: 0, line: 0, role: 'assistant', kind: 'text', ts: null, text, tool_name: null, tool_use_id: null, is_error: false }] };
}

export interface SessionEndOptions {
  agent?: string;
  projectId?: string;
  now?: () => Date;
  newId?: () => string;
  redactor?: Redactor;
  /** Every redaction event (logs/redaction.jsonl beside the database). */
  redactionLog?: ((e: RedactionEvent) => void) | null;
}

function hasTable(db: Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agent_sessions'").get() !== undefined;
}

export function summarizeSession(input: Transcript, opts: SessionEndOptions = {}): { summary: SessionSummary; extraction: ReturnType<typeof extract>; headline: string } {
  const now = (opts.now ?? (() => new Date()))();
  // Read and counted as written; the summary and what is saved pass the gate on the way out.
  const t = input;
  const redactor = opts.redactor ?? getDefaultRedactor();
  const x = extract(t, { redacted: mostlyRedacted(redactor) });
  const times = t.turns.map((x) => x.ts).filter((s): s is string => s !== null).sort();
  const start = times[0] ?? null;
  const end = times.at(-1) ?? now.toISOString();
  const agent = opts.agent ?? 'user';
  const modified = [...new Set(x.files.map((f) => f.path))];
  const created = [...new Set(x.files.filter((f) => /^(write|create_file|write_file)$/i.test(f.tool)).map((f) => f.path))];
  const done = [...new Set([...x.done.map((d) => d.text), ...x.state.completed.map((c) => `✓ ${c}`)])];
  const summary: SessionSummary = {
    session_metadata: {
      session_id: t.session_id ?? (opts.newId ?? randomUUID)(),
      start_time: start,
      end_time: end,
      duration_minutes: start ? Math.round((Date.parse(end) - Date.parse(start)) / 60_000) : null,
      agent_ids: [agent],
      project_id: opts.projectId ?? 'default',
    },
    done,
    decisions_made: x.decisions.map((d) => ({ id: `${t.source}:${d.at.line}`, title: d.title, decision: d.decision, rationale: d.rationale, alternatives: d.alternatives, importance: d.importance, source: `${t.source}:${d.at.line}` })),
    issues_encountered: [
      ...openIssuesOf(x).map((i) => ({ id: i.key ?? i.id, kind: i.kind, title: i.title, severity: i.severity, detail: joinLines(i.text), source: `${t.source}:${i.at.line}` })),
      // Errors a later run fixed are history, not issues.
      ...openErrorsOf(x).map((e) => ({ id: e.id, kind: 'error' as const, title: `${e.command ? `${e.command}: ` : ''}${e.message}`.slice(0, 100), severity: 'high', detail: `${e.tool ?? 'tool'} failed ${e.occurrences}×, not resolved by a later run — ${e.root_cause ? `root cause: ${e.root_cause}` : 'root cause not identified'}`, source: `${t.source}:${e.at.line}` })),
    ],
    current_state: x.state.task ? { task: x.state.task, completion_percentage: x.state.completion_percentage, completed: x.state.completed, in_progress: x.state.in_progress, not_started: x.state.not_started, next_actions: x.state.next_actions, blockers: x.state.blockers } : null,
    learnings: x.learnings.map((l) => l.text),
    file_modifications: { created, modified: modified.filter((p) => !created.includes(p)), deleted: [] },
    metrics: {
      tokens_used: t.turns.reduce((a, turn) => a + countTokens(turn.text), 0),
      files_accessed: new Set(t.turns.filter((x) => x.kind === 'tool_use').map((x) => /(?:file_path|path):\s*(\S+)/.exec(x.text)?.[1]).filter(Boolean)).size,
      operations_performed: t.turns.filter((x) => x.kind === 'tool_use').length,
      compactions_executed: 0,
    },
    source: t.source,
  };
  const bugs = summary.issues_encountered.filter((i) => i.kind === 'bug' || i.kind === 'issue' || i.kind === 'error').length;
  const todos = summary.issues_encountered.filter((i) => i.kind === 'todo').length;
  const lead = done[0] ?? (x.state.task ? `task: ${x.state.task}` : summary.decisions_made[0]?.title ?? 'no work recorded');
  const headline = `${agent}: ${lead.slice(0, 120)} — ${done.length} done, ${summary.decisions_made.length} decision${summary.decisions_made.length === 1 ? '' : 's'}, ${bugs} bug${bugs === 1 ? '' : 's'}, ${todos} TODO${todos === 1 ? '' : 's'}`;
  const counter = { n: 0, log: opts.redactionLog };
  const source = gateLabel(t.source, { redactor, source: 'transcript name', section: 'SESSION' });
  return { summary: gateStrings(summary, redactor, counter, source, 'SESSION'), extraction: gateExtraction(x, redactor, counter, 'SESSION'), headline: gateStrings(headline, redactor, counter, source, 'SESSION') };
}

/** `session end`: summarize, store the summary, save the findings as memories (deduplicated), in one transaction. */
export function endSession(db: Database, input: Transcript, opts: SessionEndOptions = {}): SessionEndResult {
  if (!hasTable(db)) throw new Error('this store has no agent_sessions table (migration 50): open it with the current version');
  return recordSession(db, summarizeSession(input, opts), opts);
}

/**
 * The writing half of endSession, for a caller that summarizes outside any transaction (the hooks hold a write lock
 * only for the writes). Runs in the caller's transaction when there is one.
 */
export function recordSession(db: Database, summarized: ReturnType<typeof summarizeSession>, opts: SessionEndOptions = {}): SessionEndResult {
  if (!hasTable(db)) throw new Error('this store has no agent_sessions table (migration 50): open it with the current version');
  const now = (opts.now ?? (() => new Date()))();
  const { summary, extraction, headline } = summarized;
  const agent = opts.agent ?? 'user';
  return db.transaction(() => {
    const saved = saveExtraction(db, extraction, { agent, now: () => now, newId: opts.newId, tags: ['session'], includeState: true });
    db.prepare('INSERT INTO agent_sessions (id, project_id, agent_id, started_at, ended_at, source, headline, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
      summary.session_metadata.session_id + (db.prepare('SELECT 1 FROM agent_sessions WHERE id = ?').get(summary.session_metadata.session_id) ? `#${now.getTime()}` : ''),
      summary.session_metadata.project_id,
      agent,
      summary.session_metadata.start_time,
      summary.session_metadata.end_time,
      summary.source,
      headline,
      JSON.stringify(summary),
    );
    return { summary, headline, saved };
  }).immediate();
}

/** A recorded agent session as listed (the shape the API returns). */
export type StoredSession = StoredSessionView;

/** Newest first. */
export function listSessions(db: Database, limit = 20): StoredSession[] {
  if (!hasTable(db)) return [];
  return db.prepare('SELECT id, agent_id, started_at, ended_at, source, headline FROM agent_sessions ORDER BY ended_at DESC, seq DESC LIMIT ?').all(limit) as StoredSession[];
}

