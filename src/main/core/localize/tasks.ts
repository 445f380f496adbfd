import { execFileSync } from 'node:child_process';
import { classifyPath } from '../ingest/file-types.ts';
import { isTestPath } from '../search/code-paths.ts';

/** One localization task from a repository's history: a fix commit's subject as the query, its source files as gold. */
export interface LocalizeTask {
  commit: string;
  subject: string;
  query: string;
  /** Changed non-test source files that exist in HEAD's tree, relative to the repository root, `/`-separated. */
  gold: string[];
}

export interface BuildTasksOptions {
  limit?: number;
  /**
   * 'fix' (default): subjects starting with `fix`, as the issue defines the benchmark. 'any': every subject, for
   * a history without fix commits (this repository's own): then a leading `area:` prefix is dropped too.
   */
  subjects?: 'fix' | 'any';
  /** Runs git; a test can pass its own. */
  git?: (args: string[]) => string;
}

// Configuration and data formats are not what a bug fix "touches" in the sense of the benchmark.
const NOT_SOURCE = new Set(['yaml', 'toml', 'ini', 'xml', 'dotenv', 'json', 'make', 'dockerfile', 'just', 'groovy', 'css', 'scss', 'sass', 'less', 'shell', 'batch', 'powershell']);

export function isSourcePath(path: string): boolean {
  const kind = classifyPath(path);
  return kind !== 'binary' && kind.type === 'code' && !NOT_SOURCE.has(kind.language ?? '') && !isTestPath(path);
}

const FIX_SUBJECT = /^fix(?:e[sd])?\b/i;

/**
 * The query an agent would be given: the subject without its `fix` type (`fix:`, `Fix`, `fixes`) and without PR or
 * issue numbers (`(#123)`, `#123`, `gh-123`). A conventional-commit scope stays (`fix(router)!: x` → `router: x`):
 * it is the author's own word for where the fix lives, part of the subject an agent would be handed.
 */
export function taskQuery(subject: string): string {
  return subject
    .replace(/^\s*fix(?:e[sd])?\b(?:\(([^)]*)\))?!?\s*:?\s*/i, (_m, scope?: string) => (scope?.trim() ? `${scope.trim()}: ` : ''))
    .replace(/\(\s*(?:#|gh-)\d+\s*\)/gi, ' ')
    .replace(/(?:#|\bgh-)\d+\b/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Non-merge commits, newest first, whose subject starts with `fix` and that change 1–3 non-test source files
 * still present at HEAD (test, doc and config changes may ride along); gold = those files.
 */
export function buildTasks(repoDir: string, options: BuildTasksOptions = {}): LocalizeTask[] {
  const git = options.git ?? ((args: string[]) => execFileSync('git', ['-C', repoDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 }));
  const limit = options.limit ?? Infinity;
  const head = new Set(git(['ls-tree', '-r', '--name-only', '-z', 'HEAD']).split('\0').filter(Boolean));
  const log = git(['log', '--no-merges', '--no-renames', '--format=%x1e%H%x1f%s', '--name-only', '-z', 'HEAD']);
  const tasks: LocalizeTask[] = [];
  for (const record of log.split('\x1e')) {
    if (tasks.length >= limit) break;
    if (record.trim() === '') continue;
    const [header, rest = ''] = splitOnce(record, '\0');
    const [commit, subject = ''] = header.split('\x1f');
    const any = options.subjects === 'any';
    if (!commit || (!any && !FIX_SUBJECT.test(subject))) continue;
    const files = rest.split(/[\0\n]/).map((f) => f.trim()).filter(Boolean);
    const changedSource = files.filter(isSourcePath);
    if (changedSource.length < 1 || changedSource.length > 3) continue;
    const gold = changedSource.filter((f) => head.has(f));
    if (gold.length !== changedSource.length) continue;
    const query = taskQuery(any ? subject.replace(/^[\w ./,-]{1,40}:\s+/, '') : subject);
    if (query === '') continue;
    tasks.push({ commit, subject, query, gold: [...new Set(gold)].sort() });
  }
  return tasks;
}

function splitOnce(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + sep.length)];
}
