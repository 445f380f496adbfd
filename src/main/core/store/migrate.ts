import type { Database } from 'better-sqlite3';

export interface Migration {
  /** Unique and ordered. Ranges by capability: 1–9 core, 10–19 vectors, 20–29 memory/hierarchy, 30–39 packets, 40–49 roots/watch. */
  version: number;
  name: string;
  up: string | ((db: Database) => void);
}

export interface AppliedMigration {
  version: number;
  name: string;
  applied_at: string;
}

/**
 * Applies every migration not yet recorded, in version order, each in its own transaction, so a failure leaves
 * the database at the last good version. Recording applied versions (not just user_version) lets capabilities
 * add migrations independently as long as their numbers do not collide.
 */
export function applyMigrations(db: Database, migrations: readonly Migration[], now: () => Date = () => new Date()): number[] {
  const seen = new Set<number>();
  for (const m of migrations) {
    if (seen.has(m.version)) throw new Error(`duplicate migration version ${m.version} (${m.name})`);
    seen.add(m.version);
  }
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
  );
  const pending = [...migrations].filter((m) => !applied.has(m.version)).sort((a, b) => a.version - b.version);
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const done: number[] = [];
  for (const m of pending) {
    db.transaction(() => {
      if (typeof m.up === 'string') db.exec(m.up);
      else m.up(db);
      record.run(m.version, m.name, now().toISOString());
    })();
    done.push(m.version);
  }
  return done;
}

export function listAppliedMigrations(db: Database): AppliedMigration[] {
  return db.prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all() as AppliedMigration[];
}

/**
 * Versions recorded in schema_migrations that are not in `known`: a newer build wrote them, so this build cannot
 * tell what the tables mean. Compares against the set of migrations, not the highest number, because capabilities
 * number their migrations in separate ranges. A database without the table (new or foreign) has none.
 */
export function unknownMigrationVersions(db: Database, known: Iterable<number>): number[] {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!has) return [];
  const knownSet = new Set(known);
  return (db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[])
    .map((r) => r.version)
    .filter((v) => !knownSet.has(v));
}
