import { statSync } from 'node:fs';
import { sep } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { RootRecord } from '../../../shared/types.ts';
import { rootBaseName, uniqueName } from '../store/root-names.ts';

export { relativeTo } from '../store/root-names.ts';

interface RootRow {
  id: number;
  path: string;
  name: string;
  kind: 'folder' | 'file';
  created_at: string;
  status: 'online' | 'offline';
  watch: number;
}

const toRecord = (r: RootRow & { sources?: number }): RootRecord => ({
  id: r.id, path: r.path, name: r.name, kind: r.kind, createdAt: r.created_at, status: r.status, watch: r.watch === 1, sources: r.sources ?? 0,
});

/** Every root with its source count, by name. */
export function listRoots(db: Database): RootRecord[] {
  return (db.prepare(
    `SELECT r.*, (SELECT count(*) FROM sources s WHERE s.root_id = r.id) AS sources FROM roots r ORDER BY r.name, r.id`,
  ).all() as (RootRow & { sources: number })[]).map(toRecord);
}

export function getRoot(db: Database, id: number): RootRecord | null {
  const r = db.prepare('SELECT * FROM roots WHERE id = ?').get(id) as RootRow | undefined;
  return r ? toRecord(r) : null;
}

export function isUnder(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/** The longest registered root that is `path` or contains it (a folder root), or null. */
export function rootContaining(db: Database, path: string): RootRecord | null {
  const rows = db.prepare('SELECT * FROM roots ORDER BY length(path) DESC').all() as RootRow[];
  const hit = rows.find((r) => r.path === path || (r.kind === 'folder' && isUnder(path, r.path)));
  return hit ? toRecord(hit) : null;
}

/**
 * The root an ingest of `path` files under: an existing root that contains it (so citations stay stable when a
 * subfolder is ingested again), else a new root named after its last segment (made unique with `-2`, `-3`, …).
 * A path that cannot be stat'ed is a folder unless a root says otherwise.
 */
export function ensureRoot(db: Database, path: string, now: () => Date = () => new Date()): RootRecord {
  const existing = rootContaining(db, path);
  if (existing) return existing;
  let kind: 'folder' | 'file' = 'folder';
  try {
    kind = statSync(path).isDirectory() ? 'folder' : 'file';
  } catch {
    // not there: the ingest reports it; a folder is the harmless guess
  }
  const taken = new Set((db.prepare('SELECT name FROM roots').all() as { name: string }[]).map((r) => r.name));
  const id = Number(
    db.prepare('INSERT INTO roots (path, name, kind, created_at) VALUES (?, ?, ?, ?)')
      .run(path, uniqueName(rootBaseName(path), taken), kind, now().toISOString()).lastInsertRowid,
  );
  return getRoot(db, id)!;
}

export function setRootStatus(db: Database, id: number, status: 'online' | 'offline'): boolean {
  return db.prepare('UPDATE roots SET status = ? WHERE id = ? AND status <> ?').run(status, id, status).changes > 0;
}

export function setRootWatch(db: Database, id: number, watch: boolean): RootRecord {
  const changed = db.prepare('UPDATE roots SET watch = ? WHERE id = ?').run(watch ? 1 : 0, id).changes;
  if (changed === 0) throw new Error(`root ${id} not found`);
  return getRoot(db, id)!;
}
