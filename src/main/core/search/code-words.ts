import { STOPWORDS, queryTerms } from './fts-query.ts';

// Issue #23 item 4: a task in prose should find code, and code words should find prose. FTS5's unicode61 already
// splits snake_case and dotted names at `_` and `.`; what it keeps whole is camelCase (`acceptsCharsets` is one
// token), and it cannot know that `clean up` is `cleanup` or `writeable` is `writable`. Variants are extra OR-ed
// terms: one that no chunk uses has no postings and costs nothing.

const CAMEL = /[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*/g;

/** `acceptsCharsets` → accepts, charsets; `parseHTTPResponse` → parse, http, response. */
export function splitIdentifier(word: string): string[] {
  return word
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

/** Light spelling and stem variants of one lower-case word (British/American, -eable, doubled l). */
export function spellingVariants(w: string): string[] {
  const out: string[] = [];
  if (w.length < 5) return out;
  if (w.endsWith('eable')) out.push(w.slice(0, -5) + 'able'); // writeable → writable
  else if (/[^aeiou]able$/.test(w) && !w.endsWith('eable') && /(?:rit|at|us|ov|iz|tor)able$/.test(w)) out.push(w.slice(0, -4) + 'eable'); // writable → writeable
  if (/[^aeiou][aeiou]lled$|[^aeiou][aeiou]lling$/.test(w)) out.push(w.replace(/ll(ed|ing)$/, 'l$1')); // cancelled → canceled
  else if (/[^aeiou][aeiou]l(ed|ing)$/.test(w) && /(?:cel|vel|nal|del)(?:ed|ing)$/.test(w)) out.push(w.replace(/l(ed|ing)$/, 'll$1'));
  if (/(?:[lnvr]|i)our$/.test(w) && w.length > 5) out.push(w.slice(0, -3) + 'or'); // behaviour → behavior, colour → color
  if (/is(e|ed|es|ing|ation)$/.test(w) && w.length > 6) out.push(w.replace(/is(e|ed|es|ing|ation)$/, 'iz$1')); // serialise → serialize
  else if (/iz(e|ed|es|ing|ation)$/.test(w) && w.length > 6) out.push(w.replace(/iz(e|ed|es|ing|ation)$/, 'is$1'));
  return out.filter((v) => v !== w && !STOPWORDS.has(v));
}

/**
 * The query's terms (queryTerms) plus code-word variants: camelCase parts, two adjacent words joined (`clean up` →
 * cleanup, `content type` → contenttype) and light spelling variants. Deterministic, original terms first.
 */
export function codeWordTerms(text: string): string[] {
  const base = queryTerms(text);
  const out = new Set(base);
  for (const m of text.normalize('NFKC').match(CAMEL) ?? []) for (const p of splitIdentifier(m)) if (!STOPWORDS.has(p)) out.add(p);
  const words = (text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1);
  for (let i = 0; i + 1 < words.length; i++) {
    const [a, b] = [words[i]!, words[i + 1]!];
    if (STOPWORDS.has(a) && STOPWORDS.has(b)) continue;
    if (a.length + b.length >= 5 && a.length + b.length <= 24) out.add(a + b);
  }
  for (const t of base) for (const v of spellingVariants(t)) out.add(v);
  return [...out];
}

/**
 * The query's compound identifiers as word sequences: `package_name` → "package name", `res.send` → "res send".
 * FTS5 splits them into common words (`package`, `name`) that match everywhere; as a phrase they find the chunks
 * that use the identifier itself. Parts of two letters or more, at least one letter; hyphenated prose (`IL-6`) and
 * camelCase (one FTS5 token already) are not phrases.
 */
export function identifierPhrases(text: string): string[][] {
  const out = new Map<string, string[]>();
  for (const m of text.normalize('NFKC').match(/[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/g) ?? []) {
    if (!/[_.]/.test(m.replace(/^_+|_+$/g, ''))) continue;
    const parts = m.toLowerCase().split(/[_.]+/).filter((p) => p.length > 0);
    if (parts.length < 2 || parts.some((p) => p.length < 2) || !parts.some((p) => /[a-z]/.test(p))) continue;
    out.set(parts.join(' '), parts);
  }
  return [...out.values()];
}
