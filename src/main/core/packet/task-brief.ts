// The TASK a packet shows for a task longer than its room. Seed 000: the assembler never trims TASK; a task over its
// size "must be compressed before assembly". An issue handed over whole (issue #32) can be 100,000 characters, and a
// packet must stay within max_tokens, so this is that step: the whole task still feeds retrieval (assemble.ts
// retrievalText) and is kept in the packet's inputs; only the text TASK shows is shortened, and it says so.
import { taskLines, type TaskLine } from '../search/task-terms.ts';
import { AO_V1 } from './templates.ts';

/** The least room a task gets in a layered packet (chars): seed 000's TASK maximum. */
export const TASK_SHOWN_MIN = 5_000;

/** What the TASK section's own text adds around the task (its heading and sub-heading). */
const AO_TASK_FRAME = 64;

/**
 * Room for the task in a packet of `maxTokens`. ao-v1: the template's TASK maximum, scaled with the packet as the
 * layout scales it (5,000 chars at its 28,000-char target), so the layout's own check never finds TASK over it.
 * layered-v1, whose TASK layer has a floor but no maximum: 40 % of the packet at 4 chars a token, never less than
 * seed 000's 5,000 and never more than half the packet, so evidence keeps room beside the longest issue.
 */
export function taskRoomChars(template: 'ao-v1' | 'layered-v1', maxTokens: number): number {
  if (template === 'ao-v1') {
    const spec = AO_V1.sections.find((s) => s.name === 'TASK')!;
    return Math.round((spec.max * maxTokens * AO_V1.charsPerToken) / AO_V1.totalTarget) - AO_TASK_FRAME;
  }
  const packet = maxTokens * 4;
  return Math.floor(Math.min(Math.max(TASK_SHOWN_MIN, packet * 0.4), packet * 0.5));
}

/** A run of code longer than this keeps its head and tail (a traceback's first frames and its error). */
const CODE_RUN_MAX = 12;
const CODE_RUN_HEAD = 4;
const CODE_RUN_TAIL = 6;

/**
 * The task as TASK shows it within `room` characters: whole when it fits; else, in this order, without environment
 * output (version lists, `pip freeze`, show_versions dumps), with long code runs cut to their head and tail, and at
 * last cut after the line that fills the room. Lines are kept whole and in order; a final note says what was left
 * out. Deterministic: a function of the text and the room alone.
 */
export function briefTask(task: string, room: number): { text: string; shortened: boolean } {
  const text = task.trim();
  if (text.length <= room) return { text, shortened: false };
  const lines = taskLines(text);
  const noise = lines.filter((l) => l.kind === 'noise').length;
  let kept = lines.filter((l) => l.kind !== 'noise');
  let cutRuns = 0;
  if (size(kept) > room) {
    const r = cutCodeRuns(kept);
    kept = r.lines;
    cutRuns = r.cut;
  }
  const total = text.length;
  const note = (shown: number, cutAt: boolean) => {
    const parts = [`${shown.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} characters shown`];
    if (noise > 0) parts.push(`${noise} lines of environment output left out`);
    if (cutRuns > 0) parts.push(`${cutRuns} long code block${cutRuns === 1 ? '' : 's'} cut to head and tail`);
    if (cutAt) parts.push('the rest cut');
    return `[task shortened to fit the packet: ${parts.join('; ')}; the whole task was searched]`;
  };
  const budget = room - note(total, true).length - 1;
  const out: string[] = [];
  let used = 0;
  let cut = false;
  for (const l of kept) {
    if (used + l.text.length + 1 > budget) {
      cut = true;
      break;
    }
    out.push(l.text);
    used += l.text.length + 1;
  }
  // An unclosed fence would turn the note into code.
  if (out.filter((l) => /^\s*(```+|~~~+)/.test(l)).length % 2 === 1) out.push('```');
  const body = out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd();
  return { text: `${body}\n\n${note(body.length, cut)}`, shortened: true };
}

function size(lines: TaskLine[]): number {
  return lines.reduce((s, l) => s + l.text.length + 1, 0);
}

/** Runs of code lines over CODE_RUN_MAX keep their head and tail, with a line saying how many were left out. */
function cutCodeRuns(lines: TaskLine[]): { lines: TaskLine[]; cut: number } {
  const out: TaskLine[] = [];
  let cut = 0;
  for (let i = 0; i < lines.length; ) {
    if (lines[i]!.kind !== 'code') {
      out.push(lines[i]!);
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && lines[j]!.kind === 'code') j++;
    const run = lines.slice(i, j);
    if (run.length > CODE_RUN_MAX) {
      cut++;
      const indent = /^\s*/.exec(run[CODE_RUN_HEAD]!.text)![0];
      out.push(...run.slice(0, CODE_RUN_HEAD), { text: `${indent}⋯ (${run.length - CODE_RUN_HEAD - CODE_RUN_TAIL} lines left out)`, kind: 'code' }, ...run.slice(-CODE_RUN_TAIL));
    } else out.push(...run);
    i = j;
  }
  return { lines: out, cut };
}
