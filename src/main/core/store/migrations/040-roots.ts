import type { Database } from 'better-sqlite3';
import { dirname, sep } from 'node:path';
import { relativeTo, rootBaseName, uniqueName } from '../root-names.ts';
import type { Migration } from '../migrate.ts';

// Every source belongs to a root (the folder or file that was ingested) and keeps its path relative to it, so
// packets and search can cite `docs/x.md#anchor:lines` instead of an absolute path that names the user's home
// folder. The roots table is also what a project remembers: rescans and the watcher read it. `packet_sources`
// records the content hash of every source a stored packet cites, so staleness is one query against the index.
export const rootsMigration: Migration = {
  version: 40,
  name: 'roots: ingest roots, relative source paths, sources cited by packets',
  up: (db: Database) => {
    db.exec(`
      CREATE TABLE roots (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL DEFAULT 'folder' CHECK (kind IN ('folder', 'file')),
        created_at TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'online' CHECK (status IN ('online', 'offline')),
        watch INTEGER NOT NULL DEFAULT 1 CHECK (watch IN (0, 1))
      );
      ALTER TABLE sources ADD COLUMN root_id INTEGER REFERENCES roots(id);
      ALTER TABLE sources ADD COLUMN rel_path TEXT;
      CREATE INDEX sources_root_rel ON sources(root_id, rel_path);

      CREATE TABLE packet_sources (
        hash TEXT NOT NULL REFERENCES packet_snapshots(hash),
        root_id INTEGER,
        rel_path TEXT NOT NULL,
        content_hash TEXT,
        PRIMARY KEY (hash, root_id, rel_path)
      );
    `);
    backfillRoots(db);
  },
};

/** The ingest paths ever given (ingest_log) and the roots sources recorded; a source joins the longest that contains it, else its own folder. */
function backfillRoots(db: Database): void {
  const candidates = new Set<string>();
  for (const r of db.prepare('SELECT roots FROM ingest_log').all() as { roots: string }[]) {
    try {
      for (const p of JSON.parse(r.roots) as unknown[]) if (typeof p === 'string') candidates.add(p);
    } catch {
      // a malformed log row names no roots
    }
  }
  for (const r of db.prepare('SELECT DISTINCT root FROM sources').all() as { root: string }[]) candidates.add(r.root);
  const sorted = [...candidates].sort((a, b) => b.length - a.length);
  const sources = db.prepare('SELECT id, path FROM sources').all() as { id: number; path: string }[];
  const now = new Date().toISOString();
  const ids = new Map<string, number>();
  const names = new Set<string>();
  const insertRoot = db.prepare('INSERT INTO roots (path, name, kind, created_at) VALUES (?, ?, ?, ?)');
  const update = db.prepare('UPDATE sources SET root_id = ?, rel_path = ?, root = ? WHERE id = ?');
  for (const s of sources) {
    let root = sorted.find((c) => s.path === c || s.path.startsWith(c.endsWith(sep) ? c : c + sep));
    const kind = root === s.path ? 'file' : 'folder';
    root ??= dirname(s.path);
    let id = ids.get(root);
    if (id === undefined) {
      id = Number(insertRoot.run(root, uniqueName(rootBaseName(root), names), kind, now).lastInsertRowid);
      ids.set(root, id);
    }
    update.run(id, relativeTo(root, s.path), root, s.id);
  }
}
