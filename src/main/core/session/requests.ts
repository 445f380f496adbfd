// The user's requests in a transcript: what the user typed (or a slash command with arguments), never what the
// harness put in the user's place, what a sub-agent was told, an agent's compaction summary, or a redacted line.
import type { Transcript, TranscriptTurn } from '../transcripts/index.ts';

export interface UserRequest {
  text: string;
  /** The request on one line, whole sentences within 600 characters (sentences()): the task's form. */
  line: string;
  turn: number;
  /** Source line of the request. */
  at_line: number;
  ts: string | null;
  /** A short reply ("yes", "ok, go ahead") that approves what the agent proposed rather than asking for something new. */
  ack: boolean;
}

const ACK = /^(y|yes|yeah|yep|yup|ok(ay)?|k|sure|go|go ahead|go on|continue|proceed|do it|please do|sounds good|lgtm|looks good|great|perfect|nice|cool|thanks?( you)?|thx|ty|right|correct|agreed|approved?|\d{1,2})[\s.!,]*(please|thanks|thank you)?[\s.!]*$/i;
const GREETING = /^(hi|hello|hey|yo|hallo|안녕|방가)\S*[\s.!]*$/i;
/** Markers redaction leaves (ours and common upstream ones): a line made of them says nothing. */
const REDACTED_MARK = /\[REDACTED(?:[:_ ][^\]]*)?\]/g;

export const oneLine = (s: string, max = 300) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/**
 * The text on one line, cut only between sentences: as many whole sentences as fit in `max` characters, or, when the
 * first alone is longer, its words up to `max` with an ellipsis (never a cut inside a word).
 */
export function sentences(s: string, max = 600): string {
  const t = s.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  let out = '';
  for (const m of t.matchAll(/[^.!?]+(?:[.!?]+(?:["')\]]+)?|$)\s*/g)) {
    if ((out + m[0]).trimEnd().length > max) break;
    out += m[0];
  }
  if (out.trim() !== '') return `${out.trimEnd()} …`;
  const cut = t.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

/**
 * The end of a text, on one line: as many whole lines (else sentences) from its end as fit in `max` characters. An
 * agent's report says what it did and what is next at its end.
 */
export function tailSentences(s: string, max = 1_200): string {
  const lines = s.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  let out = '';
  for (let i = lines.length - 1; i >= 0; i--) {
    const next = out === '' ? lines[i]! : `${lines[i]!} ${out}`;
    if (next.length > max) break;
    out = next;
  }
  if (out !== '') return out.length < s.replace(/\s+/g, ' ').trim().length ? `… ${out}` : out;
  const last = lines.at(-1) ?? '';
  const parts = last.match(/[^.!?]+(?:[.!?]+|$)\s*/g) ?? [last];
  for (let i = parts.length - 1; i >= 0; i--) {
    const next = `${parts[i]!.trim()} ${out}`.trim();
    if (next.length > max) break;
    out = next;
  }
  return out !== '' ? `… ${out}` : `… ${last.slice(-(max - 2))}`;
}

/** True when little but redaction markers is left of the text (upstream-redacted transcripts, or a secret-only line). */
export function isRedactedText(text: string): boolean {
  if (!REDACTED_MARK.test(text)) return false;
  REDACTED_MARK.lastIndex = 0;
  const rest = text.replace(REDACTED_MARK, ' ').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  return rest.split(' ').filter((w) => w.length > 1).length < 3;
}

/** The turns of a transcript the user wrote. A file that is all sidechain (a sub-agent's own transcript) counts its prompts. */
export function isUserRequestTurn(turn: TranscriptTurn, subAgentFile: boolean): boolean {
  if (turn.role !== 'user' || turn.kind !== 'text') return false;
  if (turn.origin === undefined) return true;
  // A slash command asks for something when its arguments say what (`/ask why …`, `/orchestrator update the docs`),
  // not when they only name files (`/add app.py`) or there are none (`/commit`).
  if (turn.origin === 'command') return (/^\/\S+\s+([\s\S]*)$/.exec(turn.text)?.[1] ?? '').replace(/(?:^|\s)(?:@?[\w./\\-]+\.\w+|@\S+)(?=\s|$)/g, ' ').trim().length >= 10;
  return turn.origin === 'sidechain' && subAgentFile;
}

export const isSubAgentFile = (t: Transcript) => t.turns.length > 0 && t.turns.every((x) => x.origin === 'sidechain' || x.origin === 'injected');

/**
 * The user's requests in order. `redacted` says whether a text would leave the gate as (mostly) redaction markers:
 * such a request is never the task.
 */
export function userRequests(t: Transcript, redacted: (s: string) => boolean = () => false): UserRequest[] {
  const sub = isSubAgentFile(t);
  const out: UserRequest[] = [];
  for (const turn of t.turns) {
    const r = requestOf(turn, sub, redacted);
    if (r) out.push(r);
  }
  return out;
}

/**
 * What the task state reads of the requests (task-state.ts): the first substantive one and the tail from the
 * second-to-last substantive one on, in order. Linear, without a record per request: a history of 10^6 turns has
 * half a million of them.
 */
export function userRequestEnds(t: Transcript, redacted: (s: string) => boolean = () => false): UserRequest[] {
  const sub = isSubAgentFile(t);
  const tail: UserRequest[] = [];
  let substantive = 0;
  let i = t.turns.length - 1;
  for (; i >= 0 && substantive < 2; i--) {
    const r = requestOf(t.turns[i]!, sub, redacted);
    if (!r) continue;
    tail.push(r);
    if (!r.ack) substantive++;
  }
  tail.reverse();
  for (let j = 0; j <= i; j++) {
    const r = requestOf(t.turns[j]!, sub, redacted);
    if (r && !r.ack) return [r, ...tail];
  }
  return tail;
}

function requestOf(turn: TranscriptTurn, sub: boolean, redacted: (s: string) => boolean): UserRequest | null {
  if (!isUserRequestTurn(turn, sub)) {
    // A bare command (`/commit`, `/ai-commit`) is the user's last act without being a request: kept as an ack.
    if (turn.role === 'user' && turn.kind === 'text' && turn.origin === 'command' && /^\/\S/.test(turn.text)) return { text: turn.text, line: oneLine(turn.text, 300), turn: turn.index, at_line: turn.line, ts: turn.ts, ack: true };
    return null;
  }
  const text = turn.text.trim();
  if (text === '' || isRedactedText(text) || redacted(text)) return null;
  // The whole request on one line (a first line like "look at ~/.claude/projects" rarely says it all), bounded.
  return { text, line: sentences(text, 600), turn: turn.index, at_line: turn.line, ts: turn.ts, ack: ACK.test(text) || GREETING.test(text) };
}
