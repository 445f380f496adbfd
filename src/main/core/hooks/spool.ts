// Captures a hook could not store in time, kept on disk until the next hook or command stores them (write-retry.ts
// says why a capture can miss its deadline). One entry is two files in FILE-data/hooks/spool/: `<id>.json` (the
// payload and options the hook ran with, when it was captured, its tries) and `<id>.transcript` (the transcript's
// bytes as they stood when the hook fired: the agent may append to, rotate or delete the file before the store is
// free). An entry is claimed by renaming its .json (atomic), so two processes never store the same one; it is removed
// only after its store committed. An entry that fails for a reason other than a busy store is tried MAX_TRIES times,
// then kept as `<id>.failed.json` (with the reason) for `stats`, the Sessions view and SessionStart to report.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataFolderOf } from '../store/data-folder.ts';
import type { HookEvent, HookPayload } from './payload.ts';

export const SPOOL_MAX_TRIES = 5;

export interface SpoolEntry {
  version: 1;
  id: string;
  event: HookEvent;
  session_id: string | null;
  project: string;
  agent: string | null;
  payload: HookPayload;
  /** When the hook fired (ISO): the stored records carry this time, so late storage keeps their order. */
  captured_at: string;
  /** Whether `<id>.transcript` holds the transcript's bytes (a capture refused before they were read has none). */
  has_transcript: boolean;
  tries: number;
  last_error: string | null;
}

export interface SpooledCapture extends Pick<SpoolEntry, 'id' | 'event' | 'session_id' | 'project' | 'captured_at' | 'tries' | 'last_error'> {
  state: 'waiting' | 'failed';
}

export const spoolDir = (dbPath: string) => join(dataFolderOf(dbPath), 'hooks', 'spool');

const writeAtomic = (file: string, data: string | Uint8Array) => {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  renameSync(tmp, file);
};

/**
 * Keeps a capture on disk. For Stop and SessionEnd a newer capture of the same session replaces a waiting one (it
 * holds the same transcript, longer); every PreCompact is its own capture.
 */
export function spoolCapture(
  dbPath: string,
  c: { payload: HookPayload; project: string; agent?: string | null; captured_at: string; transcript: Uint8Array | null; error: string; failed?: boolean },
): SpoolEntry {
  const dir = spoolDir(dbPath);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const p = c.payload;
  const key = createHash('sha256').update(p.session_id ?? '').digest('hex').slice(0, 12);
  const id = `${Date.parse(c.captured_at) || Date.now()}-${p.event}-${key}-${randomBytes(3).toString('hex')}`;
  if (p.event !== 'PreCompact' && !c.failed) {
    for (const e of readEntries(dir)) {
      if (e.state !== 'waiting' || e.entry.event !== p.event || e.entry.session_id !== p.session_id || e.entry.project !== c.project) continue;
      // Claimed by the rename first: an entry another process is storing right now is left to it.
      const gone = `${e.file}.superseded-${process.pid}`;
      try {
        renameSync(e.file, gone);
      } catch {
        continue;
      }
      removeEntry(dir, e.entry.id);
      rmSync(gone, { force: true });
    }
  }
  const entry: SpoolEntry = { version: 1, id, event: p.event, session_id: p.session_id, project: c.project, agent: c.agent ?? null, payload: p, captured_at: c.captured_at, has_transcript: c.transcript !== null, tries: 0, last_error: c.error };
  if (c.transcript) writeAtomic(join(dir, `${id}.transcript`), c.transcript);
  writeAtomic(join(dir, `${id}${c.failed ? '.failed' : ''}.json`), JSON.stringify(entry));
  return entry;
}

function removeEntry(dir: string, id: string): void {
  for (const f of [`${id}.json`, `${id}.transcript`, `${id}.failed.json`]) rmSync(join(dir, f), { force: true });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function readEntries(dir: string): { entry: SpoolEntry; state: 'waiting' | 'failed' | 'claimed'; file: string }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: { entry: SpoolEntry; state: 'waiting' | 'failed' | 'claimed'; file: string }[] = [];
  for (const name of names.sort()) {
    let state: 'waiting' | 'failed' | 'claimed';
    let file = join(dir, name);
    if (name.endsWith('.failed.json')) state = 'failed';
    else if (name.endsWith('.json')) state = 'waiting';
    else {
      const claim = /^(.*)\.json\.claimed-(\d+)$/.exec(name);
      if (!claim) continue;
      // A claim whose process died (killed mid-store: its transaction rolled back) is waiting again.
      if (!alive(Number(claim[2]))) {
        const back = join(dir, `${claim[1]}.json`);
        try {
          renameSync(file, back);
          file = back;
          state = 'waiting';
        } catch {
          continue;
        }
      } else state = 'claimed';
    }
    try {
      out.push({ entry: JSON.parse(readFileSync(file, 'utf8')) as SpoolEntry, state, file });
    } catch {
      // a half-visible entry (never: entries are renamed into place) or one removed meanwhile
    }
  }
  return out;
}

