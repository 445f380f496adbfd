// node bench/issues-dataset.ts --issues <file> --mirrors <dir> --out <file.jsonl> [--per-repo 8] [--repos a/b,c/d] [--language Rust]
// Builds the issue benchmark's development set (issue #32) from a published set of real GitHub issues and the
// repositories' own history: each issue's fixing pull request is found in the repository (its squash commit
// `… (#N)`, its merge commit `Merge pull request #N` / `Merge #N`, or a commit whose message says `Closes #N` /
// `PR #N`), and the instance is that commit's diff, taken at its first parent. Only fixes that modify at least one
// non-test source file existing at the parent are kept, and at most 6 such files (a refactor is not a localization
// task). SWE-bench's twelve repositories are refused (held out).
// --issues: a JSON object { "<owner>__<name>-<PR>": "<issue text>" } (Rust-SWE-bench's rb_all_bug_report.json),
// JSONL rows with instance_id and problem_statement, or a git directory of task folders `tasks/<id>/` each with an
// instruction.md (the issue) and a task.toml naming repository_owner, repository_name and code_change_id (the pull
// request), as kotlin-swe-bench keeps them; the instruction's own first line (`# Implement the issue(s) in …`) is
// dropped. --mirrors: a folder of git directories, one per repository, at
// `<owner>+<name>/repo`, `<owner>+<name>`, `<owner>__<name>` or `<name>` (a snapshot brought by the `fetch` tool, or
// a clone). Output rows: instance_id, repo, language, pull_number, problem_statement, base_commit, fix_commit,
// patch (non-test files, 3 lines of context), as bench/issues.ts reads them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { isHeldOut, patchGold } from '../src/main/core/localize/issue-set.ts';
import { isTestPath } from '../src/main/core/search/code-paths.ts';
import { findGitDir } from './lib/git-dirs.ts';

const { values } = parseArgs({
  options: {
    issues: { type: 'string' },
    mirrors: { type: 'string', default: '/work/.mirror' },
    out: { type: 'string' },
    'per-repo': { type: 'string', default: '8' },
    repos: { type: 'string' },
    language: { type: 'string' },
  },
});
if (!values.issues || !values.out) {
  console.error('usage: node bench/issues-dataset.ts --issues <file> --mirrors <dir> --out <file.jsonl> [--per-repo 8] [--repos a/b,c/d] [--language Rust]');
  process.exit(2);
}
const perRepo = Number(values['per-repo']);
const MAX_GOLD_FILES = 6;

