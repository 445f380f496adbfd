// Which folder a hook's session belongs to. The payload's `cwd` picks the project store the session is written into,
// but anything may write a payload: a spoofed `cwd` would file one project's session in another project's store. The
// transcript records its own working folder (Claude Code and pi: a top-level `cwd` on its entries; Codex: `cwd` in the
// `session_meta` and `turn_context` payloads), so the payload's `cwd` is checked against it. Light on purpose
// (node:fs only, a bounded read of the file's head and tail): the hook's detach path runs it before it returns.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';

/** Bytes read from each end of the transcript: its first entries name the session's folder, its last ones the current. */
const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 256 * 1024;

/** The working folders the transcript records, in order, each once; [] when it records none or cannot be read. */
export function transcriptCwds(path: string): string[] {
  let fd: number;
  try {
    // Non-blocking, and only a regular file: a FIFO named as the transcript must not hold the hook.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  } catch {
    return [];
  }
  let text: string;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return [];
    const read = (at: number, n: number) => {
      const buf = Buffer.allocUnsafe(n);
      let got = 0;
      while (got < n) {
        const k = readSync(fd, buf, got, n - got, at + got);
        if (k === 0) break;
        got += k;
      }
      return buf.subarray(0, got).toString('utf8');
    };
    text = st.size <= HEAD_BYTES + TAIL_BYTES ? read(0, st.size) : `${read(0, HEAD_BYTES)}\n${read(st.size - TAIL_BYTES, TAIL_BYTES)}`;
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
  const seen: string[] = [];
  for (const line of text.split('\n')) {
    // Whole JSON lines only (a line cut at the head or tail boundary does not parse and is passed over).
    if (!line.includes('"cwd"')) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const cwd = entryCwd(entry);
    if (cwd && !seen.includes(cwd)) seen.push(cwd);
  }
  return seen;
}

/** An entry's own folder: top-level `cwd`, or Codex's `payload.cwd`; never a `cwd` inside a tool call's arguments. */
function entryCwd(entry: unknown): string | null {
  if (!entry || typeof entry !== 'object') return null;
  const e = entry as Record<string, unknown>;
  if (typeof e.cwd === 'string' && e.cwd !== '') return e.cwd;
  const p = e.payload as Record<string, unknown> | undefined;
  if ((e.type === 'session_meta' || e.type === 'turn_context') && p && typeof p.cwd === 'string' && p.cwd !== '') return p.cwd;
  return null;
}

export interface SessionFolder {
  /** The folder that picks the project: the payload's, unless the transcript contradicts it. */
  cwd: string | null;
  /** Set when the payload's `cwd` is not one the transcript records (said in the hook log). */
  mismatch: string | null;
}

/**
 * The payload's `cwd` when the transcript records that folder, or one that `sameProject` files under the same project
 * (the agent moved to a subfolder), or records none, or cannot be read: nothing to compare it with. Otherwise the
 * folder the transcript last records, so the session goes to the project it was held in.
 */
export function sessionFolder(payloadCwd: string | null, transcriptPath: string | null, sameProject: (a: string, b: string) => boolean = () => false): SessionFolder {
  const recorded = transcriptPath ? transcriptCwds(transcriptPath) : [];
  if (recorded.length === 0) return { cwd: payloadCwd, mismatch: null };
  const last = recorded[recorded.length - 1]!;
  if (payloadCwd === null) return { cwd: last, mismatch: null };
  const given = resolve(payloadCwd);
  if (recorded.some((r) => resolve(r) === given) || recorded.some((r) => sameProject(given, resolve(r)))) return { cwd: payloadCwd, mismatch: null };
  return { cwd: last, mismatch: `payload cwd ${payloadCwd} is not the transcript's (${last}); the session is filed by the transcript's` };
}
