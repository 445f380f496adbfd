import RE2 from 're2';

/*
 * Secrets whose name and value are not on one line, or whose value is not one literal. Each is rebuilt here as the
 * one line it stands for, and the gate judges that line with its ordinary rules; a hit redacts every line holding a
 * part of the value:
 * - a name/value pair: Kubernetes / Compose / Helm `- name: API_TOKEN` + `value: "…"`, the same in an ECS task
 *   definition's JSON (`"name": …` and `"value": …` in either order) → `API_TOKEN: "…"`;
 * - a Terraform block `variable "db_password" {` … `default = "…"` → `db_password = "…"`;
 * - Hadoop-style `<property>` pairs (`<name>fs.s3a.secret.key</name>` / `<value>…</value>`);
 * - an XML element split over lines `<apiToken>` / `…` / `</apiToken>` → `<apiToken>…</apiToken>`;
 * - a shell command continued with `\\` whose credential flag is on a later line (`curl … \\` / `-u user:pw`);
 * - literals joined inside a line (`Client(api_key="sk-" "abc…")`): the line judged with the joins collapsed;
 * - a value made of literals only: Python adjacent literals (`KEY = ("ab" "cd")`, over lines), `+` concatenation,
 *   `''.join([…])` / `[…].join('')` → `KEY = "abcd"`.
 * Plain string work, one pass, each window a few lines long; long lines are skipped (no value is built from them).
 */

export interface JoinedStatement {
  /** The line the parts stand for. */
  text: string;
  /** 0-based indexes of the lines holding part of the value. */
  lines: number[];
}

const MAX_LINE = 2000;
const MAX_TEXT = 4096;
const WINDOW = 6;

