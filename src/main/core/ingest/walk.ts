import { lstatSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { hardLinkReason, isInside, realLocation, symlinkReason, PROJECT_IGNORE_FILE, reincluded, sensitiveReason, specialFileReason, SYMLINK_OUTSIDE_ROOT, type ContainmentOptions } from './containment.ts';

export { PROJECT_IGNORE_FILE };
/** Never project content, and expensive to walk; a project ignore file can still re-include them with `!`. */
export const DEFAULT_IGNORES = ['.git/', '.hg/', '.svn/', 'node_modules/', '.DS_Store'];

export interface WalkedFile {
  path: string;
  root: string;
  stats: Stats;
}

export interface WalkIssue {
  path: string;
  root: string;
  reason: string;
}

export interface WalkResult {
  files: WalkedFile[];
  failed: WalkIssue[];
  /** Left out on purpose, with the reason (a link leaving the root, a credential file); reported like other skips. */
  skipped: WalkIssue[];
  /** Folder roots that were walked; sources under them that were not seen again have left the disk. */
  walkedFolders: string[];
  /** walk(…, { within }) only: paths that are not there (deleted or renamed away). */
  missing?: string[];
}

export interface WalkOptions extends ContainmentOptions {
  /**
   * The folder root the given paths lie inside (the watcher's changed files and folders): each is walked with the
   * ignore rules and containment a full walk of `within` would apply on the way down, and an ignored path, or one
   * under an ignored folder, yields nothing.
   */
  within?: string;
}

interface Matcher {
  base: string;
  ig: Ignore;
  /** The project ignore file's rules alone: only its `!` rules may re-include a sensitive file. */
  project: Ignore | null;
}

function loadMatcher(dir: string, extra: string[] = []): Matcher | null {
  const ig = ignore();
  let any = extra.length > 0;
  let project: Ignore | null = null;
  ig.add(extra);
  for (const name of ['.gitignore', PROJECT_IGNORE_FILE]) {
    try {
      const rules = readFileSync(join(dir, name), 'utf8');
      ig.add(rules);
      if (name === PROJECT_IGNORE_FILE) project = ignore().add(rules);
      any = true;
    } catch {
      // absent or unreadable ignore files mean "no rules here"
    }
  }
  return any ? { base: dir, ig, project } : null;
}

/** Re-included by a `!` rule of a .contextpackignore above it (deepest match wins). */
function isReincluded(path: string, matchers: Matcher[]): boolean {
  let state = false;
  for (const m of matchers) {
    if (!m.project) continue;
    const rel = relative(m.base, path).split(sep).join('/');
    if (rel === '' || rel.startsWith('..')) continue;
    const r = m.project.test(rel);
    if (r.unignored) state = true;
    else if (r.ignored) state = false;
  }
  return state;
}

/** Nested ignore files apply below their folder; deeper rules (including `!` negations) override shallower ones. */
function isIgnored(path: string, isDir: boolean, matchers: Matcher[]): boolean {
  let ignored = false;
  for (const m of matchers) {
    let rel = relative(m.base, path).split(sep).join('/');
    if (rel === '' || rel.startsWith('..')) continue;
    if (isDir) rel += '/';
    const r = m.ig.test(rel);
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

/**
 * Whether the folders on the way to `path`, resolved through every link, stay below `realRoot` (unless links may be
 * followed) and the path itself inside the serve-mode bounds. A loop lies inside nothing.
 */
function insideReal(path: string, realRoot: string, options: ContainmentOptions): boolean {
  try {
    if (options.allowedRoots && !options.allowedRoots.some((r) => isInside(realLocation(path), r))) return false;
    return symlinkReason(realLocation(dirname(path)), realRoot, { followSymlinks: options.followSymlinks }) === null;
  } catch {
    return false;
  }
}

/**
 * Walks files and folders. Below a folder root, a symlink is followed only when its real target stays inside the
 * root (unless `followSymlinks`), and files named like credentials are skipped unless `.contextpackignore`
 * re-includes them; see containment.ts.
 */
export function walk(roots: string[], options: WalkOptions = {}): WalkResult {
  const files: WalkedFile[] = [];
  const failed: WalkIssue[] = [];
  const skipped: WalkIssue[] = [];
  const walkedFolders: string[] = [];
  const realRoots = new Map<string, string>();

  function visitDir(dir: string, root: string, matchers: Matcher[], ancestors: Set<string>): void {
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch (err) {
      failed.push({ path: dir, root, reason: `unreadable folder: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
      return;
    }
    const own = loadMatcher(dir, dir === root ? DEFAULT_IGNORES : []);
    const active = own ? [...matchers, own] : matchers;
    for (const name of entries) visit(join(dir, name), root, active, ancestors);
  }

  function visit(path: string, root: string, matchers: Matcher[], ancestors: Set<string>): void {
    let st: Stats;
    try {
      st = lstatSync(path);
    } catch (err) {
      failed.push({ path, root, reason: `unreadable: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
      return;
    }
    let target: string | null = null;
    if (st.isSymbolicLink()) {
      let real: string;
      try {
        real = realpathSync(path);
        st = statSync(path);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        failed.push({ path, root, reason: code === 'ELOOP' ? 'symlink loop' : `broken symlink (${code ?? 'error'})` });
        return;
      }
      if (st.isDirectory() && ancestors.has(real)) {
        if (!isIgnored(path, true, matchers)) failed.push({ path, root, reason: 'symlink loop' });
        return;
      }
      // A link out of the folder the user gave (to ~/.pgpass, /etc, a home folder) is not part of the project.
      if (symlinkReason(real, realRoots.get(root)!, options)) {
        if (!isIgnored(path, st.isDirectory(), matchers)) skipped.push({ path, root, reason: SYMLINK_OUTSIDE_ROOT });
        return;
      }
      target = real;
    }
    if (st.isDirectory()) {
      if (isIgnored(path, true, matchers)) return;
      let real: string;
      try {
        real = realpathSync(path);
      } catch {
        real = path;
      }
      const next = new Set(ancestors);
      next.add(real);
      visitDir(path, root, matchers, next);
      return;
    }
    if (isIgnored(path, false, matchers)) return;
    const special = specialFileReason(st);
    if (special) {
      skipped.push({ path, root, reason: special });
      return;
    }
    // A second name for a file may sit anywhere on the disk (a hard link to ~/.pgpass): like a link out of the root.
    const linked = hardLinkReason(st, options);
    if (linked) {
      skipped.push({ path, root, reason: linked });
      return;
    }
    // The link's own name and its target's: `notes.txt -> .env` is still the .env.
    const sensitive = sensitiveReason(path) ?? (target ? sensitiveReason(target) : null);
    if (sensitive && !isReincluded(path, matchers)) {
      skipped.push({ path, root, reason: sensitive });
      return;
    }
    files.push({ path, root, stats: st });
  }

  if (options.within !== undefined) {
    const missing: string[] = [];
    walkInside(options.within, roots, missing);
    return { files, failed, skipped, walkedFolders, missing };
  }

  function walkInside(root: string, paths: string[], missing: string[]): void {
    let realRoot: string;
    try {
      realRoot = realpathSync(root);
    } catch {
      missing.push(...paths);
      return;
    }
    realRoots.set(root, realRoot);
    const cache = new Map<string, Matcher | null>();
    const matcherOf = (dir: string) => {
      if (!cache.has(dir)) cache.set(dir, loadMatcher(dir, dir === root ? DEFAULT_IGNORES : []));
      return cache.get(dir)!;
    };
    for (const path of paths) {
      const rel = relative(root, path);
      if (rel.startsWith('..') || isAbsolute(rel)) continue;
      let st: Stats;
      try {
        st = lstatSync(path);
      } catch {
        missing.push(path);
        continue;
      }
      if (rel === '') {
        walkedFolders.push(root);
        visitDir(root, root, [], new Set([realRoot]));
        continue;
      }
      // The folders from the root down to the path's parent: their ignore files apply, and none may be ignored itself.
      const parts = rel.split(sep);
      const matchers: Matcher[] = [];
      const ancestors = new Set<string>();
      let dir = root;
      let ignored = false;
      for (let i = 0; i < parts.length; i++) {
        const m = matcherOf(dir);
        if (m) matchers.push(m);
        try {
          ancestors.add(realpathSync(dir));
        } catch {
          ancestors.add(dir);
        }
        if (i === parts.length - 1) break;
        dir = join(dir, parts[i]!);
        if (isIgnored(dir, true, matchers)) {
          ignored = true;
          break;
        }
      }
      if (ignored) continue;
      // A link on the way down (`docs/link/private.md` with `docs/link -> ../../outside`) is judged like one the
      // walk meets: the path's folder, resolved link by link, must stay inside the root. The last component is
      // visit()'s to judge, with the same rule.
      if (!insideReal(path, realRoot, options)) {
        if (!isIgnored(path, st.isDirectory(), matchers)) skipped.push({ path, root, reason: SYMLINK_OUTSIDE_ROOT });
        continue;
      }
      if (st.isDirectory()) walkedFolders.push(path);
      visit(path, root, matchers, ancestors);
    }
  }

  for (const root of roots) {
    let st: Stats;
    try {
      st = statSync(root);
    } catch (err) {
      failed.push({ path: root, root, reason: `not found: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
      continue;
    }
    if (st.isDirectory()) {
      walkedFolders.push(root);
      const real = realpathSync(root);
      realRoots.set(root, real);
      visitDir(root, root, [], new Set([real]));
      continue;
    }
    // A file named directly is its own root: the user chose it, so a link is followed; credential files still are not read.
    let real = root;
    try {
      real = realpathSync(root);
    } catch {
      // statSync succeeded, so this is a race with a deletion; the read reports it
    }
    const special = specialFileReason(st);
    const sensitive = sensitiveReason(root) ?? (real !== root ? sensitiveReason(real) : null);
    if (special) skipped.push({ path: root, root, reason: special });
    else if (sensitive && !reincluded(root, dirname(root))) skipped.push({ path: root, root, reason: sensitive });
    else files.push({ path: root, root, stats: st });
  }
  return { files, failed, skipped, walkedFolders };
}

