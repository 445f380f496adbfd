// Where a path really leads, and whether that stays inside the folders a caller may touch: the one check every
// door uses (MCP `ingest`, serve's ingest and rescan, reindex, the watcher's batches, decision export and import,
// the CLI). A path is resolved link by link, component by component, before it is judged: `docs/link/private.md`
// with `docs/link -> ../../outside` is judged where it leads, and so is a dangling link or a path that does not
// exist yet (its missing tail is taken as spelled, after its existing part's links). Writes go through
// replaceFileInside, which never follows a link at the final component.
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readlinkSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, isAbsolute, join, parse, relative, sep } from 'node:path';

/** Links followed on one path before it counts as a loop (Linux's own limit). */
const MAX_LINKS = 40;

export class ContainmentError extends Error {
  readonly path: string;
  readonly code: string;
  constructor(path: string, code: 'ELOOP' | 'EOUTSIDE', message: string) {
    super(message);
    this.path = path;
    this.code = code;
  }
}

/**
 * The absolute location `path` leads to: every symbolic link on the way is replaced by its target, in order, as the
 * kernel would (so `a/link/../b` goes up from the link's target, not from `a`). Components that do not exist are kept
 * as spelled; a dangling link is still followed to where it points (a write through it would land there). Throws a
 * ContainmentError (ELOOP) after 40 links.
 */
export function realLocation(path: string): string {
  // Not path.resolve: it would fold `link/..` away as spelled, and the kernel goes up from where the link led.
  const abs = isAbsolute(path) ? path : `${process.cwd()}${sep}${path}`;
  let done = parse(abs).root;
  let todo = parts(abs.slice(done.length));
  let links = 0;
  while (todo.length > 0) {
    const part = todo.shift()!;
    if (part === '.' || part === '') continue;
    if (part === '..') {
      done = dirname(done);
      continue;
    }
    const next = join(done, part);
    let isLink = false;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      // Missing (or unsearchable): taken as spelled; later `..` and links below an existing folder still resolve.
    }
    if (!isLink) {
      done = next;
      continue;
    }
    if (++links > MAX_LINKS) throw new ContainmentError(path, 'ELOOP', `${path}: too many symbolic links (a loop)`);
    const target = readlinkSync(next);
    if (isAbsolute(target)) done = parse(target).root;
    todo = [...parts(isAbsolute(target) ? target.slice(parse(target).root.length) : target), ...todo];
  }
  return done;
}

const parts = (p: string): string[] => p.split(/[\\/]+/).filter((x) => x !== '');

/** True when `path` is `root` or lies below it, compared as spelled (both absolute; resolve links first). */
export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith('..' + sep) && !isAbsolute(rel));
}

/** realLocation, or null for a loop: a path that cannot be resolved lies inside nothing. */
function located(path: string): string | null {
  try {
    return realLocation(path);
  } catch (err) {
    if (err instanceof ContainmentError) return null;
    throw err;
  }
}

/** The first of `roots` whose real location holds the real location of `path`, or null. */
export function containingRoot<T extends string>(path: string, roots: readonly T[]): T | null {
  const real = located(path);
  if (real === null) return null;
  return roots.find((r) => {
    const realRoot = located(r);
    return realRoot !== null && isInside(real, realRoot);
  }) ?? null;
}

/** Whether `path`, resolved through every link, lies inside one of `roots` (each resolved too). */
export function isContained(path: string, roots: readonly string[]): boolean {
  return containingRoot(path, roots) !== null;
}

/**
 * Writes `data` as the file `path` without ever following a link at its final component: the bytes go to a new
 * temporary file (created with O_EXCL | O_NOFOLLOW) in the file's real folder, which is then renamed over the name,
 * so a link there is replaced, never written through, and a reader never sees half a file. With `roots`, the real
 * folder must lie inside one of them (ContainmentError EOUTSIDE otherwise). An existing regular file keeps its mode.
 * Returns the path written (the real folder joined with the name).
 */
export function replaceFileInside(path: string, data: string | Uint8Array, options: { roots?: readonly string[]; mode?: number } = {}): string {
  const folder = realLocation(dirname(path));
  const target = join(folder, basename(path));
  // The name itself is judged as spelled: a link there is replaced, not followed, so only its folder's links count.
  if (options.roots && !options.roots.some((r) => {
    const realRoot = located(r);
    return realRoot !== null && isInside(target, realRoot);
  })) {
    throw new ContainmentError(path, 'EOUTSIDE', `${path} is outside the allowed folders (${options.roots.join(', ')})`);
  }
  let mode = options.mode ?? 0o666;
  try {
    const st = lstatSync(target);
    if (st.isFile()) mode = st.mode & 0o777;
  } catch {
    // new file
  }
  const tmp = join(folder, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), mode);
  try {
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  return target;
}

/** The bytes of `path` when it is a regular file itself (not a link to one), else null: a compare never reads through a link. */
export function readRegularFile(path: string): Buffer | null {
  try {
    // lstat first: opening a FIFO would block; O_NOFOLLOW then refuses a link swapped in meanwhile.
    if (!lstatSync(path).isFile()) return null;
    const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    try {
      return fstatSync(fd).isFile() ? readFileSync(fd) : null;
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}
