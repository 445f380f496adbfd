import { statSync } from 'node:fs';
import type { TranscriptRead } from '../../../shared/api/index.ts';
import { readTranscriptFile, readTranscriptPath, TRANSCRIPT_MAX_BYTES, TranscriptError } from '../../core/transcripts/index.ts';
import { CliError, type CommandContext } from '../command.ts';
import { printable } from '../printable.ts';

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * Reads `--transcript FILE` (or `-`, or a Cline / Roo task folder) as the API's `transcript` input. The API parses it
 * (once) and answers the lines it skipped, which transcriptWarnings says.
 */
export async function readTranscriptInput(ctx: CommandContext, file: string, flag = '--transcript'): Promise<{ name: string; text: string }> {
  try {
    if (file !== '-' && isDir(file)) {
      const { text, path } = readTranscriptPath(file);
      return { name: path, text };
    }
    // Bounded while read: stdin no further than a transcript can be, a file only when regular and not over that size
    // (the API refuses what is over its character cap either way; a FIFO would hold the command for ever).
    if (file === '-') return { name: 'stdin', text: await ctx.io.readStdin(TRANSCRIPT_MAX_BYTES + 1) };
    try {
      return { name: file, text: readTranscriptFile(file) };
    } catch (err) {
      if (err instanceof TranscriptError) throw err;
      throw new CliError(`${flag} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  } catch (err) {
    if (err instanceof TranscriptError) throw new CliError(`${flag} ${err.message}`);
    throw err;
  }
}

/** Malformed lines as FILE:LINE warnings on stderr (the first 20, then how many more); the rest was kept. */
export function transcriptWarnings(ctx: CommandContext, read: TranscriptRead | undefined): void {
  if (!read) return;
  for (const p of read.problems.slice(0, 20)) ctx.io.stderr(`${printable(read.name)}:${p.line}: ${p.message} (line skipped)\n`);
  if (read.problems.length > 20) ctx.io.stderr(`${printable(read.name)}: ${read.problems.length - 20} more malformed lines skipped\n`);
}
