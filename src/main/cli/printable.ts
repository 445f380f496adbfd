/**
 * A value for one line of terminal output: control characters (a newline or an escape sequence in a file name) are
 * shown as JSON-style escapes, so a hostile or unlucky name can neither split a record nor drive the terminal.
 */
export { escapeControls as printable } from '../../shared/text-escape.ts';
