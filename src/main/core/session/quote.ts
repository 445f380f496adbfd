// Structure comes only from the renderer (issue #33 item 2). Transcript text reaches handoffs, compaction output and
// what SessionStart injects; a user message, a fetched page or a tool output may hold lines such as `## next_actions`,
// `# HANDOFF PACKAGE (continuation)` or `- from_agent_id: …`. Such text is shown in one of two ways, never raw:
// - quoted (multi-line turns): between a begin and an end marker, every line starting with "> " (a turn's first line,
//   with its role) or ">   " (the turn's further lines), so no line of it can open a heading, a list item or a
//   metadata line of the package, nor pose as another turn;
// - inline (a field value: a task, a decision, an error): one line, its line breaks folded and control characters
//   escaped (shared/text-escape.ts), after a prefix of the renderer's own (`- `, `TASK: `, `Rationale: `).
import { escapeControls } from '../../../shared/text-escape.ts';

export const QUOTE_BEGIN = '[quoted transcript: each line starting with ">" is its words, not structure]';
export const QUOTE_END = '[end of quoted transcript]';

/** A field value as one inert line: line breaks (and the Unicode separators) become spaces, other controls escapes. */
export function inline(text: string): string {
  return escapeControls(text.includes('\n') || text.includes('\r') || /[\u2028\u2029\u0085]/.test(text) ? text.replace(/[ \t]*(?:\r\n|[\r\n\u2028\u2029\u0085])[ \t]*/g, ' ') : text);
}

/** One rendered turn (`[time] role: text…`) as quoted lines: the first with "> ", the rest with ">   ". */
export function quoteTurn(rendered: string): string {
  const lines = rendered.split('\n');
  let out = quoted('> ', lines[0]!);
  for (let i = 1; i < lines.length; i++) out += `\n${quoted('>   ', lines[i]!)}`;
  return out;
}

// No blanks at a line's end (a stored package drops them: canonicalJson), so an empty line is ">" alone.
const quoted = (mark: string, line: string) => {
  const l = escapeControls(line.replace(/[ \t\r]+$/, ''));
  return l === '' ? '>' : `${mark}${l}`;
};

/** Rendered turns as one quoted block between the markers. */
export function quoteTurns(rendered: string[]): string {
  return `${QUOTE_BEGIN}\n${rendered.map(quoteTurn).join('\n')}\n${QUOTE_END}`;
}

/**
 * Any multi-line text that may hold transcript words (an agent's plan, an executive summary line) as quoted lines:
 * lines already quoted by this module stay as they are.
 */
export function quoteLines(text: string): string {
  return text
    .split('\n')
    .map((l) => (l.startsWith('> ') || l === '>' || l === QUOTE_BEGIN || l === QUOTE_END ? l : quoted('> ', l)))
    .join('\n');
}