const issues = readIssues(values.issues);
const byRepo = new Map<string, { id: string; pr: number; text: string }[]>();
for (const [id, text] of issues) {
  const m = /^(.+?)__(.+)-(\d+)$/.exec(id);
  if (!m) continue;
  const repo = `${m[1]}/${m[2]}`;
  if (!byRepo.has(repo)) byRepo.set(repo, []);
  byRepo.get(repo)!.push({ id, pr: Number(m[3]), text });
}
const wanted = values.repos ? new Set(values.repos.split(',').map((r) => r.trim().toLowerCase())) : null;
const rows: string[] = [];
for (const [repo, list] of [...byRepo].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
  if (wanted && !wanted.has(repo.toLowerCase())) continue;
  if (isHeldOut(repo)) {
    console.error(`${repo}: held out (one of SWE-bench's twelve repositories), skipped`);
    continue;
  }
  const dir = findGitDir(values.mirrors!, repo);
  if (!dir) {
    if (wanted) console.error(`${repo}: no git directory under ${values.mirrors}, skipped`);
    continue;
  }
  const git = (args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const log = git(['log', '--format=%x1e%H%x1f%P%x1f%B', 'HEAD']).split('\x1e').filter(Boolean).map((r) => {
    const [hash, parents, body = ''] = r.split('\x1f');
    return { hash: hash!, parents: parents!.split(' ').filter(Boolean), subject: body.split('\n')[0]!.trim(), body };
  });
  let kept = 0;
  const reasons = new Map<string, number>();
  const skip = (why: string) => reasons.set(why, (reasons.get(why) ?? 0) + 1);
  // Newest pull requests first: the nearest to the snapshot's history.
  for (const item of list.sort((a, b) => b.pr - a.pr)) {
    if (kept >= perRepo) break;
    const fix = findFix(log, item.pr);
    if (!fix) {
      skip('no commit of the pull request in the history');
      continue;
    }
    const parent = fix.parents[0]!;
    const changed = git(['diff', '--no-renames', '--name-only', '-z', parent, fix.hash]).split('\0').filter(Boolean);
    const nonTest = changed.filter((p) => !isTestPath(p));
    if (nonTest.length === 0) {
      skip('changes tests only');
      continue;
    }
    const patch = git(['diff', '--no-renames', '--no-color', '-U3', parent, fix.hash, '--', ...nonTest]);
    const gold = patchGold(patch);
    if (gold.files.length === 0 || gold.hunks.length === 0) {
      skip('modifies no existing non-test source file');
      continue;
    }
    if (gold.files.length > MAX_GOLD_FILES) {
      skip(`modifies more than ${MAX_GOLD_FILES} source files`);
      continue;
    }
    rows.push(
      JSON.stringify({
        instance_id: item.id,
        repo,
        ...(values.language ? { language: values.language } : {}),
        pull_number: item.pr,
        problem_statement: item.text,
        base_commit: parent,
        fix_commit: fix.hash,
        patch,
      }),
    );
    kept++;
  }
  console.error(`${repo}: ${kept} of ${list.length} issues kept${reasons.size ? ` (skipped: ${[...reasons].map(([w, n]) => `${n} ${w}`).join(', ')})` : ''}`);
}
mkdirSync(dirname(values.out), { recursive: true });
writeFileSync(values.out, rows.join('\n') + '\n');
console.error(`${rows.length} instances written to ${values.out}`);

function readIssues(file: string): Map<string, string> {
  if (statSync(file).isDirectory()) return readTaskFolders(file);
  const text = readFileSync(file, 'utf8');
  const out = new Map<string, string>();
  if (text.trimStart().startsWith('{') && !text.trimStart().startsWith('{"instance_id"')) {
    for (const [id, body] of Object.entries(JSON.parse(text) as Record<string, unknown>)) if (typeof body === 'string') out.set(id, body);
    return out;
  }
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const row = JSON.parse(line) as { instance_id?: unknown; problem_statement?: unknown };
    if (typeof row.instance_id !== 'string' || typeof row.problem_statement !== 'string') throw new Error(`${file}:${i + 1}: instance_id and problem_statement must be strings`);
    out.set(row.instance_id, row.problem_statement);
  });
  return out;
}


/** The commit that brought pull request `pr` in: squash or merge subject first, then a `Closes #N` / `PR #N` line. */
/** Task folders of a git directory (HEAD): `tasks/<id>/instruction.md` and `task.toml`. */
function readTaskFolders(dir: string): Map<string, string> {
  const git = (args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const out = new Map<string, string>();
  for (const name of git(['ls-tree', '--name-only', 'HEAD:tasks']).split('\n').filter(Boolean)) {
    let toml: string;
    let instruction: string;
    try {
      toml = git(['show', `HEAD:tasks/${name}/task.toml`]);
      instruction = git(['show', `HEAD:tasks/${name}/instruction.md`]);
    } catch {
      continue;
    }
    const field = (key: string) => new RegExp(`^${key}\\s*=\\s*"([^"]+)"`, 'm').exec(toml)?.[1];
    const [owner, repo, pr] = [field('repository_owner'), field('repository_name'), field('code_change_id')];
    if (!owner || !repo || !pr || !/^\d+$/.test(pr)) continue;
    out.set(`${owner}__${repo}-${pr}`, instruction.replace(/^# Implement the issue\(s\) in [^\n]*\n+/, ''));
  }
  return out;
}

function findFix(log: { hash: string; parents: string[]; subject: string; body: string }[], pr: number) {
  const bySubject = log.find((c) => new RegExp(`\\(#${pr}\\)\\s*$`).test(c.subject) || new RegExp(`^Merge (?:pull request )?#${pr}\\b`).test(c.subject));
  if (bySubject) return bySubject;
  return log.find((c) => c.parents.length === 1 && new RegExp(`^\\s*(?:Closes|PR) #${pr}\\s*$`, 'im').test(c.body)) ?? null;
}
