/*
 * Provenance (a path, an anchor, a title, a label) is data, never structure: wherever it is rendered into a packet,
 * a handoff, a hierarchy or a terminal, it goes through escapeControls. Structure comes only from the renderer: every
 * renderer puts provenance after a prefix of its own (`- `, `├─ `, `[§`, `Source: `), so once it is one line it can
 * never start a Markdown line (a heading, an item, a quote) either.
 */

// C0 controls, DEL and C1 controls (ESC and CSI drive terminals), the Unicode line and paragraph separators, and the
// bidi embeddings, overrides and isolates (they reorder what a reader sees: "Trojan Source").
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * One line of inert text: control characters shown as JSON-style escapes (`\n`, `\u001b`), so a hostile or unlucky
 * name can neither split a line (a fake list item, a `## PROTOCOL` section) nor drive the terminal.
 */
export function escapeControls(s: string): string {
  return s.replace(CONTROL, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
