// Issue #33 item 3: a transcript file is read only when regular and not over the cap, checked before any read.
import { spawnSync } from 'node:child_process';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testing/tmp.ts';
import { readTranscriptFile, readTranscriptPath, TRANSCRIPT_MAX_BYTES, TranscriptError } from './index.ts';

const tmp = tempDirs('cp-readfile-');
afterAll(() => tmp.cleanup());

describe('readTranscriptFile', () => {
  it('reads a regular file', () => {
    const f = join(tmp.make(), 'chat.md');
    writeFileSync(f, '## User\nhi\n');
    expect(readTranscriptFile(f)).toBe('## User\nhi\n');
    expect(readTranscriptPath(f)).toEqual({ text: '## User\nhi\n', path: f });
  });
  it('refuses a FIFO at once (no writer needed) and a file over the cap by its size', () => {
    const fifo = join(tmp.make(), 'session.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(() => readTranscriptFile(fifo)).toThrow(TranscriptError);
    expect(() => readTranscriptFile(fifo)).toThrow(/a FIFO, not a regular file \(refused\)/);
    const big = join(tmp.make(), 'big.jsonl');
    writeFileSync(big, '');
    truncateSync(big, TRANSCRIPT_MAX_BYTES + 1); // sparse: nothing is written, nothing must be read
    expect(() => readTranscriptFile(big)).toThrow(/big\.jsonl: transcript is too long/);
  });
});
