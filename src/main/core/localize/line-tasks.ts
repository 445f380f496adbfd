import { execFileSync } from 'node:child_process';
import { isSourcePath, taskQuery } from './tasks.ts';
import { unitWindows, windowTerms } from '../packet/unit-windows.ts';

/** Lines of one file at the fix's parent tree that the fix changes (1-based, inclusive). */
export interface GoldHunk {
  file: string;
  start: number;
  end: number;
}

/** A fix commit to localize at its parent tree: the query, the files and the hunks the fix changes there. */
export interface LineTask {
  commit: string;
  parent: string;
  subject: string;
  query: string;
  gold: string[];
  hunks: GoldHunk[];
}

export interface BuildLineTasksOptions {
  limit?: number;
  /** Runs git in the repository; a test can pass its own. */
  git?: (args: string[]) => string;
}

/**
 * Hunks of a `git diff -U0` in the old file's numbering: a change or deletion covers the lines it removes; a pure
 * insertion (`-a,0`) is placed on line a, the line just before the inserted ones (line 1 when inserted at the top).
 */
export function parseHunks(diff: string): GoldHunk[] {
  const out: GoldHunk[] = [];
  let file: string | null = null;
  for (const line of diff.split('\n')) {
    if (line.startsWith('--- ')) {
      const p = line.slice(4);
      file = p === '/dev/null' ? null : p.replace(/^a\//, '');
      continue;
    }
    const m = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line);
    if (!m || file === null) continue;
    const start = Number(m[1]);
    const count = m[2] === undefined ? 1 : Number(m[2]);
    if (count === 0) out.push({ file, start: Math.max(1, start), end: Math.max(1, start) });
    else out.push({ file, start, end: start + count - 1 });
  }
  return out;
}

/**
 * Non-merge single-parent commits, newest first, whose subject starts with `fix` and that modify 1–3 non-test
 * source files existing at the parent (tests, docs and config may ride along); gold hunks are those files' hunks.
 * Commits that only add files give no line to find, and are skipped.
 */
export function buildLineTasks(repoDir: string, options: BuildLineTasksOptions = {}): LineTask[] {
  const git = options.git ?? ((args: string[]) => execFileSync('git', ['-C', repoDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 }));
  const limit = options.limit ?? Infinity;
  const log = git(['log', '--no-merges', '--format=%H%x1f%P%x1f%s', 'HEAD']);
  const tasks: LineTask[] = [];
  for (const row of log.split('\n')) {
    if (tasks.length >= limit) break;
    const [commit, parents = '', subject = ''] = row.split('\x1f');
    if (!commit || !/^fix(?:e[sd])?\b/i.test(subject)) continue;
    const parent = parents.split(' ').filter(Boolean);
    if (parent.length !== 1) continue;
    const status = git(['diff', '--no-renames', '--name-status', '-z', parent[0]!, commit]).split('\0').filter(Boolean);
    const modified: string[] = [];
    let sourceTouched = 0;
    for (let i = 0; i + 1 < status.length; i += 2) {
      const [kind, path] = [status[i]!, status[i + 1]!];
      if (!isSourcePath(path)) continue;
      sourceTouched++;
      if (kind === 'M') modified.push(path);
    }
    if (modified.length < 1 || sourceTouched > 3) continue;
    const hunks = parseHunks(git(['diff', '--no-renames', '-U0', '--no-color', parent[0]!, commit, '--', ...modified]));
    if (hunks.length === 0) continue;
    const query = taskQuery(subject);
    if (query === '') continue;
    tasks.push({ commit, parent: parent[0]!, subject, query, gold: [...modified].sort(), hunks });
  }
  return tasks;
}

/** A shown span of a file (an evidence item's lines). */
export interface ShownSpan {
  file: string;
  start: number;
  end: number;
}

/** Hunk hit (≥ 1 gold hunk overlapped by a shown span) and hunk recall (share overlapped) for one task. */
export function scoreHunks(shown: readonly ShownSpan[], hunks: readonly GoldHunk[]): { hit: number; recall: number } {
  const got = hunks.filter((h) => shown.some((s) => s.file === h.file && s.start <= h.end && s.end >= h.start)).length;
  return { hit: got > 0 ? 1 : 0, recall: hunks.length === 0 ? 0 : got / hunks.length };
}

/** Lines either side of a gold hunk that count as its place when asking whether the subject names it. */
export const NAMED_CONTEXT = 2;

/**
 * Whether the subject names the place of some gold hunk: one of its words (code words, stemmed, as unit windows
 * match lines) on the hunk's lines or within NAMED_CONTEXT lines of them, in the file at the parent. A subject like
 * "mypy finding" or "typo" names none, and no method that matches words can show its lines but by chance.
 * `textOf`: a file's text at the parent (undefined when it is not there).
 */
export function subjectNamesHunk(query: string, hunks: readonly GoldHunk[], textOf: (file: string) => string | undefined): boolean {
  const terms = windowTerms(query);
  return hunks.some((h) => {
    const text = textOf(h.file);
    if (text === undefined) return false;
    return unitWindows(text.split('\n'), { start: h.start - NAMED_CONTEXT, end: h.end + NAMED_CONTEXT }, terms, []).length > 0;
  });
}
