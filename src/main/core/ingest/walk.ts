import { lstatSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';

export const PROJECT_IGNORE_FILE = '.contextpackignore';
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
  /** Folder roots that were walked; sources under them that were not seen again have left the disk. */
  walkedFolders: string[];
}

interface Matcher {
  base: string;
  ig: Ignore;
}

function loadMatcher(dir: string, extra: string[] = []): Matcher | null {
  const ig = ignore();
  let any = extra.length > 0;
  ig.add(extra);
  for (const name of ['.gitignore', PROJECT_IGNORE_FILE]) {
    try {
      ig.add(readFileSync(join(dir, name), 'utf8'));
      any = true;
    } catch {
      // absent or unreadable ignore files mean "no rules here"
    }
  }
  return any ? { base: dir, ig } : null;
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

export function walk(roots: string[]): WalkResult {
  const files: WalkedFile[] = [];
  const failed: WalkIssue[] = [];
  const walkedFolders: string[] = [];

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
    if (!st.isFile()) return; // sockets, fifos, devices are not documents
    if (isIgnored(path, false, matchers)) return;
    files.push({ path, root, stats: st });
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
      visitDir(root, root, [], new Set([realpathSync(root)]));
    } else files.push({ path: root, root, stats: st });
  }
  return { files, failed, walkedFolders };
}
