// One hook event against one project's store. PreCompact stores a continuation handoff (hash-addressed, replayable)
// and records the session state; SessionStart prints what the next context should hold; SessionEnd / Stop records the
// session (summary, findings saved as memories with the transcript line they came from). Re-running an event on the
// same transcript changes nothing: the handoff has the same hash and nothing is saved twice.
import type { Database } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import type { RedactionEvent } from '../redact/index.ts';
import { buildHandoff, recordSession, storeHandoff, summarizeSession, type HandoffRequest } from '../session/index.ts';
import { getSettings } from '../settings/index.ts';
import { getMeta, setMeta } from '../store/index.ts';
import { parseTranscript, type Transcript } from '../transcripts/index.ts';
import { DEFAULT_INJECT_TOKENS, latestHandoff, renderHandoffContext, startupContext } from './inject.ts';
import { HookInputError, transcriptLabel, type HookPayload } from './payload.ts';
import { spoolNotice } from './spool.ts';
import { readTranscriptBytes } from './transcript-file.ts';
import { retryBusy } from './write-retry.ts';

export { MAX_TRANSCRIPT_BYTES, readTranscriptBytes } from './transcript-file.ts';

export interface HookRunOptions {
  /** The project the store belongs to (recorded on the session summary and named in the MCP pointer). */
  project: string;
  /** The agent writing (default: from the transcript's format, `claude-code` or `codex`). */
  agent?: string;
  /** Token budget of what SessionStart prints. */
  maxTokens?: number;
  /** Read only this many bytes of the transcript (its size when the hook fired). */
  transcriptBytes?: number;
  /** False when the store is open read-only: SessionStart then reads without counting access. */
  writable?: boolean;
  now?: () => Date;
  redactionLog?: ((e: RedactionEvent) => void) | null;
  /** Read the transcript's bytes from here (a spooled copy) while naming it by the payload's path. */
  transcriptFile?: string;
  /** How long the writes may wait for a busy store before WriteDeadlineError (default: no retry beyond busy_timeout). */
  deadlineMs?: number;
  /** The store's path, for the spool notice SessionStart gives (waiting or failed captures). */
  dbPath?: string;
}

export interface HookOutcome {
  /** What happened, one line (for the hooks log and stderr). */
  action: string;
  /** Text for the agent's context (SessionStart); empty otherwise. */
  stdout: string;
  hash?: string;
  saved?: { created: number; duplicates: number };
  /** False when the run found everything already recorded and wrote nothing. */
  changed: boolean;
}

/** The session's transcript; with `maxBytes`, only what it held when the hook fired (the agent appends as it goes). */
export function readHookTranscript(p: HookPayload, maxBytes?: number, file?: string): Transcript & { sha256: string; bytes: Buffer } {
  if (!p.transcript_path) throw new HookInputError(`hook payload: "transcript_path" is missing (${p.event} needs the session's transcript)`);
  const label = transcriptLabel(p.transcript_path);
  const bytes = readTranscriptBytes(file ?? p.transcript_path, label, maxBytes);
  const t = parseTranscript(bytes.toString('utf8'), label);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // A format without a session id in its lines (Markdown) takes the agent's.
  return { ...t, session_id: t.session_id ?? p.session_id, sha256, bytes };
}

const agentOf = (t: Transcript, given?: string) => given ?? (t.format === 'markdown-chat' ? 'agent' : t.format);

/** Thrown inside a transaction to undo a run that would only have repeated what the store already holds. */
class NothingNew extends Error {}

