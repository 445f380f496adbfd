// How the gate cuts what it reads: a long line into overlapping windows, and a hard-wrapped token into the halves
// that end one line and start the next (redactor.ts joins and judges them).
import { LINE_WINDOW, WINDOW_OVERLAP, WRAP_MAX } from './bounds.ts';

/*
 * A hard-wrapped token's halves: the run of token characters ending one line and the run starting the next. Found
 * by a scan from the line's end (a V8 regex anchored at `$` retries from every start: quadratic on a long run), and
 * at most WRAP_MAX characters each: a half longer than that is a token line judged on its own.
 */
const TAIL_CHARS = charSet('A-Za-z0-9', '_-+/=.~:');
const HEAD_CHARS = charSet('A-Za-z0-9', '_-+/=.~');
/** Generic rules a glued pair of words could trip; only token shapes count across a wrap. */
export const WRAP_IGNORES = new Set([
  'base64_blob_line', 'high_entropy_secret', 'env_var_assignment', 'email_address', 'private_ipv4', 'private_ipv6',
  'secret_assignment', 'secret_assignment_quoted', 'password_in_prose', 'hex_private_key', 'pgpass_line', 'url_credentials',
  'connection_string', 'twilio_api_key', 'discord_bot_token', 'redaction_error', 'redaction_limit',
]);

function charSet(ranges: string, others: string): Uint8Array {
  const set = new Uint8Array(128);
  for (const [from, to] of [['A', 'Z'], ['a', 'z'], ['0', '9']] as const) {
    if (ranges.includes(`${from}-${to}`)) for (let c = from.charCodeAt(0); c <= to.charCodeAt(0); c++) set[c] = 1;
  }
  for (const c of others) set[c.charCodeAt(0)] = 1;
  return set;
}

const inSet = (set: Uint8Array, c: number) => c < 128 && set[c] === 1;

/** The token-character run ending `line` (trailing whitespace ignored), at most WRAP_MAX long, or '' under 8. */
export function wrapTail(line: string): string {
  let end = line.length;
  while (end > 0 && isSpace(line.charCodeAt(end - 1))) end--;
  let start = end;
  while (start > 0 && end - start < WRAP_MAX && inSet(TAIL_CHARS, line.charCodeAt(start - 1))) start--;
  return end - start >= 8 ? line.slice(start, end) : '';
}

/** The token-character run starting `line` after its indentation, at most WRAP_MAX long, or '' under 6. */
export function wrapHead(line: string): string {
  let start = 0;
  while (start < line.length && isSpace(line.charCodeAt(start))) start++;
  let end = start;
  while (end < line.length && end - start < WRAP_MAX && inSet(HEAD_CHARS, line.charCodeAt(end))) end++;
  return end - start >= 6 ? line.slice(start, end) : '';
}

/** A line cut into windows of LINE_WINDOW characters overlapping by WINDOW_OVERLAP; a short line is its own window. */
export function windowsOf(line: string): string[] {
  if (line.length <= LINE_WINDOW) return [line];
  const out: string[] = [];
  for (let start = 0; ; ) {
    let end = Math.min(line.length, start + LINE_WINDOW);
    // Never split a surrogate pair.
    if (end < line.length && isHighSurrogate(line.charCodeAt(end - 1))) end--;
    out.push(line.slice(start, end));
    if (end === line.length) return out;
    start = end - WINDOW_OVERLAP;
    if (isHighSurrogate(line.charCodeAt(start - 1))) start--;
  }
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

export function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff || (c >= 0x2000 && c <= 0x200a) || c === 0x3000;
}