/** What is waiting or has failed, oldest first (a claimed entry is being stored right now and counts as waiting). */
export function spooledCaptures(dbPath: string): SpooledCapture[] {
  const dir = spoolDir(dbPath);
  if (!existsSync(dir)) return [];
  return readEntries(dir).map(({ entry: e, state }) => ({ id: e.id, event: e.event, session_id: e.session_id, project: e.project, captured_at: e.captured_at, tries: e.tries, last_error: e.last_error, state: state === 'failed' ? 'failed' : 'waiting' }));
}

/** One line for `stats`, SessionStart and the hooks log; null when nothing waits and nothing failed. */
export function spoolNotice(dbPath: string): string | null {
  const all = spooledCaptures(dbPath);
  if (all.length === 0) return null;
  const waiting = all.filter((c) => c.state === 'waiting');
  const failed = all.filter((c) => c.state === 'failed');
  const parts: string[] = [];
  if (waiting.length) parts.push(`${waiting.length} waiting to be stored (oldest captured ${waiting[0]!.captured_at}; the next hook or command stores ${waiting.length === 1 ? 'it' : 'them'}, or \`contextpack hook drain\`)`);
  if (failed.length) parts.push(`${failed.length} failed (latest: ${failed.at(-1)!.event}: ${failed.at(-1)!.last_error ?? 'unknown error'}; \`contextpack hook drain --retry-failed\` tries again)`);
  return `hook captures: ${parts.join('; ')}`;
}

export interface DrainReport {
  stored: number;
  failed: number;
  waiting: number;
}

/**
 * Stores what waits, oldest first. `store` runs one capture (given the path of its transcript bytes) and throws on
 * failure; `isBusy` says whether a failure only means "not now" (the entry waits, untried) or counts as a try.
 */
export function drainSpool(
  dbPath: string,
  store: (entry: SpoolEntry, transcriptFile: string | null) => void,
  classify: (err: unknown) => 'busy' | 'retry' | 'fatal',
  opts: { retryFailed?: boolean } = {},
): DrainReport {
  const dir = spoolDir(dbPath);
  const report: DrainReport = { stored: 0, failed: 0, waiting: 0 };
  if (!existsSync(dir)) return report;
  if (opts.retryFailed) {
    for (const { entry, state, file } of readEntries(dir)) {
      if (state !== 'failed' || !entry.has_transcript) continue;
      writeAtomic(join(dir, `${entry.id}.json`), JSON.stringify({ ...entry, tries: 0 }));
      rmSync(file, { force: true });
    }
  }
  for (const { entry, state, file } of readEntries(dir)) {
    if (state !== 'waiting') continue;
    const claimed = `${file}.claimed-${process.pid}`;
    try {
      renameSync(file, claimed);
    } catch {
      continue; // another process took it
    }
    const transcript = entry.has_transcript ? join(dir, `${entry.id}.transcript`) : null;
    try {
      store(entry, transcript);
      rmSync(claimed, { force: true });
      if (transcript) rmSync(transcript, { force: true });
      report.stored++;
    } catch (err) {
      const kind = classify(err);
      const busy = kind === 'busy';
      const next: SpoolEntry = { ...entry, tries: entry.tries + (busy ? 0 : 1), last_error: (err as Error).message };
      const dead = kind === 'fatal' || (!busy && (next.tries >= SPOOL_MAX_TRIES || !entry.has_transcript));
      writeAtomic(join(dir, `${entry.id}${dead ? '.failed' : ''}.json`), JSON.stringify(next));
      rmSync(claimed, { force: true });
      if (dead) report.failed++;
      else report.waiting++;
      // A busy store will be as busy for the next entry: leave the rest for later.
      if (busy) break;
    }
  }
  return report;
}

/** Removes the failed entries (after the user has read them); returns how many. */
export function clearFailedCaptures(dbPath: string): number {
  const dir = spoolDir(dbPath);
  let n = 0;
  for (const { entry, state } of readEntries(dir)) {
    if (state !== 'failed') continue;
    removeEntry(dir, entry.id);
    n++;
  }
  return n;
}

/** Cheap check (one stat) for callers that drain only when something waits. */
export function spoolHasEntries(dbPath: string): boolean {
  try {
    return readdirSync(spoolDir(dbPath)).some((n) => n.endsWith('.json') && !n.endsWith('.failed.json'));
  } catch {
    return false;
  }
}