/** The writes of one capture: a short BEGIN IMMEDIATE transaction, tried again while the store is busy (write-retry.ts). */
function write<T>(db: Database, o: HookRunOptions, fn: () => T): T {
  const tx = db.transaction(fn);
  if (o.deadlineMs === undefined) return tx.immediate();
  const until = Date.now() + o.deadlineMs;
  try {
    return retryBusy(() => {
      // Each wait for the lock ends by the deadline: a capture past it is spooled, not held in a queue for ever.
      db.pragma(`busy_timeout = ${Math.max(10, Math.min(BUSY_TIMEOUT_MS, until - Date.now()))}`);
      return tx.immediate();
    }, { deadlineMs: o.deadlineMs });
  } finally {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

/** The store's own busy_timeout (store/open.ts). */
const BUSY_TIMEOUT_MS = 5_000;

function preCompact(db: Database, p: HookPayload, o: HookRunOptions): HookOutcome {
  const t = readHookTranscript(p, o.transcriptBytes, o.transcriptFile);
  const agent = agentOf(t, o.agent);
  // The same bytes, trigger and agent were captured before: their handoff is stored, nothing to build.
  const key = `hooks.precompact.${t.sha256}.${p.trigger ?? 'auto'}.${agent}`;
  const seen = getMeta(db, key);
  if (seen && db.prepare('SELECT 1 FROM packet_snapshots WHERE hash = ?').get(seen)) {
    return { action: `already stored continuation handoff ${seen.slice(0, 16)} (same transcript)`, stdout: '', hash: seen, changed: false };
  }
  const req: HandoffRequest = { type: 'continuation', transcript: t, from: agent, to: `${agent}-after-compaction`, reason: `PreCompact (${p.trigger ?? 'auto'}): the context is about to be compacted` };
  // Built outside any transaction (seconds of work on a big transcript, reading the store as it is now); only the
  // writes below hold the lock.
  const built = buildHandoff(req, { db, now: o.now, redactionLog: o.redactionLog });
  let stored = false;
  write(db, o, () => {
    // The same transcript gives the same package: its snapshot is there already, so its state record is too.
    if (db.prepare('SELECT 1 FROM packet_snapshots WHERE hash = ?').get(built.hash)) return;
    stored = storeHandoff(db, built, req, { now: o.now }).stored;
    setMeta(db, key, built.hash);
  });
  if (!stored) write(db, o, () => setMeta(db, key, built.hash));
  const b = built.package.budget;
  return {
    action: `${stored ? 'stored' : 'already stored'} continuation handoff ${built.hash.slice(0, 16)} (${b.package_tokens} / ${b.max_tokens} tokens, ${built.package.compaction.tokens_before} tokens of transcript)`,
    stdout: '',
    hash: built.hash,
    changed: stored,
  };
}

/** The project's SessionStart budget (`contextpack settings --session-start-tokens N`), else the default. */
function projectBudget(db: Database): number {
  try {
    return getSettings(db).sessionStartTokens;
  } catch {
    return DEFAULT_INJECT_TOKENS; // a store without the settings table (opened read-only, older schema)
  }
}

function sessionStart(db: Database, p: HookPayload, o: HookRunOptions): HookOutcome {
  const maxTokens = o.maxTokens ?? projectBudget(db);
  // A capture that waits or failed is said first: the handoff below may be older than the session's last compaction.
  const pending = o.dbPath ? spoolNotice(o.dbPath) : null;
  const note = pending ? `> ContextPack: ${pending}.\n\n` : '';
  const room = pending ? maxTokens - Math.ceil(note.length / 4) : maxTokens;
  if (p.source === 'compact' || p.source === 'resume') {
    const found = latestHandoff(db, p.session_id);
    if (found) {
      return { action: `printed handoff ${found.handoff.hash.slice(0, 16)} (${found.scope})${pending ? `; ${pending}` : ''}`, stdout: note + renderHandoffContext(found.handoff, found.scope, room), hash: found.handoff.hash, changed: false };
    }
  }
  const text = startupContext(db, o.project, { maxTokens: room, touch: o.writable !== false && p.source !== 'compact' && p.source !== 'resume', now: o.now });
  return { action: `printed the rehydration bundle (source ${p.source ?? 'unknown'})${pending ? `; ${pending}` : ''}`, stdout: note + text, changed: false };
}

function sessionEnd(db: Database, p: HookPayload, o: HookRunOptions): HookOutcome {
  const t = readHookTranscript(p, o.transcriptBytes, o.transcriptFile);
  const agent = agentOf(t, o.agent);
  const key = `hooks.sessionend.${t.sha256}.${agent}.${o.project}`;
  const seen = getMeta(db, key);
  if (seen && db.prepare('SELECT 1 FROM agent_sessions WHERE id = ?').get(seen)) {
    return { action: `already recorded session ${seen} (same transcript); saved 0 memories`, stdout: '', saved: { created: 0, duplicates: 0 }, changed: false };
  }
  const sessionOpts = { agent, projectId: o.project, now: o.now, redactionLog: o.redactionLog };
  // Summarized outside the write transaction: extraction reads only the transcript.
  const summarized = summarizeSession(t, sessionOpts);
  const box: { r?: ReturnType<typeof recordSession> } = {};
  let changed = true;
  try {
    write(db, o, () => {
      // One row per session: a later end (Stop fires every turn; a resumed session ends again) replaces the earlier.
      const id = t.session_id;
      const before = id ? (db.prepare("SELECT summary FROM agent_sessions WHERE id = ? OR id LIKE ? ESCAPE '\\' ORDER BY seq DESC LIMIT 1").get(id, `${id.replace(/[\\%_]/g, '\\$&')}#%`) as { summary: string } | undefined) : undefined;
      if (id) db.prepare("DELETE FROM agent_sessions WHERE id = ? OR id LIKE ? ESCAPE '\\'").run(id, `${id.replace(/[\\%_]/g, '\\$&')}#%`);
      const r = (box.r = recordSession(db, summarized, sessionOpts));
      if (before && before.summary === JSON.stringify(r.summary) && r.saved.created.length === 0) throw new NothingNew();
      setMeta(db, key, r.summary.session_metadata.session_id);
    });
  } catch (err) {
    if (!(err instanceof NothingNew)) throw err;
    changed = false;
    write(db, o, () => setMeta(db, key, box.r!.summary.session_metadata.session_id));
  }
  const res = box.r!;
  return {
    action: `${changed ? 'recorded' : 'already recorded'} session ${res.summary.session_metadata.session_id}: ${res.headline}; saved ${changed ? res.saved.created.length : 0} memories`,
    stdout: '',
    saved: { created: changed ? res.saved.created.length : 0, duplicates: res.saved.duplicates.length },
    changed,
  };
}

export function runHook(db: Database, p: HookPayload, o: HookRunOptions): HookOutcome {
  switch (p.event) {
    case 'PreCompact':
      return preCompact(db, p, o);
    case 'SessionStart':
      return sessionStart(db, p, o);
    case 'SessionEnd':
    case 'Stop':
      return sessionEnd(db, p, o);
  }
}

/** Events that write: refused on a store opened read-only, before anything is read. */
export const writesStore = (p: HookPayload) => p.event !== 'SessionStart';
