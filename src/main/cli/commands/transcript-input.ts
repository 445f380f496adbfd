import { statSync } from 'node:fs';
import { parseTranscript, readTranscriptPath, TranscriptError, type Transcript } from '../../core/transcripts/index.ts';
import { CliError, readInput, type CommandContext } from '../command.ts';
import { printable } from '../printable.ts';

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * Reads and parses `--transcript FILE` (or `-`, or a Cline / Roo task folder); malformed lines go to stderr as
 * FILE:LINE warnings, the rest is kept.
 */
export async function readTranscriptFlag(ctx: CommandContext, file: string, flag = '--transcript'): Promise<Transcript> {
  let t: Transcript;
  let source = file === '-' ? 'stdin' : file;
  try {
    let text: string;
    if (file !== '-' && isDir(file)) ({ text, path: source } = readTranscriptPath(file));
    else text = await readInput(ctx, file, flag);
    t = parseTranscript(text, source);
  } catch (err) {
    if (err instanceof TranscriptError) throw new CliError(`${flag} ${err.message}`);
    throw err;
  }
  for (const p of t.problems.slice(0, 20)) ctx.io.stderr(`${printable(source)}:${p.line}: ${p.message} (line skipped)\n`);
  if (t.problems.length > 20) ctx.io.stderr(`${printable(source)}: ${t.problems.length - 20} more malformed lines skipped\n`);
  return t;
}
