import { describe, expect, it } from 'vitest';
import { globMatches, pathPasses, relativeToRoot } from './globs.ts';

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
});
