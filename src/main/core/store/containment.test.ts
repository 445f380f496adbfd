import { lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { ContainmentError, containingRoot, isContained, readRegularFile, realLocation, replaceFileInside } from './containment.ts';
import { realpathSync } from 'node:fs';

const tmp = tempDirs('cp-contain-');
afterAll(() => tmp.cleanup());

/** A root with an outside folder beside it: `base/root` and `base/outside/private.md`. */
function layout() {
  const base = realpathSync(tmp.make());
  const root = join(base, 'root');
  writeTree(base, { 'root/docs/readme.md': '# r\n', 'root/src/a.ts': 'a\n', 'outside/private.md': 'private\n' });
  return { base, root, outside: join(base, 'outside') };
}

describe('realLocation: every link on the way, component by component', () => {
  it('resolves a linked folder in the middle of the path, a link to /, a chain and `..` after a link', () => {
    const { base, root, outside } = layout();
    symlinkSync('../../outside', join(root, 'docs', 'link'));
    symlinkSync('/', join(root, 'docs', 'rootlink'));
    symlinkSync('link', join(root, 'docs', 'chain'));
    symlinkSync(join(root, 'src'), join(root, 'docs', 'srclink'));
    expect(realLocation(join(root, 'docs/link/private.md'))).toBe(join(outside, 'private.md'));
    expect(realLocation(join(root, 'docs/rootlink/etc/hostname'))).toBe('/etc/hostname');
    expect(realLocation(join(root, 'docs/chain/private.md'))).toBe(join(outside, 'private.md'));
    // `..` goes up from where the link led (as the kernel does), not from the folder the link sits in.
    expect(realLocation(`${root}/docs/srclink/../docs/readme.md`)).toBe(join(root, 'docs/readme.md'));
    expect(realLocation(`${root}/docs/link/../root/docs`)).toBe(join(root, 'docs'));
    expect(realLocation(join(base, 'root', 'docs', 'readme.md'))).toBe(join(root, 'docs/readme.md'));
  });

  it('follows a dangling link to where a write through it would land, and keeps a missing tail as spelled', () => {
    const { base, root } = layout();
    symlinkSync(join(base, 'elsewhere', 'new'), join(root, 'docs', 'dangling'));
    expect(realLocation(join(root, 'docs/dangling/DEC-1.md'))).toBe(join(base, 'elsewhere/new/DEC-1.md'));
    expect(realLocation(join(root, 'not/yet/there.md'))).toBe(join(root, 'not/yet/there.md'));
    // realpath(3) would fail on both; the judgement still needs an answer.
    expect(() => realpathSync(join(root, 'docs/dangling'))).toThrow();
  });

  it('a loop is an error, and lies inside nothing', () => {
    const { root } = layout();
    symlinkSync('b', join(root, 'a'));
    symlinkSync('a', join(root, 'b'));
    expect(() => realLocation(join(root, 'a/x'))).toThrow(ContainmentError);
    expect(isContained(join(root, 'a/x'), [root])).toBe(false);
  });
});

describe('isContained / containingRoot', () => {
  it('judges where the path leads, with the roots resolved too', () => {
    const { base, root } = layout();
    symlinkSync('../../outside', join(root, 'docs', 'link'));
    symlinkSync('/', join(root, 'docs', 'rootlink'));
    symlinkSync('root', join(base, 'root-alias'));
    expect(isContained(join(root, 'docs/readme.md'), [root])).toBe(true);
    expect(isContained(join(root, 'docs/link/private.md'), [root])).toBe(false);
    expect(isContained(join(root, 'docs/rootlink/etc/hostname'), [root])).toBe(false);
    expect(isContained(`${root}/docs/../../outside/private.md`, [root])).toBe(false);
    // Spelled, this is root/docs/outside/private.md; the kernel goes up from the link's target.
    expect(isContained(`${root}/docs/link/../outside/private.md`, [root])).toBe(false);
    expect(isContained(join(base, 'root-alias/docs/readme.md'), [root])).toBe(true);
    expect(containingRoot(join(root, 'src/a.ts'), [join(base, 'outside'), join(base, 'root-alias')])).toBe(join(base, 'root-alias'));
    // A sibling whose name starts like the root is not inside it.
    mkdirSync(join(base, 'root2'));
    expect(isContained(join(base, 'root2'), [root])).toBe(false);
  });
});

describe('replaceFileInside: never follows a link at the final component', () => {
  it('replaces a link named like the file with a regular file; the link target is untouched', () => {
    const { root, outside } = layout();
    symlinkSync(join(outside, 'private.md'), join(root, 'docs', 'DEC-1.md'));
    replaceFileInside(join(root, 'docs', 'DEC-1.md'), 'decision\n', { roots: [root] });
    expect(readFileSync(join(outside, 'private.md'), 'utf8')).toBe('private\n');
    expect(lstatSync(join(root, 'docs', 'DEC-1.md')).isFile()).toBe(true);
    expect(readFileSync(join(root, 'docs', 'DEC-1.md'), 'utf8')).toBe('decision\n');
    expect(readdirSync(join(root, 'docs')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a folder that leads out of the roots (a linked folder, a dangling one) and writes nothing', () => {
    const { base, root, outside } = layout();
    symlinkSync('../../outside', join(root, 'docs', 'link'));
    symlinkSync(join(base, 'gone'), join(root, 'docs', 'dangling'));
    expect(() => replaceFileInside(join(root, 'docs/link/private.md'), 'x', { roots: [root] })).toThrow(/outside the allowed folders/);
    expect(readFileSync(join(outside, 'private.md'), 'utf8')).toBe('private\n');
    expect(() => replaceFileInside(join(root, 'docs/dangling/x.md'), 'x', { roots: [root] })).toThrow(ContainmentError);
    expect(readdirSync(outside)).toEqual(['private.md']);
  });

  it('keeps an existing file\'s mode; a hard link elsewhere keeps its bytes', () => {
    const { root } = layout();
    const file = join(root, 'docs', 'readme.md');
    chmodSync(file, 0o640);
    replaceFileInside(file, 'new\n');
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readFileSync(file, 'utf8')).toBe('new\n');
  });
});

describe('readRegularFile', () => {
  it('reads a regular file, never through a link', () => {
    const { root, outside } = layout();
    symlinkSync(join(outside, 'private.md'), join(root, 'peek.md'));
    writeFileSync(join(root, 'plain.md'), 'plain');
    expect(readRegularFile(join(root, 'plain.md'))?.toString()).toBe('plain');
    expect(readRegularFile(join(root, 'peek.md'))).toBeNull();
    expect(readRegularFile(join(root, 'none.md'))).toBeNull();
  });
});
