// Path globs for search and packet filters (`--path`, `--exclude`, the UI's chips, the project's default excludes).
// Shared by the engine (a SQLite function over sources) and the renderer (chips preview), so both read a glob alike.
//
// A glob is matched against a source's path relative to its ingest root ("lib/router/index.js"), gitignore-style:
//   - `*` and `?` stay inside one folder name, `**` crosses folders, `[abc]` is a character class;
//   - it may match at any folder boundary: `test/**` matches "test/a.js" and "pkg/test/a.js";
//   - it matches a file when it matches the file or any folder above it: `fixtures` matches "a/fixtures/b.json";
//   - a trailing `/` only names folders: `docs/` is `docs/**`;
//   - a leading `/` makes it an absolute-path glob (compared with the whole absolute path and its folders).

export const GLOB_MAX = 500;

// Matched without backtracking (run: one pass over the path per token), so the time is linear in the path for a given
// glob and `*L*L*L*L*L*L*z` against a 250-character name costs what `*.md` does. A regular expression here would
// backtrack (a V8 RegExp) or need a native module (RE2), and this module also runs in the renderer.

type Token =
  | { t: 'char'; c: number }
  /** `?`: one character within a folder name. */
  | { t: 'one' }
  /** `[…]` / `[!…]`: one character within a folder name. */
  | { t: 'class'; negated: boolean; chars: Set<number>; ranges: Array<[number, number]> }
  /** `*`: any run within a folder name. */
  | { t: 'star' }
  /** `**`: any run at all. */
  | { t: 'any' }
  /** `**` + `/`, and a glob's implicit start at any folder: nothing, or anything ending in `/`. */
  | { t: 'folders' }
  /** A glob's implicit end: nothing (unless required), or `/` and anything after it (a folder above the file). */
  | { t: 'tail'; required: boolean };

/** A glob that cannot be matched as written: the message names the glob and the fault. */
export class GlobError extends Error {
  readonly glob: string;
  constructor(glob: string, reason: string) {
    super(`glob ${JSON.stringify(glob)}: ${reason}`);
    this.name = 'GlobError';
    this.glob = glob;
  }
}

const SLASH = 47;
const cache = new Map<string, Token[]>();

function parse(glob: string, full: string): Token[] {
  const hit = cache.get(glob);
  if (hit) return hit;
  const out: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        if (glob[i + 2] === '/') {
          out.push({ t: 'folders' });
          i += 2;
        } else {
          out.push({ t: 'any' });
          i += 1;
        }
      } else if (out.at(-1)?.t !== 'star') out.push({ t: 'star' }); // `**` aside, a run of stars is one star
    } else if (c === '?') out.push({ t: 'one' });
    else if (c === '[' && glob.indexOf(']', i + 2) >= 0) {
      const end = glob.indexOf(']', i + 2);
      out.push(parseClass(glob.slice(i + 1, end), full));
      i = end;
    } else out.push({ t: 'char', c: c.charCodeAt(0) });
  }
  if (cache.size > 1000) cache.clear();
  cache.set(glob, out);
  return out;
}

function parseClass(body: string, full: string): Token {
  const negated = body.startsWith('!') || body.startsWith('^');
  const inner = negated ? body.slice(1) : body;
  const chars = new Set<number>();
  const ranges: Array<[number, number]> = [];
  for (let j = 0; j < inner.length; j++) {
    const a = inner.charCodeAt(j);
    if (inner[j + 1] === '-' && j + 2 < inner.length) {
      const b = inner.charCodeAt(j + 2);
      if (b < a) throw new GlobError(full, `character range ${inner[j]}-${inner[j + 2]} is out of order`);
      ranges.push([a, b]);
      j += 2;
    } else chars.add(a);
  }
  return { t: 'class', negated, chars, ranges };
}

function inClass(tok: Extract<Token, { t: 'class' }>, c: number): boolean {
  if (c === SLASH) return false;
  const hit = tok.chars.has(c) || tok.ranges.some(([a, b]) => c >= a && c <= b);
  return hit !== tok.negated;
}

/**
 * Whether `tokens` match the whole of `s`, by dynamic programming from the end: row i holds, for every position k,
 * whether tokens i… match s from k. Each row is one pass over the path, so the cost is (tokens × path length) with
 * no backtracking, whatever the pattern.
 */
