import { LINE_WINDOW, MAX_JUDGED_VALUE } from './bounds.ts';
import { compileRe2 } from './re2-compile.ts';
import { SECRET_KEY_NAME } from './key-names.ts';
import { capitalisedWords, isCode, isPlaceholder, keyIsMeta } from './value-check.ts';
import type { Matcher } from './types.ts';

/*
 * Values that continue past their key's line. "A line is the unit" still holds: every line that holds part of
 * the value is redacted whole. What opens a value (always on a line naming a sensitive key):
 * - YAML block scalars `password: |` / `key: >-` → every following line indented deeper (blank lines included);
 * - TOML / Python triple quotes `password = """` → every line through the closing `"""` / `'''`;
 * - a JS template literal or a quoted string left open (`token: "abc` / `` secret = `abc ``) → through the closing quote;
 * - a key with nothing after it (`password:`, `"password":`, `PASSWORD = (`, `secret =`) → the next line is the
 *   value, and so is every following line indented deeper than the key (YAML plain continuation, a Python dict
 *   value split over lines), each judged as a value: a nested mapping, code or a placeholder is left alone;
 * - a sensitive line ending in a backslash → the next line continues it.
 */

export type Pending =
  | { kind: 'block'; indent: number }
  | { kind: 'until'; delim: string }
  | { kind: 'next'; indent: number; seen: boolean }
  | { kind: 'cont' };

export interface Opening {
  pending: Pending;
  /** The opening line itself holds part of the value (text after an open quote). */
  redactSelf: boolean;
}

const KEY = `(?:["'\`]?(${SECRET_KEY_NAME})["'\`]?)`;
const LEAD = '^(\\s*)(?:-\\s+)?(?:(?:export|const|let|var|final|private|public|static|readonly|val|set)\\s+)*';

let compiled: { block: Matcher; triple: Matcher; open: Matcher; dangling: Matcher } | null = null;
function matchers() {
  compiled ??= {
    block: compileRe2(`${LEAD}${KEY}\\s*:\\s*[|>][-+0-9]*\\s*(?:#.*)?$`, 'i'),
    triple: compileRe2(`${KEY}\\s*(?:=|:)\\s*[rRbBuUfF]{0,2}("""|''')(.*)$`, 'i'),
    open: compileRe2(`${KEY}\\s*(?:=|:|=>)\\s*(["'\`])([^"'\`]*)$`, 'i'),
    dangling: compileRe2(`${LEAD}${KEY}\\s*(?::|=|:=|=>)\\s*[(\\\\+]?\\s*(?:#.*|//.*)?$`, 'i'),
  };
  return compiled;
}

export function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  return i;
}

const CLOSES = /[:=(|>\\+"'`-]\s*(?:#.*|\/\/.*)?$|[:=]\s*[|>][-+0-9]*\s*$/;

/** An odd count of one quote character: a string left open at the end of the line. */
function oddQuotes(line: string): boolean {
  const n = [0, 0, 0];
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 92) i++; // an escaped character
    else if (c === 34) n[0]++;
    else if (c === 39) n[1]++;
    else if (c === 96) n[2]++;
  }
  return n.some((k) => k % 2 === 1);
}

/** A line that opens a multi-line value under a sensitive key, or null. Cheap test first: what the line ends with. */
export function detectOpening(line: string): Opening | null {
  const trimmed = line.trimEnd();
  if (trimmed.length === 0) return null;
  // What the line ends with: its last window is enough (bounds.ts); the matchers below are RE2 over the whole line.
  const end = trimmed.length > LINE_WINDOW ? trimmed.slice(-LINE_WINDOW) : trimmed;
  if (!(CLOSES.test(end) || trimmed.includes('"""') || trimmed.includes("'''") || oddQuotes(trimmed))) return null;
  const m = matchers();
  // A key too long to judge (bounds.ts) counts as sensitive.
  const sensitive = (key: string | undefined) => key !== undefined && (key.length > MAX_JUDGED_VALUE || !keyIsMeta(key));

  const block = m.block.findAll(trimmed)[0];
  if (block && sensitive(block.groups?.[1])) return { pending: { kind: 'block', indent: block.groups?.[0]?.length ?? 0 }, redactSelf: false };

  const triple = m.triple.findAll(trimmed)[0];
  if (triple && sensitive(triple.groups?.[0])) {
    const delim = triple.groups?.[1] ?? '"""';
    const rest = triple.groups?.[2] ?? '';
    if (!rest.includes(delim)) return { pending: { kind: 'until', delim }, redactSelf: rest.trim().length > 0 };
  }

  const open = m.open.findAll(trimmed)[0];
  if (open && sensitive(open.groups?.[0])) {
    const quote = open.groups?.[1] ?? '"';
    const rest = open.groups?.[2] ?? '';
    // `password: "` … `"`: a YAML multi-line quoted scalar, a shell string with a newline, a template literal.
    if (rest.endsWith('\\')) return { pending: { kind: 'until', delim: quote }, redactSelf: true };
    return { pending: { kind: 'until', delim: quote }, redactSelf: rest.trim().length > 0 };
  }

  const dangling = m.dangling.findAll(trimmed)[0];
  if (dangling && sensitive(dangling.groups?.[1])) {
    return { pending: { kind: 'next', indent: dangling.groups?.[0]?.length ?? 0, seen: false }, redactSelf: false };
  }
  return null;
}

