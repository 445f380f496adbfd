import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testing/tmp.ts';
import { explainMkdir, makeDir } from './make-dir.ts';
import { openStore } from './open.ts';

const tmp = tempDirs('cp-mkdir-');
afterAll(() => tmp.cleanup());

describe('makeDir', () => {
  it('names the read-only folder instead of passing on ENOENT from a recursive mkdir', () => {
    const base = tmp.make();
    // Node reports EROFS under a recursive mkdir as ENOENT on the folder asked for; the check of the parent is real.
    const enoent = Object.assign(new Error(`ENOENT: no such file or directory, mkdir '${base}/a/b'`), { code: 'ENOENT' });
    const erofs = () => {
      throw Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
    };
    const err = explainMkdir(join(base, 'a', 'b'), enoent, erofs);
    expect(err.message).toBe(`cannot create folder ${join(base, 'a', 'b')}: ${base} is on a read-only file system (EROFS)`);
    expect(err).toMatchObject({ code: 'EROFS' });
  });

  it('says which path blocks it when a file stands where a folder should be', () => {
    const base = tmp.make();
    writeFileSync(join(base, 'file'), 'x');
    expect(() => makeDir(join(base, 'file', 'sub'))).toThrow(new RegExp(`^cannot create folder ${join(base, 'file', 'sub')}: .*ENOTDIR`));
  });

  it.skipIf(process.getuid?.() === 0)('names a folder this user cannot write', () => {
    const base = tmp.make();
    chmodSync(base, 0o500);
    try {
      expect(() => makeDir(join(base, 'x', 'y'))).toThrow(`cannot create folder ${join(base, 'x', 'y')}: ${base} is not writable by this user (EACCES)`);
    } finally {
      chmodSync(base, 0o700);
    }
  });
});

/** A real read-only file system where this process may mount one (root on Linux); undefined elsewhere. */
function readOnlyMount(): { dir: string; seed: (write: (dir: string) => void) => void; done: () => void } | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const dir = tmp.make();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return {
    dir,
    seed: (write) => {
      write(dir);
      execFileSync('mount', ['-o', 'remount,ro', dir], { stdio: 'ignore' });
    },
    done: () => execFileSync('umount', [dir], { stdio: 'ignore' }),
  };
}

const ro = readOnlyMount();
describe.skipIf(!ro)('on a read-only file system (a tmpfs mounted read-only)', () => {
  afterAll(() => ro?.done());
  it('a data folder to create, and an existing WAL database, both name EROFS instead of ENOENT or damage', () => {
    ro!.seed((dir) => {
      mkdirSync(join(dir, 'home'));
      const s = openStore(join(dir, 'home', 'c.db'), { loadVec: false });
      s.db.exec("INSERT INTO meta (key, value) VALUES ('k', 'v')");
      s.close();
    });
    expect(() => openStore(join(ro!.dir, 'new', 'c.db'), { loadVec: false })).toThrow(`cannot create folder ${join(ro!.dir, 'new')}: ${ro!.dir} is on a read-only file system (EROFS)`);
    expect(() => openStore(join(ro!.dir, 'home', 'c.db'), { loadVec: false })).toThrow(/its folder .*home is on a read-only file system \(EROFS\), and SQLite must create .*-shm/);
  });
});