function run(tokens: Token[], s: string): boolean {
  const n = s.length;
  if (buf.codes.length < n + 1) buf = grow(n + 1);
  const { codes } = buf;
  let { a: next, b: row } = buf;
  const inside = buf.c;
  for (let k = 0; k < n; k++) codes[k] = s.charCodeAt(k);
  next.fill(0, 0, n + 1);
  next[n] = 1; // no token left: matched only at the end of the path
  for (let i = tokens.length - 1; i >= 0; i--) {
    const tok = tokens[i]!;
    // One loop per kind of token (not a switch per character): this is the whole cost of a match.
    switch (tok.t) {
      case 'char': {
        const want = tok.c;
        row[n] = 0;
        for (let k = n - 1; k >= 0; k--) row[k] = codes[k] === want ? next[k + 1]! : 0;
        break;
      }
      case 'one':
        row[n] = 0;
        for (let k = n - 1; k >= 0; k--) row[k] = codes[k] !== SLASH ? next[k + 1]! : 0;
        break;
      case 'class':
        row[n] = 0;
        for (let k = n - 1; k >= 0; k--) row[k] = next[k + 1] && inClass(tok, codes[k]!) ? 1 : 0;
        break;
      case 'star':
        row[n] = next[n]!;
        for (let k = n - 1; k >= 0; k--) row[k] = next[k] || (codes[k] !== SLASH ? row[k + 1]! : 0);
        break;
      case 'any':
        row[n] = next[n]!;
        for (let k = n - 1; k >= 0; k--) row[k] = next[k] || row[k + 1]!;
        break;
      case 'folders':
        // Nothing, or a run ending in `/` followed by the rest.
        row[n] = next[n]!;
        inside[n] = 0;
        for (let k = n - 1; k >= 0; k--) {
          inside[k] = (codes[k] === SLASH && next[k + 1]) || inside[k + 1] ? 1 : 0;
          row[k] = next[k] || inside[k]!;
        }
        break;
      case 'tail':
        // Always the last token: the path ends here (unless required), or a `/` and anything after it.
        row[n] = tok.required ? 0 : 1;
        for (let k = n - 1; k >= 0; k--) row[k] = codes[k] === SLASH ? 1 : 0;
        break;
    }
    [next, row] = [row, next];
  }
  return next[0] === 1;
}

// Work rows reused across matches (a search calls this once per source and glob).
let buf = grow(256);
function grow(size: number) {
  return { codes: new Uint16Array(size), a: new Uint8Array(size), b: new Uint8Array(size), c: new Uint8Array(size) };
}

/** Null when the glob can be matched, else the reason it is refused (for the doors that take globs). */
export function globError(glob: string): string | null {
  try {
    parse(glob.trim().replace(/^\/+/, '').replace(/\/+$/, ''), glob);
    return null;
  } catch (err) {
    return err instanceof GlobError ? err.message : String(err);
  }
}

/**
 * Whether one glob matches a file given by its root-relative path (and absolute path for `/…` globs). Throws a
 * GlobError for a glob globError refuses.
 */
export function globMatches(glob: string, relPath: string, absPath: string = relPath): boolean {
  const g = glob.trim();
  if (g === '') return false;
  const folderOnly = g.endsWith('/');
  if (g.startsWith('/') && absPath.startsWith('/')) return run(bounded(parse(g.replace(/\/$/, ''), glob), true, folderOnly), absPath);
  return run(bounded(parse(g.replace(/^\/+/, '').replace(/\/+$/, ''), glob), false, folderOnly), relPath);
}

const boundedCache = new WeakMap<Token[], Token[][]>();

/**
 * The glob with its folder boundaries: it may start at any folder (unless anchored), and it matches a file when it
 * matches the file or a folder above it (a `/` and anything after; only that, for a folder-only glob).
 */
function bounded(tokens: Token[], anchored: boolean, folderOnly: boolean): Token[] {
  let forms = boundedCache.get(tokens);
  if (!forms) {
    forms = [];
    boundedCache.set(tokens, forms);
  }
  const key = (anchored ? 2 : 0) + (folderOnly ? 1 : 0);
  return (forms[key] ??= [...(anchored ? [] : [{ t: 'folders' } as const]), ...tokens, { t: 'tail', required: folderOnly }]);
}

/** Included when no include glob is given or one matches, and no exclude glob matches. */
export function pathPasses(relPath: string, absPath: string, include: readonly string[] = [], exclude: readonly string[] = []): boolean {
  if (include.length > 0 && !include.some((g) => globMatches(g, relPath, absPath))) return false;
  return !exclude.some((g) => globMatches(g, relPath, absPath));
}

/** Root-relative path with '/' separators; a file ingested on its own is its base name (as the L4 markers have it). */
export function relativeToRoot(path: string, root: string): string {
  const p = path.replace(/\\/g, '/');
  const r = root.replace(/\\/g, '/').replace(/\/+$/, '');
  if (p.startsWith(`${r}/`)) return p.slice(r.length + 1);
  return p.split('/').pop() ?? p;
}

/** The CLI's and the UI's `--type` words, mapped to the stored source types. */
export const TYPE_WORDS = {
  md: ['markdown'],
  code: ['code'],
  html: ['html'],
  pdf: ['pdf'],
  json: ['json', 'jsonl'],
  text: ['text'],
} as const;
export type TypeWord = keyof typeof TYPE_WORDS;
export const TYPE_WORD_LIST = Object.keys(TYPE_WORDS) as TypeWord[];
