// The issue benchmark's data (issue #32): real GitHub issues with the patch that fixed them, each taken at the
// fix's parent commit. One instance per JSONL line, in the field names the SWE-bench family of datasets uses
// (instance_id, repo, base_commit, patch, problem_statement), so a copy of any of them can be run as it is.
import { isSourcePath } from './tasks.ts';
import type { GoldHunk } from './line-tasks.ts';

export interface IssueInstance {
  instance_id: string;
  /** `owner/name` on GitHub. */
  repo: string;
  /** The fix's parent: the tree the issue is localized in. */
  base_commit: string;
  /** The fix as a unified diff against base_commit (test files may be left out, as SWE-bench does). */
  patch: string;
  /** The issue's title and body, as the agent would be handed it. */
  problem_statement: string;
  language?: string;
}

/** SWE-bench's twelve repositories: held out of every development set (issue #32). */
export const HELD_OUT_REPOS = new Set(
  ['astropy/astropy', 'django/django', 'pallets/flask', 'matplotlib/matplotlib', 'pylint-dev/pylint', 'pytest-dev/pytest', 'psf/requests', 'scikit-learn/scikit-learn', 'mwaskom/seaborn', 'sphinx-doc/sphinx', 'sympy/sympy', 'pydata/xarray'],
);
const HELD_OUT_NAMES = new Set([...HELD_OUT_REPOS].map((r) => r.split('/')[1]!));

/** Whether a repository is one of the held-out twelve (by its name too: forks and renames are held out alike). */
export function isHeldOut(repo: string): boolean {
  const lower = repo.toLowerCase();
  return HELD_OUT_REPOS.has(lower) || HELD_OUT_NAMES.has(lower.split('/').pop()!);
}

/** Parses a JSONL issue set; a bad line is an error naming the file, the line and the field. */
export function parseIssueSet(text: string, file: string): IssueInstance[] {
  const out: IssueInstance[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let row: Record<string, unknown>;
    try {
      row = JSON.parse(line) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`${file}:${i + 1}: not JSON (${(err as Error).message})`);
    }
    for (const field of ['instance_id', 'repo', 'base_commit', 'patch', 'problem_statement'] as const) {
      if (typeof row[field] !== 'string' || (row[field] as string).trim() === '') throw new Error(`${file}:${i + 1}: ${field} must be a non-empty string`);
    }
    if (!/^[0-9a-f]{7,40}$/i.test(row.base_commit as string)) throw new Error(`${file}:${i + 1}: base_commit must be a commit hash`);
    out.push({
      instance_id: row.instance_id as string,
      repo: row.repo as string,
      base_commit: row.base_commit as string,
      patch: row.patch as string,
      problem_statement: row.problem_statement as string,
      ...(typeof row.language === 'string' ? { language: row.language } : {}),
    });
  }
  return out;
}

/** What a patch asks to find: the non-test source files it modifies (present before and after) and their hunks. */
export interface PatchGold {
  files: string[];
  hunks: GoldHunk[];
}

/**
 * Gold files and hunks of a unified diff (any context size), in the old file's numbering, as `git diff -U0` would
 * give them (line-tasks.ts parseHunks): a run of changed lines that removes some covers the removed lines; a run
 * that only inserts is placed on the line just before the insertion (line 1 at the top). Added and deleted files,
 * tests and non-source files are left out: an added file has no line to find at the base.
 */
export function patchGold(patch: string): PatchGold {
  const hunks: GoldHunk[] = [];
  const files = new Set<string>();
  let file: string | null = null;
  let oldPath: string | null = null;
  let old = 0;
  let run: { start: number; end: number; removed: boolean } | null = null;
  const flush = () => {
    if (run && file !== null) hunks.push(run.removed ? { file, start: run.start, end: run.end } : { file, start: Math.max(1, run.start), end: Math.max(1, run.start) });
    run = null;
  };
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      flush();
      file = null;
      oldPath = null;
      continue;
    }
    if (line.startsWith('--- ')) {
      flush();
      const p = line.slice(4).replace(/\t.*$/, '');
      oldPath = p === '/dev/null' ? null : p.replace(/^a\//, '');
      continue;
    }
    if (line.startsWith('+++ ')) {
      const p = line.slice(4).replace(/\t.*$/, '');
      const newPath = p === '/dev/null' ? null : p.replace(/^b\//, '');
      file = oldPath !== null && newPath === oldPath && isSourcePath(oldPath) ? oldPath : null;
      if (file !== null) files.add(file);
      continue;
    }
    const h = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line);
    if (h) {
      flush();
      // `-a,0` (a hunk with no old line, -U0) names the line before the insertion; otherwise a is the next old line.
      old = Number(h[1]) + (h[2] === '0' ? 1 : 0);
      continue;
    }
    if (file === null) continue;
    if (line.startsWith('-')) {
      if (!run) run = { start: old, end: old, removed: true };
      else if (!run.removed) run = { start: old, end: old, removed: true };
      else run.end = old;
      old++;
    } else if (line.startsWith('+')) {
      if (!run) run = { start: old - 1, end: old - 1, removed: false };
    } else if (line.startsWith(' ') || line === '') {
      flush();
      old++;
    }
  }
  flush();
  return { files: [...files].sort(), hunks: hunks.filter((x) => files.has(x.file)) };
}

/** Distinct paths in their first-seen order (a ranking of chunks becomes a ranking of files). */
export function distinctInOrder(paths: Iterable<string>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const p of paths) {
    if (seen.has(p)) continue;
    seen.add(p);
    out.push(p);
  }
  return out;
}

/** 1 when a gold file is among the first k files of the ranking, else 0 (file Acc@k, as LocAgent reports it). */
export function fileAccAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  const top = new Set(distinctInOrder(ranked).slice(0, k));
  return gold.some((g) => top.has(g)) ? 1 : 0;
}
