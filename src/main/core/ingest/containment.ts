// What ingest may read under a root: links that stay inside it, and no file that is a credential by its name.
// One module, so the folder walk, a directly named file and the watcher decide the same way.
import { lstatSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { isInside, realLocation } from '../store/containment.ts';
import ignore from 'ignore';

export const PROJECT_IGNORE_FILE = '.contextpackignore';
export const SYMLINK_OUTSIDE_ROOT = 'symlink outside root';

export interface ContainmentOptions {
  /** Follow symlinks whose target lies outside the ingested root (`contextpack ingest --follow-symlinks`). */
  followSymlinks?: boolean;
  /** Real folders that bound every link even when followSymlinks is on (serve mode's `--root DIR`). */
  allowedRoots?: readonly string[];
}

/** Folders whose `credentials*` files are cloud or registry logins. */
const CREDENTIAL_FOLDERS = new Set(['.aws', '.docker', '.gcloud', 'gcloud', '.azure', '.kube', '.oci']);
const KEY_EXTENSIONS = ['.pem', '.key', '.p12', '.pfx', '.jks', '.keystore'];
const LOGIN_FILES = new Set(['.npmrc', '.pypirc', '.netrc', '_netrc', '.pgpass', '.git-credentials', '.my.cnf']);
/** `.env.example`, `.env.local.sample`: templates that document the variables, committed on purpose. */
const ENV_TEMPLATE = /\.(example|sample|template|dist)$/;

/**
 * Why a file is sensitive by its name (and, for credential files, its folder), or null. Checks the name only: the
 * content is the redaction gate's job; these are files whose whole purpose is to hold a secret.
 */
export function sensitiveReason(path: string): string | null {
  const name = basename(path);
  const lower = name.toLowerCase();
  const why = (kind: string) => `sensitive file (${kind}); re-include with "!${name}" in ${PROJECT_IGNORE_FILE}`;
  // `.env*` as the issue names it: .env, .env.local, .env.production, and direnv's .envrc (which exports them).
  if (lower.startsWith('.env') && !ENV_TEMPLATE.test(lower)) return why('environment file');
  if (/^id_(rsa|dsa|ecdsa|ed25519)/.test(lower) && !lower.endsWith('.pub')) return why('private key');
  if (KEY_EXTENSIONS.some((ext) => lower.endsWith(ext))) return why('private key or certificate store');
  if (LOGIN_FILES.has(lower)) return why('login file');
  if (lower.endsWith('.kdbx') || lower.endsWith('.kdb')) return why('password database');
  const folders = dirname(resolve(path)).split(sep).map((f) => f.toLowerCase());
  // docker login keeps its auth in .docker/config.json; other config.json files are ordinary project files.
  if (lower === 'config.json' && folders.at(-1) === '.docker') return why('cloud credentials');
  const at = folders.findIndex((f) => CREDENTIAL_FOLDERS.has(f));
  // `credentials*` anywhere below such a folder, and whatever sits in a folder named so (gcloud's legacy_credentials/).
  if (at >= 0 && [...folders.slice(at + 1), lower].some((part) => part.includes('credentials'))) return why('cloud credentials');
  return null;
}

// Whether a path leads out of a folder is decided in one place for every door (store/containment.ts).
export { isInside, realLocation } from '../store/containment.ts';

/**
 * For a path that is a symlink: `symlink outside root` when its real target leaves `realRoot` (the root's realpath)
 * and following such links was not asked for; null when it may be followed. Broken links and loops are reported by
 * the caller, which has to stat the target anyway.
 */
export function symlinkReason(realTarget: string, realRoot: string, options: ContainmentOptions = {}): string | null {
  if (options.allowedRoots && !options.allowedRoots.some((r) => isInside(realTarget, r))) return SYMLINK_OUTSIDE_ROOT;
  if (options.followSymlinks) return null;
  return isInside(realTarget, realRoot) ? null : SYMLINK_OUTSIDE_ROOT;
}

/**
 * Whether the `.contextpackignore` files from `root` down to the file's folder re-include it with a `!` rule (the
 * deepest rule that matches wins, as in git).
 */
export function reincluded(path: string, root: string): boolean {
  let state = false;
  const rel = relative(root, path);
  if (rel.startsWith('..')) return false;
  const parts = rel.split(sep);
  let dir = root;
  for (let i = 0; i < parts.length; i++) {
    let rules: string;
    try {
      rules = readFileSync(join(dir, PROJECT_IGNORE_FILE), 'utf8');
    } catch {
      rules = '';
    }
    if (rules) {
      const r = ignore().add(rules).test(parts.slice(i).join('/'));
      if (r.unignored) state = true;
      else if (r.ignored) state = false;
    }
    dir = join(dir, parts[i]!);
  }
  return state;
}

/**
 * The one decision for a single path under `root` (for the watcher and for files named directly): why ingest must
 * skip it, or null to read it. Checks the link (its target must stay inside the root unless followSymlinks), then the
 * name of the path and of its real target against the sensitive-file rules, unless `.contextpackignore` re-includes
 * it. Ignore rules (.gitignore) are not applied here: an ignored file is silently left out, not "skipped".
 */
export function containmentReason(path: string, root: string, options: ContainmentOptions = {}): string | null {
  let realRoot: string;
  let real: string;
  try {
    realRoot = realpathSync(root);
    real = realLocation(path);
  } catch {
    return null; // a link loop: the walk reports it with its own reason
  }
  let isLink = false;
  try {
    isLink = lstatSync(path).isSymbolicLink();
  } catch {
    return null;
  }
  // A file named directly is its own root: the user chose it, link or not. Links met below a root must stay inside.
  if (path !== root && (isLink || !isInside(real, realRoot))) {
    const outside = symlinkReason(real, realRoot, options);
    if (outside) return outside;
  }
  let st: Stats;
  try {
    st = statSync(path);
  } catch {
    return null;
  }
  const special = specialFileReason(st);
  if (special) return special;
  if (path !== root && !st.isDirectory()) {
    const linked = hardLinkReason(st, options);
    if (linked) return linked;
  }
  const sensitive = sensitiveReason(path) ?? (real !== path ? sensitiveReason(real) : null);
  if (sensitive && !reincluded(path, path === root ? dirname(root) : root)) return sensitive;
  return null;
}

/** Why a path that is neither a folder nor a regular file is not read (reading a FIFO would block; a device never ends). */
export function specialFileReason(st: Stats): string | null {
  if (st.isFile() || st.isDirectory()) return null;
  const kind = st.isFIFO() ? 'FIFO (named pipe)' : st.isSocket() ? 'socket' : st.isCharacterDevice() ? 'character device' : st.isBlockDevice() ? 'block device' : 'special file';
  return `not a regular file: ${kind}`;
}

/** A second name for a file may sit anywhere on the disk (a hard link to ~/.pgpass): treated like a link out of the root. */
export function hardLinkReason(st: Stats, options: ContainmentOptions): string | null {
  if (options.followSymlinks || st.nlink <= 1) return null;
  return `hard link (${st.nlink} names for this file; one may lie outside the root); read it with --follow-symlinks`;
}
