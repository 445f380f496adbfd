// A hook's transcript file: only a regular file, read no further than the hook's cap. Light on purpose (node:fs only):
// the hook's detach path runs it before it returns to the agent.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { TRANSCRIPT_MAX } from '../../../shared/limits.ts';
import { HookInputError } from './payload.ts';

/**
 * The most bytes a transcript within the cap can take (a UTF-16 code unit is at most 3 bytes of UTF-8): a larger file
 * would only be read to be refused by parseTranscript.
 */
export const MAX_TRANSCRIPT_BYTES = 3 * TRANSCRIPT_MAX;

/**
 * A transcript's bytes, at most `maxBytes` (its size when the hook fired) and never past the hook's cap. Only a
 * regular file is read: a FIFO, socket or device is refused at once (opened non-blocking, so a FIFO without a writer
 * cannot hold the open either), and the read stops at the cap instead of reading what it would refuse.
 */
export function readTranscriptBytes(path: string, label: string, maxBytes?: number): Buffer {
  const { fd, st } = openRegular(path, label);
  try {
    const want = Math.min(st.size, maxBytes ?? st.size);
    if (want > MAX_TRANSCRIPT_BYTES) throw new HookInputError(`transcript ${label}: ${want} bytes, over the hook's limit of ${MAX_TRANSCRIPT_BYTES}`);
    const buf = Buffer.allocUnsafe(want);
    let got = 0;
    while (got < want) {
      const n = readSync(fd, buf, got, want - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** The file's size, after the same refusal of anything but a regular file (no read, no open of a FIFO). */
export function transcriptSize(path: string, label: string): number {
  const { fd, st } = openRegular(path, label);
  closeSync(fd);
  return st.size;
}

/** Opens `path` non-blocking and keeps it open only when it is a regular file; anything else is refused, named. */
function openRegular(path: string, label: string): { fd: number; st: Stats } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  } catch (err) {
    throw new HookInputError(`transcript ${label}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new HookInputError(`transcript ${label}: ${kindOf(st)}, not a regular file (refused)`);
    return { fd, st };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function kindOf(st: Stats): string {
  return st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : st.isDirectory() ? 'a folder' : 'not a regular file';
}
