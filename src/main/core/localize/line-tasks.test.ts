import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { buildLineTasks, parseHunks, scoreHunks, subjectNamesHunk } from './line-tasks.ts';

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}`).join('\n') + '\n';

describe('line-level localization tasks from git history', () => {
  const tmp = tempDirs('cp-line-tasks-');
  let repo: string;
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.test', '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8' });
  const commit = (subject: string, files: Record<string, string>) => {
    writeTree(repo, files);
    git('add', '-A');
    git('commit', '-q', '-m', subject);
    return git('rev-parse', 'HEAD').trim();
  };
  const a = lines(20, 'a');
  let first: string;
  let changed: string;
  let inserted: string;

  beforeAll(() => {
    repo = tmp.make();
    execFileSync('git', ['init', '-q', '-b', 'main', repo]);
    first = commit('initial', { 'lib/a.js': a, 'lib/b.py': lines(10, 'b'), 'test/a.test.js': 't1', 'CHANGES.md': 'c1' });
    // Lines 5 and 6 replaced, line 15 deleted; a test and the changelog ride along.
    const a2 = a.split('\n').map((l, i) => (i === 4 || i === 5 ? `${l} fixed` : l)).filter((_, i) => i !== 14).join('\n');
    changed = commit('fix(lib): handle empty body (#12)', { 'lib/a.js': a2, 'test/a.test.js': 't2', 'CHANGES.md': 'c2' });
    // A pure insertion after line 3 of b.py.
    const b2 = lines(10, 'b').split('\n');
    b2.splice(3, 0, 'inserted one', 'inserted two');
    inserted = commit('Fix missing guard', { 'lib/b.py': b2.join('\n') });
    // Only adds a file: no line at the parent to find.
    commit('fix: add helper', { 'lib/new.js': 'x' });
    // Not a fix.
    commit('feat: more', { 'lib/a.js': a2 + 'more\n' });
  });
  afterAll(() => tmp.cleanup());

  it('takes fix commits that modify source files, with hunks numbered at the parent', () => {
    const tasks = buildLineTasks(repo);
    expect(tasks.map((t) => t.query)).toEqual(['missing guard', 'lib: handle empty body']);
    const [ins, chg] = tasks;
    expect(ins!.commit).toBe(inserted);
    expect(ins!.parent).toBe(changed);
    expect(ins!.gold).toEqual(['lib/b.py']);
    // The line just before the insertion.
    expect(ins!.hunks).toEqual([{ file: 'lib/b.py', start: 3, end: 3 }]);
    expect(chg!.parent).toBe(first);
    expect(chg!.gold).toEqual(['lib/a.js']);
    expect(chg!.hunks).toEqual([
      { file: 'lib/a.js', start: 5, end: 6 },
      { file: 'lib/a.js', start: 15, end: 15 },
    ]);
    expect(buildLineTasks(repo, { limit: 1 })).toHaveLength(1);
  });

  it('parses an insertion at the top of a file as line 1', () => {
    expect(parseHunks('--- a/x.go\n+++ b/x.go\n@@ -0,0 +1,2 @@\n+a\n+b\n')).toEqual([{ file: 'x.go', start: 1, end: 1 }]);
    expect(parseHunks('--- a/x.go\n+++ b/x.go\n@@ -7 +7 @@\n-a\n+b\n')).toEqual([{ file: 'x.go', start: 7, end: 7 }]);
  });

  it('scores a hunk as shown when a span of the same file overlaps it', () => {
    const hunks = [{ file: 'a.js', start: 5, end: 6 }, { file: 'a.js', start: 15, end: 15 }];
    expect(scoreHunks([{ file: 'a.js', start: 1, end: 5 }], hunks)).toEqual({ hit: 1, recall: 0.5 });
    expect(scoreHunks([{ file: 'b.js', start: 1, end: 50 }, { file: 'a.js', start: 7, end: 14 }], hunks)).toEqual({ hit: 0, recall: 0 });
    expect(scoreHunks([{ file: 'a.js', start: 1, end: 99 }], hunks)).toEqual({ hit: 1, recall: 1 });
  });

  it('says whether the subject names a hunk\'s place: a word of it on the hunk\'s lines or two lines around', () => {
    const file = ['def load(path):', '    data = read(path)', '    return parse(data)', '', '', '', 'def save(obj):', '    write(obj)'].join('\n');
    const textOf = (f: string) => (f === 'io.py' ? file : undefined);
    const hunk = [{ file: 'io.py', start: 8, end: 8 }];
    expect(subjectNamesHunk('write fails on save', hunk, textOf)).toBe(true);
    // The light stemmer takes "saved" to "sav", which "save" is not: no word of this subject is there.
    expect(subjectNamesHunk('objects were not saved', hunk, textOf)).toBe(false);
    // Line 5 is blank; "data" two lines up counts, three lines away does not.
    expect(subjectNamesHunk('parsing of data', [{ file: 'io.py', start: 5, end: 5 }], textOf)).toBe(true);
    expect(subjectNamesHunk('parsing of data', [{ file: 'io.py', start: 6, end: 6 }], textOf)).toBe(false);
    expect(subjectNamesHunk('mypy finding', hunk, textOf)).toBe(false);
    expect(subjectNamesHunk('write', [{ file: 'gone.py', start: 1, end: 1 }], textOf)).toBe(false);
  });
});
