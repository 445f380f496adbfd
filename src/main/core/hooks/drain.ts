// Stores the captures the spool holds (spool.ts), through the same runHook a live hook uses, each with the time it
// was captured and the transcript bytes it was captured with. Called by every hook worker after its own capture, by
// `contextpack hook drain`, and by any CLI command that opened the store writable while something waits.
import type { Database } from 'better-sqlite3';
import type { RedactionEvent } from '../redact/index.ts';
import { TranscriptError } from '../transcripts/index.ts';
import { HookInputError } from './payload.ts';
import { runHook } from './run.ts';
import { drainSpool, type DrainReport } from './spool.ts';
import { isBusyError, WriteDeadlineError } from './write-retry.ts';

export interface DrainOptions {
  /** How long each capture may wait for a busy store before the drain stops (the rest waits for the next one). */
  deadlineMs?: number;
  retryFailed?: boolean;
  redactionLog?: ((e: RedactionEvent) => void) | null;
  /** Called after each capture stored (for the hooks log). */
  onStored?: (what: { event: string; session_id: string | null; project: string; action: string; captured_at: string }) => void;
}

export function drainCaptures(db: Database, dbPath: string, o: DrainOptions = {}): DrainReport {
  return drainSpool(
    dbPath,
    (entry, file) => {
      if (!file) throw new HookInputError(entry.last_error ?? 'no transcript was kept for this capture');
      const out = runHook(db, entry.payload, {
        project: entry.project,
        agent: entry.agent ?? undefined,
        transcriptFile: file,
        now: () => new Date(entry.captured_at),
        deadlineMs: o.deadlineMs ?? 5_000,
        redactionLog: o.redactionLog,
      });
      o.onStored?.({ event: entry.event, session_id: entry.session_id, project: entry.project, action: `stored a spooled capture (captured ${entry.captured_at}): ${out.action}`, captured_at: entry.captured_at });
    },
    (err) => (err instanceof WriteDeadlineError || isBusyError(err) ? 'busy' : err instanceof HookInputError || err instanceof TranscriptError ? 'fatal' : 'retry'),
    { retryFailed: o.retryFailed },
  );
}
