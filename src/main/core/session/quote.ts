// Structure comes only from the renderer (issue #33 item 2). Transcript text reaches handoffs, compaction output and
// what SessionStart injects; a user message, a fetched page or a tool output may hold lines such as `## next_actions`,
// `# HANDOFF PACKAGE (continuation)` or `- from_agent_id: …`. Such text is shown in one of two ways, never raw:
// - quoted (multi-line turns): between a begin and an end marker; inside, every line that could read as structure (a
//   heading, a list item, a quote, a fence, a comment, a line of our own labels or markers, a turn's start, a leading
//   backslash) starts with a backslash, the Markdown escape. Every other line stays as written: prefixing every line
//   cost 8–16 % more tokens on real transcripts (a ">" a line), escaping only these costs 0.5–3 %;
// - inline (a field value: a task, a decision, an error): one line, its line breaks folded and control characters
//   escaped (shared/text-escape.ts), after a prefix of the renderer's own (`- `, `TASK: `, `Rationale: `).
import { escapeControls } from '../../../shared/text-escape.ts';

export const QUOTE_BEGIN = '[quoted transcript, "\\" escapes structure]';
export const QUOTE_END = '[end of quote]';

/**
 * A line of quoted text that could be taken for structure: Markdown block syntax, our labels (the preserved block's,
 * the handoff's metadata keys), our markers, and a turn's start (`[time] role:`, `role:`, `tool result:`).
 */
const RISKY =
  /^\s*(?:#|>|<!--|```|~~~|[-*+•]\s|\d+[.)]\s|\||\[|\\|(?:TASK|Progress|Next actions|Blockers|Status|Source|DECISION|ERROR|TODO|Rationale|Alternatives)\b)|^(?:\[[^\]]*\]\s*)?(?:user|assistant|system|tool|human|ai|[\w.-]+ result|assistant → \S+)(?: \(error\))?\s*:/i;

/** A field value as one inert line: line breaks (and the Unicode separators) become spaces, other controls escapes. */
export function inline(text: string): string {
  return escapeControls(text.includes('\n') || text.includes('\r') || /[\u2028\u2029\u0085]/.test(text) ? text.replace(/[ \t]*(?:\r\n|[\r\n\u2028\u2029\u0085])[ \t]*/g, ' ') : text);
}

/** One line of quoted text: controls escaped, no blanks at its end (a stored package drops them), a risky line escaped. */
export function quoteLine(line: string): string {
  const l = escapeControls(line.replace(/[ \t\r]+$/, ''));
  return RISKY.test(l) ? `\\${l}` : l;
}

/** One rendered turn (`[time] role: text…`): its first line is the renderer's; every further line is quoted. */
export function quoteTurn(rendered: string): string {
  const lines = rendered.split('\n');
  let out = escapeControls(lines[0]!.replace(/[ \t\r]+$/, ''));
  for (let i = 1; i < lines.length; i++) out += `\n${quoteLine(lines[i]!)}`;
  return out;
}

/** Rendered turns as one quoted block between the markers. */
export function quoteTurns(rendered: string[]): string {
  return `${QUOTE_BEGIN}\n${rendered.map(quoteTurn).join('\n')}\n${QUOTE_END}`;
}

/** Any text that may hold transcript words (an agent's plan or report), every line quoted, between the markers. */
export function quoteText(text: string): string {
  return `${QUOTE_BEGIN}\n${text.split('\n').map(quoteLine).join('\n')}\n${QUOTE_END}`;
}

/** Multi-line text of transcript words inside a section of ours (the suggested approach): its lines quoted, no markers. */
export function quoteLines(text: string): string {
  return text.split('\n').map(quoteLine).join('\n');
}

/** The words again, for checks that look for them: the escape of quoted lines undone. */
export const unquote = (text: string): string => text.replace(/^\\/gm, '');
