// One hook event against one project's store. PreCompact stores a continuation handoff (hash-addressed, replayable)
// and records the session state; SessionStart prints what the next context should hold; SessionEnd / Stop records the
// session (summary, findings saved as memories with the transcript line they came from). Re-running an event on the
// same transcript changes nothing: the handoff has the same hash and nothing is saved twice.
import type { Database } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { TRANSCRIPT_MAX } from '../../../shared/limits.ts';
import type { RedactionEvent } from '../redact/index.ts';
import { createHandoff, endSession } from '../session/index.ts';
import { getMeta, setMeta } from '../store/index.ts';
import { parseTranscript, type Transcript } from '../transcripts/index.ts';
import { DEFAULT_INJECT_TOKENS, latestHandoff, renderHandoffContext, startupContext } from './inject.ts';
import { HookInputError, transcriptLabel, type HookPayload } from './payload.ts';

/**
 * The most bytes a transcript within the cap can take (a UTF-16 code unit is at most 3 bytes of UTF-8): a larger file
 * would only be read to be refused by parseTranscript.
 */
export const MAX_TRANSCRIPT_BYTES = 3 * TRANSCRIPT_MAX;

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
export function readHookTranscript(p: HookPayload, maxBytes?: number): Transcript & { sha256: string } {
  if (!p.transcript_path) throw new HookInputError(`hook payload: "transcript_path" is missing (${p.event} needs the session's transcript)`);
  let size: number;
  try {
    size = statSync(p.transcript_path).size;
  } catch (err) {
    throw new HookInputError(`transcript ${transcriptLabel(p.transcript_path)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (Math.min(size, maxBytes ?? size) > MAX_TRANSCRIPT_BYTES) throw new HookInputError(`transcript ${transcriptLabel(p.transcript_path)}: ${size} bytes, over the hook's limit of ${MAX_TRANSCRIPT_BYTES}`);
  let bytes = readFileSync(p.transcript_path);
  if (maxBytes !== undefined && maxBytes < bytes.length) bytes = bytes.subarray(0, maxBytes);
  const t = parseTranscript(bytes.toString('utf8'), transcriptLabel(p.transcript_path));
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // A format without a session id in its lines (Markdown) takes the agent's.
  return { ...t, session_id: t.session_id ?? p.session_id, sha256 };
}

const agentOf = (t: Transcript, given?: string) => given ?? (t.format === 'markdown-chat' ? 'agent' : t.format);

/** Thrown inside a transaction to undo a run that would only have repeated what the store already holds. */
class NothingNew extends Error {}

function preCompact(db: Database, p: HookPayload, o: HookRunOptions): HookOutcome {
  const t = readHookTranscript(p, o.transcriptBytes);
  const agent = agentOf(t, o.agent);
  // The same bytes, trigger and agent were captured before: their handoff is stored, nothing to build.
  const key = `hooks.precompact.${t.sha256}.${p.trigger ?? 'auto'}.${agent}`;
  const seen = getMeta(db, key);
  if (seen && db.prepare('SELECT 1 FROM packet_snapshots WHERE hash = ?').get(seen)) {
    return { action: `already stored continuation handoff ${seen.slice(0, 16)} (same transcript)`, stdout: '', hash: seen, changed: false };
  }
  const box: { r?: ReturnType<typeof createHandoff> } = {};
  try {
    db.transaction(() => {
      const result = (box.r = createHandoff(
        db,
        { type: 'continuation', transcript: t, from: agent, to: `${agent}-after-compaction`, reason: `PreCompact (${p.trigger ?? 'auto'}): the context is about to be compacted` },
        { now: o.now, redactionLog: o.redactionLog },
      ));
      // The same transcript gives the same package: its snapshot is there already, so its state record is too.
      if (!result.stored) throw new NothingNew();
    })();
  } catch (err) {
    if (!(err instanceof NothingNew)) throw err;
  }
  const r = box.r!;
  setMeta(db, key, r.hash);
  const b = r.package.budget;
  return {
    action: `${r.stored ? 'stored' : 'already stored'} continuation handoff ${r.hash.slice(0, 16)} (${b.package_tokens} / ${b.max_tokens} tokens, ${r.package.compaction.tokens_before} tokens of transcript)`,
    stdout: '',
    hash: r.hash,
    changed: r.stored,
  };
}

function sessionStart(db: Database, p: HookPayload, o: HookRunOptions): HookOutcome {
  const maxTokens = o.maxTokens ?? DEFAULT_INJECT_TOKENS;
  if (p.source === 'compact' || p.source === 'resume') {
    const found = latestHandoff(db, p.session_id);
    if (found) {
      return { action: `printed handoff ${found.handoff.hash.slice(0, 16)} (${found.scope})`, stdout: renderHandoffContext(found.handoff, found.scope, maxTokens), hash: found.handoff.hash, changed: false };
    }
  }
  const text = startupContext(db, o.project, { maxTokens, touch: o.writable !== false && p.source !== 'compact' && p.source !== 'resume', now: o.now });
  return { action: `printed the rehydration bundle (source ${p.source ?? 'unknown'})`, stdout: text, changed: false };
}

function sessionEnd(db: Database, p: HookPayload, o: HookRunOptions): HookOutcome {
  const t = readHookTranscript(p, o.transcriptBytes);
  const agent = agentOf(t, o.agent);
  const key = `hooks.sessionend.${t.sha256}.${agent}.${o.project}`;
  const seen = getMeta(db, key);
  if (seen && db.prepare('SELECT 1 FROM agent_sessions WHERE id = ?').get(seen)) {
    return { action: `already recorded session ${seen} (same transcript); saved 0 memories`, stdout: '', saved: { created: 0, duplicates: 0 }, changed: false };
  }
  const box: { r?: ReturnType<typeof endSession> } = {};
  let changed = true;
  try {
    db.transaction(() => {
      // One row per session: a later end (Stop fires every turn; a resumed session ends again) replaces the earlier.
      const id = t.session_id;
      const before = id ? (db.prepare("SELECT summary FROM agent_sessions WHERE id = ? OR id LIKE ? ESCAPE '\\' ORDER BY seq DESC LIMIT 1").get(id, `${id.replace(/[\\%_]/g, '\\$&')}#%`) as { summary: string } | undefined) : undefined;
      if (id) db.prepare("DELETE FROM agent_sessions WHERE id = ? OR id LIKE ? ESCAPE '\\'").run(id, `${id.replace(/[\\%_]/g, '\\$&')}#%`);
      const r = (box.r = endSession(db, t, { agent, projectId: o.project, now: o.now, redactionLog: o.redactionLog }));
      if (before && before.summary === JSON.stringify(r.summary) && r.saved.created.length === 0) throw new NothingNew();
    })();
  } catch (err) {
    if (!(err instanceof NothingNew)) throw err;
    changed = false;
  }
  const res = box.r!;
  setMeta(db, key, res.summary.session_metadata.session_id);
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
