/**
 * A value for one line of terminal output: control characters (a newline or an escape sequence in a file name) are
 * shown as JSON-style escapes, so a hostile or unlucky name can neither split a record nor drive the terminal.
 */
export function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
    return named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
