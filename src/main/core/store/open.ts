import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import { accessSync, closeSync, constants, existsSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as sqliteVec from 'sqlite-vec';
import { registerPathFilter } from './functions.ts';
import { makeDir } from './make-dir.ts';
import { applyMigrations, unknownMigrationVersions, type Migration } from './migrate.ts';
import { migrations as allMigrations } from './migrations/index.ts';

export interface Store {
  readonly db: Database;
  readonly path: string;
  /** sqlite-vec is optional at run time: without it the store still serves BM25. */
  readonly vec: { loaded: true; version: string } | { loaded: false; reason: string };
  /**
   * Set when the file failed its integrity check on open: the store is then open read-only, reads that still work go
   * on, and every write fails (see explainStoreError). Null for a healthy store.
   */
  readonly readOnlyReason: string | null;
  /**
   * What the open did about integrity: `new` file, quick_check `ran`, or `unchanged` (the file is byte-for-byte the
   * one this build last checked or closed, by size, mtime, ctime and inode, so the scan was not repeated).
   */
  readonly integrity: 'new' | 'ran' | 'unchanged' | 'memory';
  close(): void;
}

export interface OpenStoreOptions {
  migrations?: readonly Migration[];
  readonly?: boolean;
  loadVec?: boolean;
}

/** The store refused to open a file: nothing was read past the check and nothing was written. */
export class StoreOpenError extends Error {
  readonly code: 'newer_schema' | 'not_a_database' | 'unreadable';
  readonly path: string;
  constructor(code: StoreOpenError['code'], path: string, message: string) {
    super(message);
    this.name = 'StoreOpenError';
    this.code = code;
    this.path = path;
  }
}

/** A write reached a store that was opened read-only because the file is damaged. */
export class StoreReadOnlyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreReadOnlyError';
  }
}

/** Owner-only: the database holds the user's documents, memory and packet history. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export function openStore(path: string, options: OpenStoreOptions = {}): Store {
  const onDisk = path !== ':memory:' && path !== '';
  const migrations = options.migrations ?? allMigrations;
  let readOnlyReason: string | null = null;
  let integrity: Store['integrity'] = onDisk ? 'new' : 'memory';
  if (onDisk) {
    const existing = existsSync(path) && statSync(path).size > 0;
    if (existing) ({ readOnlyReason, integrity } = inspectExisting(path, [...allMigrations, ...migrations].map((m) => m.version)));
    else if (!existsSync(path) && !options.readonly) createOwnerOnly(path);
  }
  const readonly = (options.readonly ?? false) || readOnlyReason !== null;
  let db: Database;
  try {
    db = new BetterSqlite3(path, { readonly });
  } catch (err) {
    throw new Error(`cannot open database ${path}: ${(err as Error).message}`);
  }
  // Switching to WAL writes the header; a read-only connection keeps whatever mode the file has.
  if (!readonly) db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  // NORMAL is durable across application crashes in WAL mode; only an OS crash can lose the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  registerPathFilter(db);
  let vec: Store['vec'];
  if (options.loadVec === false) vec = { loaded: false, reason: 'sqlite-vec disabled' };
  else {
    try {
      // Inside a packaged app the extension sits in app.asar.unpacked: SQLite opens it with the OS, not Electron's fs.
      db.loadExtension(sqliteVec.getLoadablePath().replace(/app\.asar([\\/])/, 'app.asar.unpacked$1'));
      vec = { loaded: true, version: (db.prepare('SELECT vec_version() AS v').get() as { v: string }).v };
    } catch (err) {
      vec = { loaded: false, reason: `sqlite-vec not loaded: ${(err as Error).message}` };
    }
  }
  if (!readonly) applyMigrations(db, migrations);
  return {
    db,
    path,
    vec,
    readOnlyReason,
    integrity,
    close: () => {
      if (!db.open) return;
      db.close();
      // Our own writes are trusted: the file as this process leaves it needs no scan on the next open.
      if (onDisk && !readonly) writeStamp(path);
    },
  };
}

/**
 * A new database file is made empty and owner-only before SQLite opens it: SQLite then treats it as a new database,
 * and gives its -wal and -shm files the same mode. Its folder, when we make it, is owner-only too.
 */
function createOwnerOnly(path: string): void {
  makeDir(dirname(path), DIR_MODE);
  try {
    closeSync(openSync(path, 'wx', FILE_MODE));
  } catch (err) {
    // Another process made it first: theirs is as good as ours.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`cannot create database ${path}: ${(err as Error).message}`);
  }
}

/**
 * Looks at an existing file through a read-only connection before anything may write to it: a schema this build does
 * not know refuses the file (throws); a failed `PRAGMA quick_check` returns the reason to open it read-only.
 */