/** A nested `key: value` / `key = value` / `key:` line: structure, not the value itself. */
const MAPPING = /^\s*(?:-\s+)?["']?[A-Za-z_$][\w$.-]*["']?\s*(?::(?:\s|$)|=[^=]|=$|=>)/;
const CLOSER = /^\s*[)\]}]/;
const OPENER = /^\s*[[{(]\s*$/;

function valueOf(line: string): { value: string; quoted: boolean } {
  let v = line.trim();
  if (v.length > 1 && v[0] === '-' && /\s/.test(v[1]!)) v = v.slice(1).trimStart();
  if (!/^["'`]/.test(v)) {
    // A trailing comment: from the first `#` after a space (a scan: `\s+#.*$` is quadratic on spaces).
    for (let i = 1; i < v.length; i++) {
      if (v[i] === '#' && /\s/.test(v[i - 1]!)) {
        v = v.slice(0, i - 1);
        break;
      }
    }
  }
  v = v.slice(0, trailingEnd(v));
  // Longer than the checks judge (bounds.ts): a value as it stands.
  if (v.length > MAX_JUDGED_VALUE + 2) return { value: v, quoted: false };
  // One string literal (closed, or left open for the next line), nothing else.
  const q = /^(["'`])([^"'`]*)(["'`]?)$/.exec(v);
  if (q && (q[3] === '' || q[3] === q[1])) return { value: q[2]!, quoted: true };
  return { value: v, quoted: false };
}

/** Where a value ends once trailing spaces, `,` `;` `)` `+` and `\` are dropped (a scan from the end). */
function trailingEnd(v: string): number {
  let end = v.length;
  for (; end > 0; end--) {
    const c = v[end - 1]!;
    if (!(c === ',' || c === ';' || c === ')' || c === '+' || c === '\\' || /\s/.test(c))) break;
  }
  return end;
}

function looksLikeValue(line: string): boolean {
  const { value, quoted } = valueOf(line);
  if (value.length < 4) return false;
  // Too long to judge in bounded time (bounds.ts): counted as part of the value.
  if (value.length > MAX_JUDGED_VALUE) return true;
  if (isPlaceholder(value)) return false;
  if (quoted) return true;
  // An unquoted line of several words is a command or prose (`echo $GOOGLE_APPLICATION_CREDENTIALS` after an empty
  // `export GOOGLE_APPLICATION_CREDENTIALS=`), a comment is a comment: a secret with spaces in it is quoted.
  if (/\s/.test(value) || /^(?:#|\/\/)/.test(value)) return false;
  if (/^["'`]/.test(value)) return false; // more than one literal: an expression
  // `ZebraMangoKiwi` alone under `password:` is a passphrase of capitalised words, not a class name.
  if (isCode(value) && !/\d/.test(value) && !capitalisedWords(value)) return false;
  if (/^(?:const|let|var|return|if|for|while|def|class|function|import|export|typeof|new|await)\b/.test(value)) return false;
  return true;
}

/**
 * The next line under an open value: whether it is redacted, and the state after it. `null` state: the value
 * ended (the line is then judged as an ordinary line by the caller).
 */
export function continueValue(line: string, p: Pending): { redact: boolean; next: Pending | null } {
  const blank = line.trim().length === 0;
  switch (p.kind) {
    case 'until':
      return { redact: true, next: line.includes(p.delim) ? null : p };
    case 'cont':
      return { redact: true, next: line.trimEnd().endsWith('\\') ? p : null };
    case 'block':
      if (blank) return { redact: false, next: p };
      if (indentOf(line) > p.indent) return { redact: true, next: p };
      return { redact: false, next: null };
    case 'next': {
      if (blank) return { redact: false, next: p };
      const deeper = indentOf(line) > p.indent;
      // Structure is read from the line's start: its first window is enough (bounds.ts).
      const head = line.length > LINE_WINDOW ? line.slice(0, LINE_WINDOW) : line;
      if (!deeper && (p.seen || MAPPING.test(head) || CLOSER.test(head))) return { redact: false, next: null };
      if (MAPPING.test(head) || OPENER.test(head) || CLOSER.test(head)) return { redact: false, next: null };
      if (!looksLikeValue(line)) return { redact: false, next: null };
      return { redact: true, next: { ...p, seen: true } };
    }
  }
}
