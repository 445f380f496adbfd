import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { createGrepBaseline, scoreFiles } from './grep-baseline.ts';
import { buildTasks, isSourcePath, taskQuery } from './tasks.ts';

describe('localization tasks from git history', () => {
  const tmp = tempDirs('cp-localize-');
  let repo: string;
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.test', '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8' });
  const commit = (subject: string, files: Record<string, string>, remove: string[] = []) => {
    writeTree(repo, files);
    for (const r of remove) rmSync(join(repo, r));
    git('add', '-A');
    git('commit', '-q', '-m', subject);
  };

  beforeAll(() => {
    repo = tmp.make();
    execFileSync('git', ['init', '-q', '-b', 'main', repo]);
    commit('initial', { 'lib/a.js': 'a1', 'lib/b.js': 'b1', 'lib/c.js': 'c1', 'lib/d.js': 'd1', 'lib/old.js': 'o1', 'test/a.test.js': 't1', 'README.md': 'r1', 'config.yml': 'y1' });
    commit('fix(router)!: handle trailing slash (#12)', { 'lib/a.js': 'a2', 'test/a.test.js': 't2' });
    commit('Fix: crash on empty body', { 'lib/a.js': 'a3', 'lib/b.js': 'b3', 'lib/c.js': 'c3', 'lib/d.js': 'd3' });
    commit('fix typo in docs', { 'README.md': 'r4', 'config.yml': 'y4' });
    commit('feat: new thing', { 'lib/b.js': 'b5' });
    commit('fix: drop old helper', { 'lib/b.js': 'b6' }, ['lib/old.js']);
    commit('fixes #45', { 'lib/c.js': 'c7' });
    commit('fixture refresh', { 'lib/d.js': 'd8' });
    commit('Fixed redirect loop in b and c gh-77', { 'lib/b.js': 'b9', 'lib/c.js': 'c9', 'test/a.test.js': 't9' });
    // A merge whose subject starts with "fix": merges are not tasks.
    git('checkout', '-q', '-b', 'side');
    commit('side change', { 'lib/d.js': 'd10' });
    git('checkout', '-q', 'main');
    commit('main change', { 'lib/a.js': 'a11' });
    git('merge', '-q', '--no-ff', '-m', 'fix: merge side branch', 'side');
  });
  afterAll(() => tmp.cleanup());

  it('keeps non-merge fix commits touching 1–3 existing non-test source files, newest first', () => {
    const tasks = buildTasks(repo);
    expect(tasks.map((t) => [t.query, t.gold])).toEqual([
      ['redirect loop in b and c', ['lib/b.js', 'lib/c.js']],
      ['router: handle trailing slash', ['lib/a.js']],
    ]);
    expect(tasks[0]!.subject).toBe('Fixed redirect loop in b and c gh-77');
    expect(tasks[0]!.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(buildTasks(repo, { limit: 1 })).toHaveLength(1);
  });

  it("'any' subjects take every commit, without its area prefix", () => {
    const queries = buildTasks(repo, { subjects: 'any' }).map((t) => t.query);
    expect(queries).toContain('new thing');
    expect(queries).toContain('main change');
    expect(queries).not.toContain('fix: merge side branch');
  });

  it('strips the fix type and PR numbers from queries, keeping a scope', () => {
    expect(taskQuery('fix(router)!: handle trailing slash (#12)')).toBe('router: handle trailing slash');
    expect(taskQuery('fix(): empty scope')).toBe('empty scope');
    expect(taskQuery('Fix: res.redirect with relative URLs (#5021)')).toBe('res.redirect with relative URLs');
    expect(taskQuery('fixes #45')).toBe('');
    expect(taskQuery('fix handling of gh-12 and #3 in body')).toBe('handling of and in body');
  });

  it('knows source files from tests, docs and config', () => {
    expect(['lib/a.js', 'src/app.py', 'cmd/root.go', 'src/x.tsx'].every(isSourcePath)).toBe(true);
    expect(['test/a.test.js', 'README.md', 'config.yml', 'package.json', 'pkg/a_test.go', 'tests/test_x.py'].some(isSourcePath)).toBe(false);
  });
});

describe('grep baseline and scores', () => {
  it('ranks files by the idf of the query words they contain', () => {
    const g = createGrepBaseline([
      { path: 'a.js', text: 'the router handles a redirect' },
      { path: 'b.js', text: 'the router' },
      { path: 'c.js', text: 'the router and more router' },
    ]);
    expect(g.top('redirect router', 2)[0]).toBe('a.js');
    expect(g.top('zzz', 3)).toEqual([]);
  });

  it('hit and file recall', () => {
    expect(scoreFiles(['a', 'b'], ['b', 'c'])).toEqual({ hit: 1, recall: 0.5 });
    expect(scoreFiles([], ['b'])).toEqual({ hit: 0, recall: 0 });
  });
});
