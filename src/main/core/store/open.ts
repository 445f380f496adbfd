import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import * as sqliteVec from 'sqlite-vec';
import { registerPathFilter } from './functions.ts';
import { applyMigrations, type Migration } from './migrate.ts';
import { migrations as allMigrations } from './migrations/index.ts';

export interface Store {
  readonly db: Database;
  readonly path: string;
  /** sqlite-vec is optional at run time: without it the store still serves BM25. */
  readonly vec: { loaded: true; version: string } | { loaded: false; reason: string };
  close(): void;
}

export interface OpenStoreOptions {
  migrations?: readonly Migration[];
  readonly?: boolean;
  loadVec?: boolean;
}

export function openStore(path: string, options: OpenStoreOptions = {}): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  let db: Database;
  try {
    db = new BetterSqlite3(path, { readonly: options.readonly ?? false });
  } catch (err) {
    throw new Error(`cannot open database ${path}: ${(err as Error).message}`);
  }
  db.pragma('journal_mode = WAL');
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
  if (!options.readonly) applyMigrations(db, options.migrations ?? allMigrations);
  return {
    db,
    path,
    vec,
    close: () => {
      if (db.open) db.close();
    },
  };
}

export function getMeta(db: Database, key: string): string | undefined {
  return (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
}

export function setMeta(db: Database, key: string, value: string): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}
