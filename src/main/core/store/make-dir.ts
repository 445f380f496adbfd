// mkdir -p with the real reason on failure. Node's recursive mkdir reports a read-only file system as
// `ENOENT ... mkdir '<the folder asked for>'`, which sends the user looking for a missing path; the cause is the
// nearest folder that exists and cannot be written.
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export class MakeDirError extends Error {
  readonly path: string;
  readonly code: string;
  constructor(path: string, code: string, message: string) {
    super(message);
    this.path = path;
    this.code = code;
  }
}

export function makeDir(dir: string, mode = 0o700): void {
  try {
    mkdirSync(dir, { recursive: true, mode });
  } catch (err) {
    throw explainMkdir(dir, err);
  }
}

export function explainMkdir(dir: string, err: unknown, canWrite: (path: string) => void = (p) => accessSync(p, constants.W_OK)): Error {
  const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
  let existing = dirname(dir);
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    canWrite(existing);
  } catch (why) {
    const real = (why as NodeJS.ErrnoException).code ?? code;
    const what = real === 'EROFS' ? 'is on a read-only file system' : real === 'EACCES' || real === 'EPERM' ? 'is not writable by this user' : `cannot be written (${real})`;
    return new MakeDirError(dir, real, `cannot create folder ${dir}: ${existing} ${what} (${real})`);
  }
  return new MakeDirError(dir, code, `cannot create folder ${dir}: ${(err as Error).message}`);
}
