import { describe, expect, it } from 'vitest';
import { isNoiseRole, pathRole } from './code-paths.ts';
import { rankCandidates } from './code-rank.ts';
import { isCodeTask, roleWeigher } from './code-task.ts';

const W = { docFactor: 0.5, testFactor: 0.5 };

describe('code-task recognition and file roles (issue #23)', () => {
  it('recognises a code task by identifiers, behaviour words or error text, and a docs task by its words', () => {
    for (const q of ['res.sendFile hangs', 'handle_user_exception loses the traceback', 'parseArgs', 'crash on empty body', 'TypeError when the header is missing', '--exclude is ignored'])
      expect(isCodeTask(q), q).toBe(true);
    for (const q of ['typo in the readme', 'tutorial wording', 'osprey nest', 'quantum chromodynamics']) expect(isCodeTask(q), q).toBe(false);
  });

  it('tells source from tests, docs, changelogs, lock, generated files and images', () => {
    const roles = Object.fromEntries(
      ['lib/response.js', 'src/flask/app.py', 'test/res.send.js', 'tests/test_basic.py', 'cmd/root_test.go', 'docs/api.rst', 'README.md', 'History.md', 'CHANGES.rst', 'CHANGELOG.md',
        'package-lock.json', 'yarn.lock', 'Cargo.lock', 'go.sum', 'uv.lock', 'dist/app.min.js', 'vendor/x/y.go', 'assets/logo.svg', 'docs/conf.py', 'package.json'].map((p) => [p, pathRole(p)]),
    );
    expect(roles).toEqual({
      'lib/response.js': 'source', 'src/flask/app.py': 'source', 'test/res.send.js': 'test', 'tests/test_basic.py': 'test', 'cmd/root_test.go': 'test',
      'docs/api.rst': 'doc', 'README.md': 'doc', 'History.md': 'changelog', 'CHANGES.rst': 'changelog', 'CHANGELOG.md': 'changelog',
      'package-lock.json': 'lock', 'yarn.lock': 'lock', 'Cargo.lock': 'lock', 'go.sum': 'lock', 'uv.lock': 'lock',
      'dist/app.min.js': 'generated', 'vendor/x/y.go': 'generated', 'assets/logo.svg': 'image', 'docs/conf.py': 'source', 'package.json': 'other',
    });
    expect(['source', 'other'].map((r) => isNoiseRole(r as never))).toEqual([false, false]);
    expect(['test', 'doc', 'changelog', 'lock', 'generated', 'image'].every((r) => isNoiseRole(r as never))).toBe(true);
  });

  it('excludes changelogs, lock files, generated files and images unless the query names them; demotes docs for code tasks and tests unless asked', () => {
    const code = roleWeigher('res.send crashes on empty body', W);
    expect(['History.md', 'package-lock.json', 'dist/app.min.js', 'logo.svg'].map((p) => code(p).factor)).toEqual([0, 0, 0, 0]);
    expect(code('docs/api.md').factor).toBe(0.5);
    expect(code('test/res.send.js').factor).toBe(0.5);
    expect(code('lib/response.js').factor).toBe(1);
    expect(roleWeigher('what changed in the changelog for 5.0', W)('History.md').factor).toBe(1);
    expect(roleWeigher('history of res.send', W)('History.md').factor).toBe(1);
    expect(roleWeigher('bump the lock file', W)('package-lock.json').factor).toBe(1);
    expect(roleWeigher('flaky test for res.send', W)('test/res.send.js').factor).toBe(1);
    // A docs task keeps docs at full weight.
    expect(roleWeigher('typo in the guide', W)('docs/guide.md').factor).toBe(1);
  });

  it('ranks source over a changelog and docs that match the same words better', () => {
    const c = [
      { chunkId: 1, documentId: 1, score: 10, relPath: 'History.md', isFile: true },
      { chunkId: 2, documentId: 2, score: 8, relPath: 'docs/api.md', isFile: true },
      { chunkId: 3, documentId: 3, score: 5, relPath: 'lib/response.js', isFile: true },
    ];
    const weigh = roleWeigher('res.send throws', W);
    const ranked = rankCandidates(c, new Map(), { roleFactor: (p) => weigh(p).factor });
    expect(ranked.map((r) => r.chunkId)).toEqual([3, 2, 1]);
    expect(ranked.at(-1)!.score).toBe(0);
  });
});
