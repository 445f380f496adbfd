/*
 * Canonical views of one line, so a secret disguised by encoding is judged in its plain form: full-width letters,
 * zero-width characters inside a token, no-break spaces around `=`, JSON / JS string escapes (`\u0041`, `\/`, `\n`),
 * HTML character references and percent-encoding. The gate matches every view and redacts the *original* line on
 * a hit in any of them.
 */

// Characters that render as nothing (or only steer direction) and can sit inside a token unnoticed.
// Soft hyphen, combining grapheme joiner, Arabic letter mark, Hangul fillers, Khmer vowel inherents, Mongolian
// selectors, zero-width space/joiners, LRM/RLM, bidi embeddings and isolates, word joiner and invisible operators,
// variation selectors, BOM / zero-width no-break space.
const INVISIBLE =
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0]/g;
// Spaces NFKC leaves alone (or that we want as plain spaces whatever the form): no-break, ogham, en/em/thin…,
// line/paragraph separators, narrow no-break, medium mathematical, ideographic.
const UNICODE_SPACE = /[\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\u0085\u000B\u000C]/g;

const NON_ASCII = /[^\x00-\x7F]/;
const ESCAPE = /\\(?:u\{[0-9A-Fa-f]{1,6}\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|[/nrt"'\\bf0])/;
const ENTITY = /&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|quot|amp|lt|gt|apos|nbsp|sol|colon|equals|period|lowbar|hyphen);/;
// Only printable ASCII (%20–%7E): what URL-encoded credentials use (`%2F`, `%3D`, `%40`); `%DB_PASSWORD%` stays as is.
const PERCENT = /%[2-7][0-9A-Fa-f]/;

/** True when `canonicalViews` could differ from the line itself (cheap test, run first). */
export function mayDisguise(line: string): boolean {
  return NON_ASCII.test(line) || ESCAPE.test(line) || ENTITY.test(line) || PERCENT.test(line) || BASE64_HINT.test(line);
}

// A run that could be base64 of a credential: 16+ characters of the standard or URL-safe alphabet, padding kept.
// The hint (also the prefilter's scan, prefilter.ts): four groups whose first characters can hold a printable byte's
// top six bits (C, D, I…Z, a…f), from a word's start; any 16 letters would mark most lines of code. Only runs that
// decode to text are used.
export const BASE64_OF_TEXT = '\\b(?:[CDI-Za-f][A-Za-z0-9+/_-]{3}){4}';
const BASE64_HINT = new RegExp(BASE64_OF_TEXT);
const BASE64_RUN = /[A-Za-z0-9+/_-]{16,}={0,2}/g;

/**
 * The text a base64 run encodes, when it is text: at least 12 bytes, every one printable ASCII or a tab / line
 * break. An identifier or a hash decodes to bytes like these by chance about once in a million (each byte has
 * ~3 chances in 8), and even then it is only judged, not redacted.
 */
export function base64Text(run: string): string | null {
  const body = run.replace(/=+$/, '');
  // 4n + 1 characters cannot be base64 (a lone 6-bit group is not a byte).
  if (body.length % 4 === 1) return null;
  // The first character of each group holds a byte's top six bits: for printable ASCII, tab or a line break that is
  // C, D or I…Z, a…f. Most identifiers fail here, before anything is decoded.
  for (let i = 0; i < body.length; i += 4) {
    const c = body.charCodeAt(i);
    if (!((c >= 73 && c <= 90) || (c >= 97 && c <= 102) || c === 67 || c === 68)) return null;
  }
  const bytes = Buffer.from(body, 'base64');
  if (bytes.length < 12) return null;
  for (const b of bytes) if (!((b >= 0x20 && b <= 0x7e) || b === 0x09 || b === 0x0a || b === 0x0d)) return null;
  return bytes.toString('latin1');
}

/** The line with every base64 run that encodes text replaced by that text, or null when there is none. */
export function base64View(line: string): string | null {
  let changed = false;
  const view = line.replace(BASE64_RUN, (run) => {
    const text = base64Text(run);
    if (text === null) return run;
    changed = true;
    return text;
  });
  return changed ? view : null;
}

function fromCodePoint(cp: number): string {
  return cp >= 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : '';
}

const SIMPLE_ESCAPE: Record<string, string> = { n: '\n', r: '', t: '\t', b: '', f: '', '0': '', '/': '/', '"': '"', "'": "'", '\\': '\\' };

/** JSON / JavaScript / Python string escapes. `\n` becomes a real newline: the gate judges each part as a line. */
export function decodeEscapes(s: string): string {
  return s.replace(/\\(u\{[0-9A-Fa-f]{1,6}\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|[/nrt"'\\bf0])/g, (_, e: string) => {
    if (e.startsWith('u{')) return fromCodePoint(parseInt(e.slice(2, -1), 16));
    if (e[0] === 'u' && e.length === 5) return fromCodePoint(parseInt(e.slice(1), 16));
    if (e[0] === 'x' && e.length === 3) return fromCodePoint(parseInt(e.slice(1), 16));
    return SIMPLE_ESCAPE[e] ?? '';
  });
}

const NAMED_ENTITY: Record<string, string> = {
  quot: '"', amp: '&', lt: '<', gt: '>', apos: "'", nbsp: ' ', sol: '/', colon: ':', equals: '=', period: '.', lowbar: '_', hyphen: '-',
};

export function decodeEntities(s: string): string {
  return s.replace(/&(#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[a-z]+);/g, (all, e: string) => {
    if (e[0] === '#') return fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return NAMED_ENTITY[e] ?? all;
  });
}

/** Byte-wise %XX decoding that cannot throw (decodeURIComponent does on malformed input). */
export function percentDecode(s: string): string {
  return s.replace(/%([2-7][0-9A-Fa-f])/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

// Cyrillic and Greek letters that look like Latin ones (`АKIA…` with a Cyrillic А): folded for matching only.
const HOMOGLYPHS: Record<string, string> = {
  А: 'A', В: 'B', Е: 'E', К: 'K', М: 'M', Н: 'H', О: 'O', Р: 'P', С: 'C', Т: 'T', Х: 'X', У: 'Y', Ѕ: 'S', І: 'I', Ј: 'J',
  а: 'a', е: 'e', о: 'o', р: 'p', с: 'c', у: 'y', х: 'x', ѕ: 's', і: 'i', ј: 'j', ԁ: 'd', ɡ: 'g', һ: 'h', ӏ: 'l',
  Α: 'A', Β: 'B', Ε: 'E', Ζ: 'Z', Η: 'H', Ι: 'I', Κ: 'K', Μ: 'M', Ν: 'N', Ο: 'O', Ρ: 'P', Τ: 'T', Υ: 'Y', Χ: 'X',
  ο: 'o', ν: 'v', ρ: 'p', ι: 'i', κ: 'k', τ: 't', υ: 'u', χ: 'x',
};
const HOMOGLYPH = new RegExp(`[${Object.keys(HOMOGLYPHS).join('')}]`, 'g');

/**
 * NFKC (full-width → ASCII, ligatures, math letters), invisible characters dropped, every Unicode space a space,
 * Latin look-alike Cyrillic / Greek letters folded.
 */
export function canonicalUnicode(s: string): string {
  if (!NON_ASCII.test(s)) return s;
  return s.normalize('NFKC').replace(INVISIBLE, '').replace(UNICODE_SPACE, ' ').replace(HOMOGLYPH, (c) => HOMOGLYPHS[c] ?? c);
}

/**
 * The views of a line other than the line itself, each distinct and different from it: the canonical form
 * (escapes and entities decoded, then Unicode-normalized) and the percent-decoded forms. A view may hold `\n`
 * (a decoded escape); the gate then judges each part.
 */
export function canonicalViews(line: string): string[] {
  const views: string[] = [];
  const add = (v: string) => {
    if (v !== line && !views.includes(v)) views.push(v);
  };
  let c = line;
  if (ESCAPE.test(c)) c = decodeEscapes(c);
  if (ENTITY.test(c)) c = decodeEntities(c);
  c = canonicalUnicode(c);
  // Escapes can produce what Unicode normalization then folds (and the reverse): one more round settles it.
  if (ESCAPE.test(c)) c = canonicalUnicode(decodeEscapes(c));
  add(c);
  if (PERCENT.test(line)) add(percentDecode(line));
  if (c !== line && PERCENT.test(c)) add(percentDecode(c));
  // Base64 of a credential (Kubernetes secret data, a config value, a header): judged decoded. A decoded value may
  // itself be escaped or folded, so its canonical form is judged too.
  const decoded = BASE64_HINT.test(line) ? base64View(line) : null;
  if (decoded !== null) {
    add(decoded);
    add(canonicalUnicode(decodeEscapes(decoded)));
  }
  return views;
}
