import { describe, expect, it } from 'vitest';
import { globError, globMatches, pathPasses, relativeToRoot } from './globs.ts';

describe('path globs (search and packet filters, UI chips)', () => {
  it('matches at any folder boundary, files and the folders above them', () => {
    expect(globMatches('test/**', 'test/a.js')).toBe(true);
    expect(globMatches('test/**', 'pkg/test/unit/a.js')).toBe(true);
    expect(globMatches('test/**', 'lib/testing.js')).toBe(false);
    expect(globMatches('**/fixtures/**', 'a/b/fixtures/x.json')).toBe(true);
    expect(globMatches('**/fixtures/**', 'fixtures/x.json')).toBe(true);
    expect(globMatches('fixtures', 'a/fixtures/b.json')).toBe(true);
    expect(globMatches('docs/', 'docs/a.md')).toBe(true);
    expect(globMatches('docs/', 'docs')).toBe(false);
    expect(globMatches('*.md', 'docs/guide/intro.md')).toBe(true);
    expect(globMatches('*.md', 'docs/guide/intro.mdx')).toBe(false);
    expect(globMatches('src/*.ts', 'src/a.ts')).toBe(true);
    expect(globMatches('src/*.ts', 'src/sub/a.ts')).toBe(false);
    expect(globMatches('lib/*/index.?s', 'lib/router/index.js')).toBe(true);
    expect(globMatches('[ab].md', 'b.md')).toBe(true);
    expect(globMatches('[!ab].md', 'b.md')).toBe(false);
  });

  it('reads a leading / as an absolute-path glob', () => {
    expect(globMatches('/home/me/proj/docs/**', 'docs/a.md', '/home/me/proj/docs/a.md')).toBe(true);
    expect(globMatches('/home/me/other/**', 'docs/a.md', '/home/me/proj/docs/a.md')).toBe(false);
  });

  it('includes when an include matches (or none is given) and no exclude does', () => {
    expect(pathPasses('lib/a.js', '/r/lib/a.js', [], ['test/**'])).toBe(true);
    expect(pathPasses('test/a.js', '/r/test/a.js', [], ['test/**'])).toBe(false);
    expect(pathPasses('lib/a.js', '/r/lib/a.js', ['docs/**'], [])).toBe(false);
    expect(pathPasses('docs/a.md', '/r/docs/a.md', ['docs/**'], ['**/draft*'])).toBe(true);
    expect(pathPasses('docs/draft-1.md', '/r/docs/draft-1.md', ['docs/**'], ['**/draft*'])).toBe(false);
  });

  it('gives the root-relative path, or the base name of a file ingested alone', () => {
    expect(relativeToRoot('/r/proj/lib/a.js', '/r/proj')).toBe('lib/a.js');
    expect(relativeToRoot('/r/proj/lib/a.js', '/r/proj/')).toBe('lib/a.js');
    expect(relativeToRoot('/r/one.md', '/r/one.md')).toBe('one.md');
  });

  it('matches like the regular-expression reading it replaced, on random globs and paths', () => {
    // The former implementation (a V8 RegExp per glob, tried on every folder-bounded slice), kept as the oracle for
    // inputs small enough that its backtracking does not matter. A negated class never matches `/` in either.
    const oracle = (raw: string, path: string): boolean => {
      const glob = raw.replace(/\/+$/, '');
      let re = '';
      for (let i = 0; i < glob.length; i++) {
        const c = glob[i]!;
        if (c === '*') {
          if (glob[i + 1] === '*') {
            if (glob[i + 2] === '/') (re += '(?:.*/)?'), (i += 2);
            else (re += '.*'), (i += 1);
          } else re += '[^/]*';
        } else if (c === '?') re += '[^/]';
        else if (c === '[' && glob.indexOf(']', i + 2) >= 0) {
          const end = glob.indexOf(']', i + 2);
          const body = glob.slice(i + 1, end);
          re += body.startsWith('!') ? `[^/${body.slice(1)}]` : `[${body}]`;
          i = end;
        } else re += /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
      }
      const compiled = new RegExp(`^${re}$`);
      const folderOnly = raw.endsWith('/');
      const parts = path.split('/');
      for (let s0 = 0; s0 < parts.length; s0++)
        for (let e = parts.length; e > s0; e--) {
          if (folderOnly && e === parts.length) continue;
          if (new RegExp(compiled.source).test(parts.slice(s0, e).join('/')) ) return true;
        }
      return false;
    };
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const globBits = ['a', 'b', '.', '/', '*', '**', '**/', '?', '[ab]', '[!a]', '[a-c]', 'ab', '.md'];
    const pathBits = ['a', 'b', 'c', '.', '/', 'ab', '.md'];
    let compared = 0;
    for (let n = 0; n < 4000; n++) {
      let glob = Array.from({ length: 1 + rnd(5) }, () => globBits[rnd(globBits.length)]).join('').replace(/^\/+/, '');
      if (glob === '' || glob.startsWith('/')) continue;
      if (rnd(5) === 0) glob += '/';
      const path = Array.from({ length: 1 + rnd(6) }, () => pathBits[rnd(pathBits.length)]).join('').replace(/\/+/g, '/').replace(/^\/|\/$/g, '');
      if (path === '') continue;
      expect(globMatches(glob, path), `${glob} ~ ${path}`).toBe(oracle(glob, path));
      compared++;
    }
    expect(compared).toBeGreaterThan(3000);
  });

  it('is linear in the path: the backtracking pattern of issue #22 against a 250-character name', () => {
    // Each of these took minutes as a RegExp; as an automaton they are one pass. A count of steps would be the
    // honest measure; that they return at all (and correctly) is what this test can check.
    const name = `docs/${'L'.repeat(250)}.md`;
    expect(globMatches('*L*L*L*L*L*L*z', name)).toBe(false);
    expect(globMatches('*L*L*L*L*L*L*.md', name)).toBe(true);
    expect(globMatches('**/**/**/**/**/**/x', `${'a/'.repeat(120)}y`)).toBe(false);
    expect(pathPasses(name, `/r/${name}`, [], ['*L*L*L*L*L*L*z'])).toBe(true);
  });

  it('refuses a glob it cannot match as written, naming it', () => {
    expect(globError('src/[z-a].ts')).toBe('glob "src/[z-a].ts": character range z-a is out of order');
    expect(globError('src/**/*.ts')).toBeNull();
    expect(() => globMatches('[z-a]', 'b')).toThrowError(/glob "\[z-a\]": character range z-a is out of order/);
  });
});