// Patterns without nested or adjacent ambiguous repetition: each runs in time linear in the line.
const NAME_LINE = /^[ \t]*(?:-[ \t]+)?["']?(?:name|key|Name|Key)["']?[ \t]*[:=][ \t]*["']?([A-Za-z_][\w.-]{1,100})["']?(?:[ \t]*,)?[ \t\r]*$/;
const VALUE_KEY = /^[ \t]*(?:-[ \t]+)?["']?(?:value|Value)["']?[ \t]*[:=][ \t]*/;
const TF_VARIABLE = /^[ \t]*variable[ \t]+"([A-Za-z_][\w-]{1,100})"[ \t]*\{[ \t\r]*$/;
const TF_DEFAULT = /^[ \t]*default[ \t]*=[ \t]*/;

/** The value after a `value:` / `default =` key on its line (trailing comma dropped), or null. */
function valueAfter(key: RegExp, line: string): string | null {
  const m = key.exec(line);
  if (!m) return null;
  const v = line.slice(m[0].length).trimEnd().replace(/,$/, '').trimEnd();
  return v.length > 0 && v.length <= 1000 ? v : null;
}
const XML_OPEN = /^[ \t]*<([A-Za-z_][\w.-]{1,100})>[ \t\r]*$/;
const XML_BODY = /^[ \t]*([^\s<>]{1,1000})[ \t\r]*$/;

const indent = (line: string) => line.length - line.trimStart().length;

/** A pair's value line; a YAML block scalar (`value: |` / `value: >-`) takes the deeper-indented lines after it. */
function pushPair(lines: string[], name: string, j: number, v: string, out: JoinedStatement[]): void {
  if (!/^[|>][-+0-9]*$/.test(v)) {
    out.push({ text: `${name}: ${v}`, lines: [j] });
    return;
  }
  const body: number[] = [];
  for (let k = j + 1; k < lines.length && k <= j + WINDOW * 4 && (lines[k]!.trim() === '' || indent(lines[k]!) > indent(lines[j]!)); k++) {
    if (lines[k]!.trim() !== '') body.push(k);
  }
  if (body.length > 0) out.push({ text: `${name}: "${body.map((k) => lines[k]!.trim()).join('')}"`, lines: body });
}

// `{ "name": "API_TOKEN", "value": "…" }` / `- {name: X, value: Y}` on one line, in either order (an object opening
// on `name` or `value`).
const INLINE_PAIR = /["']?\bname["']?[ \t]*[:=][ \t]*["']?([A-Za-z_][\w.-]{1,100})["']?[ \t]*,[ \t]*["']?value["']?[ \t]*[:=][ \t]*("[^"]{1,1000}"|'[^']{1,1000}'|[^\s,}\]]{1,1000})/;
const INLINE_PAIR_REVERSED = /["']?\bvalue["']?[ \t]*[:=][ \t]*("[^"]{1,1000}"|'[^']{1,1000}'|[^\s,}\]]{1,1000})[ \t]*,[ \t]*["']?name["']?[ \t]*[:=][ \t]*["']?([A-Za-z_][\w.-]{1,100})/;

/** A name/value pair in one object: the value line within a few lines, not past the object's or the item's end. */
function pairAt(lines: string[], i: number, out: JoinedStatement[]): void {
  const line = lines[i]!;
  const inline = INLINE_PAIR.exec(line);
  if (inline) out.push({ text: `${inline[1]}: ${inline[2]}`, lines: [i] });
  const reversed = INLINE_PAIR_REVERSED.exec(line);
  if (reversed) out.push({ text: `${reversed[2]}: ${reversed[1]}`, lines: [i] });
  const m = NAME_LINE.exec(line);
  if (!m) return;
  const name = m[1]!;
  // Forward: the rest of this item / object.
  for (let j = i + 1; j < Math.min(lines.length, i + WINDOW); j++) {
    const next = lines[j]!;
    if (next.length > MAX_LINE || /^\s*-\s/.test(next) || /^\s*[{}[\]]/.test(next) || NAME_LINE.test(next)) break;
    const v = valueAfter(VALUE_KEY, next);
    if (v !== null) {
      pushPair(lines, name, j, v, out);
      return;
    }
  }
  // Backward (JSON objects list keys in any order): back to the object's `{`.
  if (/^\s*-\s/.test(line)) return;
  for (let j = i - 1; j >= Math.max(0, i - WINDOW); j--) {
    const prev = lines[j]!;
    if (prev.length > MAX_LINE || /[{}[\]]$/.test(prev.trimEnd().replace(/,$/, '').trimEnd()) || NAME_LINE.test(prev)) break;
    const v = valueAfter(VALUE_KEY, prev);
    if (v !== null) {
      out.push({ text: `${name}: ${v}`, lines: [j] });
      return;
    }
  }
}

function terraformAt(lines: string[], i: number, out: JoinedStatement[]): void {
  const m = TF_VARIABLE.exec(lines[i]!);
  if (!m) return;
  for (let j = i + 1; j < Math.min(lines.length, i + 12); j++) {
    const next = lines[j]!;
    if (/^\s*}/.test(next)) return;
    const d = valueAfter(TF_DEFAULT, next);
    if (d !== null) {
      out.push({ text: `${m[1]} = ${d}`, lines: [j] });
      return;
    }
  }
}

// Hadoop / Java `<property>` configuration: `<name>fs.s3a.secret.key</name>` then `<value>…</value>`.
const XML_NAME = /^[ \t]*<name>[ \t]*([A-Za-z_][\w.-]{1,200})[ \t]*<\/name>[ \t\r]*$/;
const XML_VALUE = /^[ \t]*<value>([^<]{1,1000})<\/value>[ \t\r]*$/;

function xmlElementAt(lines: string[], i: number, out: JoinedStatement[]): void {
  const named = XML_NAME.exec(lines[i]!);
  if (named) {
    for (let j = i + 1; j < Math.min(lines.length, i + 4); j++) {
      const v = XML_VALUE.exec(lines[j]!);
      if (v) {
        out.push({ text: `${named[1]} = "${v[1]!.trim()}"`, lines: [j] });
        break;
      }
    }
  }
  const m = XML_OPEN.exec(lines[i]!);
  if (!m || i + 2 >= lines.length) return;
  const body = XML_BODY.exec(lines[i + 1]!);
  if (body && lines[i + 2]!.trim() === `</${m[1]}>`) out.push({ text: `<${m[1]}>${body[1]}</${m[1]}>`, lines: [i + 1] });
}

type Tok = { t: 'lit'; v: string } | { t: 'op'; v: string };

/** The tokens of an expression made of string literals, `+`, brackets, commas and `.join`; null for anything else. */
function literalTokens(expr: string): Tok[] | null {
  const toks: Tok[] = [];
  let i = 0;
  while (i < expr.length) {
    const c = expr[i]!;
    if (c === ' ' || c === '\t' || c === '\\') {
      i++;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      let v = '';
      while (j < expr.length && expr[j] !== c) {
        if (expr[j] === '\\') j++;
        v += expr[j] ?? '';
        j++;
      }
      if (j >= expr.length || (c === '`' && v.includes('${'))) return null;
      toks.push({ t: 'lit', v });
      i = j + 1;
      continue;
    }
    if (/[rbuRBU]/.test(c) && /["']/.test(expr[i + 1] ?? '')) {
      i++; // a Python string prefix
      continue;
    }
    if ('+()[],;'.includes(c)) {
      toks.push({ t: 'op', v: c });
      i++;
      continue;
    }
    if (expr.startsWith('.join', i)) {
      toks.push({ t: 'op', v: 'join' });
      i += 5;
      continue;
    }
    return null;
  }
  return toks;
}

/** The string an all-literal expression evaluates to, when it is built from two or more pieces. */
function joinLiterals(toks: Tok[]): string | null {
  const lits = toks.filter((t) => t.t === 'lit').map((t) => t.v);
  if (lits.length < 2) return null;
  const joinAt = toks.findIndex((t) => t.v === 'join');
  // Without `.join`, a comma makes a list or a tuple, not one string.
  if (joinAt < 0) return toks.some((t) => t.v === ',') ? null : lits.join('');
  // Python `sep.join([...])`: the separator comes first; JavaScript `[...].join(sep)`: last.
  if (joinAt === 1 && toks[0]!.t === 'lit') return lits.slice(1).join(lits[0]);
  const sep = toks.slice(joinAt).find((t) => t.t === 'lit');
  const pieces = toks.slice(0, joinAt).filter((t) => t.t === 'lit').map((t) => t.v);
  return pieces.join(sep ? sep.v : ',');
}

const ASSIGNMENT = /^\s*(?:(?:export|const|let|var|final|static|private|public|readonly|val)\s+)*([A-Za-z_$][\w$.-]{0,100}|["'][\w$.-]{1,100}["'])\s*(?::\s*[\w<>[\]]+\s*)?(=|:=|:|=>)\s*(.*)$/;

const COMMAND = /\b(?:curl|wget|http|https|mysql|mysqldump|psql|mongo(?:sh)?|redis-cli|sshpass|login)\b/;
const CREDENTIAL_FLAG = /(?:^|\s)(?:-u|--user|-p|--password|--pass|-H|--header|--token|--auth)\b|authorization/i;

const continues = (line: string) => line.trimEnd().endsWith('\\');

/** A shell command continued with `\\` (`curl … \\` / `  -u user:password`): judged as one line. */
function continuationAt(lines: string[], i: number, out: JoinedStatement[]): number {
  const line = lines[i]!;
  if (!continues(line) || (i > 0 && continues(lines[i - 1]!)) || !COMMAND.test(line)) return i;
  const used = [i];
  let text = line.trimEnd().slice(0, -1) + ' ';
  let flagged = false;
  for (let j = i + 1; j < lines.length && j < i + WINDOW * 2; j++) {
    const next = lines[j]!;
    if (next.length > MAX_LINE) break;
    used.push(j);
    const more = continues(next);
    text += more ? next.trimEnd().slice(0, -1) + ' ' : next;
    if (CREDENTIAL_FLAG.test(next)) flagged = true;
    if (!more) break;
  }
  if (flagged && used.length > 1) out.push({ text, lines: used });
  return used[used.length - 1]!;
}

// Two literals of one quote kind joined by `+` or by nothing but space: `"sk-" "abc"`, `'sk-' + 'abc'`.
const LITERAL_JOIN = /(["'`])[ \t]*\+?[ \t]*\1/g;

/** Literals joined anywhere in a line (`Client(api_key="sk-" "abc…")`): the line with the joins collapsed. */
function collapsedAt(lines: string[], i: number, out: JoinedStatement[]): void {
  const line = lines[i]!;
  const collapsed = line.replace(LITERAL_JOIN, '');
  if (collapsed !== line) out.push({ text: collapsed, lines: [i] });
}

/**
 * Calls `visit` with each character outside string literals (and its index) until it returns true; returns that index,
 * or -1. Escapes inside a literal are skipped.
 */
function outsideLiterals(s: string, visit: (c: string, k: number) => boolean): number {
  let quote = '';
  for (let k = 0; k < s.length; k++) {
    const c = s[k]!;
    if (quote) {
      if (c === '\\') k++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if (visit(c, k)) return k;
  }
  return -1;
}

/** The line without a trailing `#` / `//` comment (one outside string literals). */
function stripComment(s: string): string {
  const at = outsideLiterals(s, (c, k) => c === '#' || (c === '/' && s[k + 1] === '/'));
  return at < 0 ? s : s.slice(0, at).trimEnd();
}

/** An assignment at line i whose value is literals only, on one line or continued over the next few. */
function literalValueAt(lines: string[], i: number, out: JoinedStatement[]): number {
  const m = ASSIGNMENT.exec(lines[i]!);
  if (!m) return i;
  let expr = stripComment(m[3]!);
  const used = [i];
  // Continue while a bracket is open or the line ends with `+` / the next one starts with `+`.
  let depth = 0;
  const balance = (s: string) =>
    outsideLiterals(s, (c) => {
      if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
      return false;
    });
  balance(expr);
  for (let j = i + 1; j < lines.length && j < i + WINDOW * 2 && expr.length < MAX_TEXT; j++) {
    const next = lines[j]!;
    // `const token =` alone: prettier puts a long value on the next line.
    if (!(depth > 0 || expr.trim() === '' || expr.trimEnd().endsWith('+') || /^\s*\+/.test(next))) break;
    if (next.length > MAX_LINE) break;
    const part = stripComment(next);
    expr += ' ' + part.trim();
    balance(part);
    used.push(j);
  }
  const last = used[used.length - 1]!;
  const toks = literalTokens(expr.trimEnd().replace(/;$/, ''));
  const value = toks ? joinLiterals(toks) : null;
  if (value === null || value.length === 0) return last;
  const q = value.includes('"') ? "'" : '"';
  out.push({ text: `${m[1]} ${m[2]} ${q}${value}${q}`, lines: used.filter((k) => /["'`]/.test(lines[k]!)) });
  return last;
}

/*
 * The lines worth a closer look, found in one RE2 pass over the whole text (linear, no per-line JavaScript work on
 * the rest): a `name:` / `key:` line, a Terraform `variable`, a lone `<tag>`, a line ending where a value goes on
 * (`(`, `[`, `=`, `:`, `+`), a line starting with `+`, and `+` / `.join(` / two literals next to a quote.
 */
const CANDIDATE = new RE2(
  '(?m)^[ \\t]*(?:-[ \\t]+)?["\']?(?:name|key|Name|Key)["\']?[ \\t]*[:=]|\\{[ \\t]*["\']?(?:name|value)["\']?[ \\t]*:|^[ \\t]*variable[ \\t]|^[ \\t]*<name>|^[ \\t]*<[A-Za-z_][\\w.-]*>[ \\t\\r]*$|' +
    '=[ \\t]*[(\\[]?[ \\t\\r]*$|\\\\[ \\t\\r]*$|^[ \\t]*\\+|["\'`][ \\t]*\\+[ \\t]*(?:["\'`]|\\r?$)|["\'`]\\.join\\(|\\]\\.join\\(["\'`]|["\'`][ \\t]+[rbuRBU]?["\'`]',
  'g',
);

export function candidateLines(text: string): number[] {
  // On a Buffer: node-re2 would convert a string to UTF-8 again on every exec call.
  const buf = Buffer.from(text, 'utf8');
  const exec = CANDIDATE.exec.bind(CANDIDATE) as unknown as (b: Buffer) => RegExpExecArray | null;
  const found: number[] = [];
  let line = 0;
  let lineEnd = buf.indexOf(10, 0);
  CANDIDATE.lastIndex = 0;
  for (let m = exec(buf); m !== null; m = exec(buf)) {
    while (lineEnd !== -1 && lineEnd < m.index) {
      line++;
      lineEnd = buf.indexOf(10, lineEnd + 1);
    }
    // A line starting with `+` continues the one before it.
    const atStart = m.index === 0 || buf[m.index - 1] === 10;
    if (line > 0 && atStart && /^[ \t]*\+/.test(String(m[0])) && found[found.length - 1] !== line - 1) found.push(line - 1);
    if (found[found.length - 1] !== line) found.push(line);
    if (lineEnd === -1) break;
    CANDIDATE.lastIndex = lineEnd + 1;
  }
  return found;
}

export function joinedStatements(lines: readonly string[], text = lines.join('\n')): JoinedStatement[] {
  const out: JoinedStatement[] = [];
  const ls = lines as string[];
  // Lines already read as part of a continued statement are not read again as its start: the work stays linear.
  let until = -1;
  for (const i of candidateLines(text)) {
    const line = ls[i];
    if (line === undefined || line.length > MAX_LINE) continue;
    pairAt(ls, i, out);
    terraformAt(ls, i, out);
    xmlElementAt(ls, i, out);
    if (i > until) until = Math.max(literalValueAt(ls, i, out), continuationAt(ls, i, out));
    collapsedAt(ls, i, out);
  }
  return out.filter((s) => s.text.length <= MAX_TEXT && s.lines.length > 0);
}
