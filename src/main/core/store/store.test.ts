import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyMigrations, listAppliedMigrations, openStore, type Migration } from './index.ts';

const dirs: string[] = [];
function tmpDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cp-store-'));
  dirs.push(dir);
  return join(dir, 'test.db');
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('store', () => {
  it('opens a real file in WAL mode with foreign keys and the core schema', () => {
    const store = openStore(tmpDb());
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    const tables = (store.db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table')").all() as { name: string }[]).map((r) => r.name);
    for (const t of ['sources', 'documents', 'chunks', 'chunks_fts', 'ingest_log', 'meta', 'schema_migrations']) expect(tables).toContain(t);
    expect(store.vec.loaded).toBe(true);
    store.close();
  });

  it('applies migrations once, in order, and records them', () => {
    const path = tmpDb();
    const order: number[] = [];
    const ms: Migration[] = [
      { version: 2, name: 'two', up: (db) => { order.push(2); db.exec('CREATE TABLE t2 (x)'); } },
      { version: 1, name: 'one', up: (db) => { order.push(1); db.exec('CREATE TABLE t1 (x)'); } },
    ];
    const a = openStore(path, { migrations: ms });
    expect(order).toEqual([1, 2]);
    a.close();
    const b = openStore(path, { migrations: ms });
    expect(order).toEqual([1, 2]);
    expect(listAppliedMigrations(b.db).map((m) => m.version)).toEqual([1, 2]);
    b.close();
  });

  it('rolls back a failing migration and keeps earlier ones', () => {
    const path = tmpDb();
    const ms: Migration[] = [
      { version: 1, name: 'ok', up: 'CREATE TABLE ok (x)' },
      { version: 2, name: 'bad', up: 'CREATE TABLE half (x); THIS IS NOT SQL' },
    ];
    expect(() => openStore(path, { migrations: ms })).toThrow();
    const s = openStore(path, { migrations: [ms[0]!] });
    expect(listAppliedMigrations(s.db).map((m) => m.version)).toEqual([1]);
    expect(s.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half'").get()).toEqual({ n: 0 });
    s.close();
  });

  it('refuses duplicate migration versions', () => {
    const s = openStore(':memory:', { migrations: [] });
    expect(() => applyMigrations(s.db, [
      { version: 5, name: 'a', up: '' },
      { version: 5, name: 'b', up: '' },
    ])).toThrow(/duplicate migration version 5/);
    s.close();
  });

  it('keeps the FTS index in step with chunk deletes through cascades', () => {
    const s = openStore(':memory:');
    const db = s.db;
    db.prepare("INSERT INTO sources (id, path, root, type, status, indexed_at) VALUES (1, '/a.md', '/', 'markdown', 'indexed', 'now')").run();
    db.prepare("INSERT INTO documents (id, source_id, ordinal, title) VALUES (1, 1, 0, 'Title words')").run();
    db.prepare("INSERT INTO chunks (document_id, ordinal, text, line_start, line_end, token_count, chunker_version) VALUES (1, 0, 'zebra crossing', 1, 1, 2, 1)").run();
    const hits = () => (db.prepare("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'zebra'").get() as { n: number }).n;
    expect(hits()).toBe(1);
    expect((db.prepare("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'title:words'").get() as { n: number }).n).toBe(1);
    db.prepare('DELETE FROM sources WHERE id = 1').run();
    expect(hits()).toBe(0);
    s.close();
  });
});
