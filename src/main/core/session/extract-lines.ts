// The lines extract() reads: the transcript's own prose without code blocks, and the blocks and items within it.
import type { Transcript, TranscriptTurn } from '../transcripts/index.ts';
import { isSubAgentFile, oneLine } from './requests.ts';
import type { Provenance, Line } from './extraction.ts';
import { DECISION, ISSUE_KEY, TODO, TASK, NONE, ACCEPTANCE, LEARNING, FENCE } from './extract-patterns.ts';

/**
 * The work bound of extraction and compaction (issue #33): the newest this many turns are read line by line in full.
 * Older prose turns are read only when they can hold a marker at all (MAYBE_MARKER): a history of 10^6 one-word turns
 * must not become 10^6 line records.
 */
export const WINDOW_TURNS = 20_000;
/** Whatever any prose pattern of extract-patterns.ts needs to match: a colon, a percent, a check mark, a word. */
const MAYBE_MARKER = /[:%✓✔☑✅⧖⏳🔄☐⬜#[]|\b(?:decided|chose|because|since|instead|rather|over|rejected|next|remaining|pending|outstanding|blocked|lesson|learn|todo|bug-|issue-)/i;

/** The prose a transcript's own authors wrote, line by line, without code blocks. */
export function linesOf(t: Transcript): Line[] {
  const out: Line[] = [];
  const md = t.format === 'markdown-chat' || t.format === 'aider';
  const sub = isSubAgentFile(t);
  const windowStart = Math.max(0, t.turns.length - WINDOW_TURNS);
  for (const turn of t.turns) {
    if (turn.origin === 'injected' || (turn.origin === 'sidechain' && !sub)) continue;
    if (turn.index < windowStart && !MAYBE_MARKER.test(turn.text)) continue;
    let from: Line['from'] = turn.origin === 'compact_summary' ? 'compact_summary' : 'text';
    if (turn.kind === 'tool_use') {
      if (turn.text.startsWith('Todo list:\n')) from = 'todo_list';
      else if (turn.text.startsWith('Plan:\n') && planApproved(t, turn)) from = 'plan';
      else continue;
    } else if (turn.kind !== 'text') continue;
    const agent = turn.role !== 'user' || from !== 'text';
    let inFence = false;
    turn.text.split('\n').forEach((text, i) => {
      if (FENCE.test(text)) {
        inFence = !inFence;
        return;
      }
      if (!inFence) out.push({ text, turn, line: md ? turn.line + 1 + i : turn.line, offset: i, from, agent });
    });
  }
  return out;
}

/** An ExitPlanMode plan counts once the user approved it (the tool's result says so). */
export function planApproved(t: Transcript, call: TranscriptTurn): boolean {
  const r = t.turns.find((x) => x.kind === 'tool_result' && (call.tool_use_id ? x.tool_use_id === call.tool_use_id : x.index === call.index + 1));
  return !!r && !r.is_error && /\bapproved\b/i.test(r.text);
}

export const prov = (l: Line): Provenance => ({ turn: l.turn.index, line: l.line, ts: l.turn.ts });

/** The block that starts at lines[i]: the line and what follows it in the same turn until a blank line (at most max lines). */
export function blockAt(lines: Line[], i: number, max = 12): Line[] {
  const out = [lines[i]!];
  for (let j = i + 1; j < lines.length && out.length < max; j++) {
    const l = lines[j]!;
    if (l.turn !== lines[i]!.turn || l.text.trim() === '') break;
    // Another marker starts its own element.
    if (DECISION.test(l.text) || TODO.test(l.text) || TASK.test(l.text) || ACCEPTANCE.test(l.text) || LEARNING.test(l.text)) break;
    if (ISSUE_KEY.test(l.text) && !l.text.includes(lines[i]!.text.match(ISSUE_KEY)?.[1] ?? '\0')) break;
    out.push(l);
  }
  return out;
}

/** "a, b; c and d" as items: split on ; always, on commas when every piece reads as an item of its own. */
export function splitItems(s: string): string[] {
  const text = s.replace(/\*\*/g, '').trim().replace(/[.;]$/, '');
  if (text === '') return [];
  const semi = text.split(/\s*;\s*/);
  const parts = semi.length > 1 ? semi : text.split(/,\s+(?![^()]*\))/);
  const items = parts.length > 1 && parts.every((p) => p.split(' ').length >= 2) ? parts : [text];
  return items.map((x) => oneLine(x.replace(/^(and|then)\s+/i, ''))).filter((x) => x !== '' && !NONE.test(x));
}

export function pathOf(text: string): string | null {
  const p = /\*\*\* (?:Update|Add|Delete) File:\s*([^\s\\"]+)/.exec(text);
  if (p) return p[1]!;
  const m = /\b(?:file_path|path|filename|file):\s*([^\s\\"]+)/.exec(text);
  return m ? m[1]! : null;
}