function inspectExisting(path: string, known: number[]): { readOnlyReason: string | null; integrity: 'ran' | 'unchanged' } {
  // A read-only connection to a WAL database still makes the -wal and -shm files; a refused file gets them removed.
  const sidecars = [`${path}-wal`, `${path}-shm`];
  const hadSidecars = sidecars.some((f) => existsSync(f));
  let probe: Database;
  try {
    probe = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new StoreOpenError('unreadable', path, `cannot open database ${path}: ${(err as Error).message}`);
  }
  try {
    let unknown: number[];
    try {
      unknown = unknownMigrationVersions(probe, known);
    } catch (err) {
      const code = (err as { code?: string }).code;
      const blocked = code === 'SQLITE_CANTOPEN' ? unwritableFolder(dirname(path)) : null;
      if (blocked) {
        throw new StoreOpenError('unreadable', path,
          `cannot open database ${path}: its folder ${blocked}, and SQLite must create ${path}-shm beside a WAL database even to read it; ` +
          'make the folder writable, or copy the database to writable storage (the file was left untouched)');
      }
      const what = code === 'SQLITE_NOTADB' ? 'not a SQLite database' : 'damaged beyond reading';
      throw new StoreOpenError(code === 'SQLITE_NOTADB' ? 'not_a_database' : 'unreadable', path,
        `cannot open database ${path}: ${what} (${(err as Error).message}); the file was left untouched`);
    }
    if (unknown.length > 0) {
      throw new StoreOpenError('newer_schema', path,
        `database ${path} was written by a newer ContextPack (schema ${Math.max(...unknown)}, this build knows up to ${Math.max(...known)}); ` +
        'update ContextPack to open it (the file was left untouched)');
    }
    // quick_check reads every page (75–190 MB/s here: `npm run bench:open`, 2.2–5.5 s for a 430 MB store), so it runs only
    // when the file is not the one this build last checked or closed.
    if (stampMatches(path)) return { readOnlyReason: null, integrity: 'unchanged' };
    const problems = quickCheck(probe);
    if (problems.length === 0) {
      writeStamp(path);
      return { readOnlyReason: null, integrity: 'ran' };
    }
    rmSync(stampFile(path), { force: true });
    const shown = problems.slice(0, 3).join('; ') + (problems.length > 3 ? `; … ${problems.length - 3} more` : '');
    return {
      readOnlyReason: `database ${path} is damaged (PRAGMA quick_check: ${shown}); it is open read-only: reads that still work go on, ` +
        'changes are refused. Restore a backup, or move the file away and re-ingest',
      integrity: 'ran',
    };
  } catch (err) {
    probe.close();
    if (!hadSidecars && sizeOr(sidecars[0]!) === 0) for (const f of sidecars) rmSync(f, { force: true });
    throw err;
  } finally {
    if (probe.open) probe.close();
  }
}

/**
 * `<db>.verified`: the main file's identity when it last passed quick_check or was closed by this build. ctime cannot
 * be set back by other tools, so a file changed behind our back (copied over, edited, restored) is scanned again.
 * The WAL needs no stamp: SQLite checksums its frames and ignores torn ones.
 */
const stampFile = (path: string) => `${path}.verified`;

function identity(path: string): string {
  const st = statSync(path);
  return JSON.stringify({ size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino });
}

function stampMatches(path: string): boolean {
  try {
    return readFileSync(stampFile(path), 'utf8') === identity(path);
  } catch {
    return false;
  }
}

function writeStamp(path: string): void {
  try {
    writeFileSync(stampFile(path), identity(path), { mode: FILE_MODE });
  } catch {
    // No stamp only means the next open scans the file again.
  }
}

function sizeOr(file: string): number | null {
  try {
    return statSync(file).size;
  } catch {
    return null;
  }
}

function quickCheck(db: Database): string[] {
  try {
    const rows = db.pragma('quick_check') as { quick_check: string }[];
    const lines = rows.flatMap((r) => r.quick_check.split('\n')).filter((l) => l !== 'ok' && !l.startsWith('*** in database'));
    return lines;
  } catch (err) {
    return [(err as Error).message];
  }
}

/**
 * Turns the raw "attempt to write a readonly database" of a damaged store into the reason it is read-only; any other
 * error passes through unchanged.
 */
export function explainStoreError(store: Pick<Store, 'readOnlyReason'>, err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (store.readOnlyReason && typeof code === 'string' && code.startsWith('SQLITE_READONLY')) return new StoreReadOnlyError(store.readOnlyReason);
  return err;
}

export function getMeta(db: Database, key: string): string | undefined {
  return (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
}

export function setMeta(db: Database, key: string, value: string): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}

/** Why a folder cannot be written ('is on a read-only file system (EROFS)'), or null when it can. */
function unwritableFolder(dir: string): string | null {
  try {
    accessSync(dir, constants.W_OK);
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
    return `${dir} ${code === 'EROFS' ? 'is on a read-only file system' : 'is not writable'} (${code})`;
  }
}
