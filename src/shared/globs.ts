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

const cache = new Map<string, RegExp>();

function escapeRe(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

/** The glob's body as a regular expression over a whole path (no boundaries added). */
export function globToRegExp(glob: string): RegExp {
  const hit = cache.get(glob);
  if (hit) return hit;
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` matches zero or more folders; a bare `**` anything at all.
        if (glob[i + 2] === '/') {
          re += '(?:.*/)?';
          i += 2;
        } else {
          re += '.*';
          i += 1;
        }
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        const body = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
        re += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else re += escapeRe(c);
  }
  let compiled: RegExp;
  try {
    compiled = new RegExp(`^${re}$`);
  } catch {
    compiled = new RegExp(`^${glob.split('').map(escapeRe).join('')}$`);
  }
  if (cache.size > 1000) cache.clear();
  cache.set(glob, compiled);
  return compiled;
}

/** Whether one glob matches a file given by its root-relative path (and absolute path for `/…` globs). */
export function globMatches(glob: string, relPath: string, absPath: string = relPath): boolean {
  const g = glob.trim();
  if (g === '') return false;
  if (g.startsWith('/') && absPath.startsWith('/')) return prefixesMatch(globToRegExp(g.replace(/\/$/, '')), absPath, g.endsWith('/'), true);
  const folderOnly = g.endsWith('/');
  const re = globToRegExp(g.replace(/^\/+/, '').replace(/\/+$/, ''));
  return prefixesMatch(re, relPath, folderOnly, false);
}

/** Tries every folder-bounded slice of the path: any start (unless anchored), ending at a folder or the file. */
function prefixesMatch(re: RegExp, path: string, folderOnly: boolean, anchored: boolean): boolean {
  const parts = path.split('/');
  const starts = anchored ? [0] : parts.map((_, i) => i);
  for (const s of starts) {
    for (let e = parts.length; e > s; e--) {
      if (folderOnly && e === parts.length) continue;
      if (re.test(parts.slice(s, e).join('/'))) return true;
    }
  }
  return false;
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
