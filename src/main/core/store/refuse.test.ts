import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testing/tmp.ts';
import { explainStoreError, getMeta, migrations, openStore, setMeta, StoreOpenError, StoreReadOnlyError } from './index.ts';

const tmp = tempDirs('cp-refuse-');
afterAll(() => tmp.cleanup());

const PAGE = 4096;
const mode = (p: string) => statSync(p).mode & 0o777;
const newest = Math.max(...migrations.map((m) => m.version));

/** A closed store on disk (WAL checkpointed into the file) with `rows` meta rows spread over many pages. */
function filledStore(rows = 3000): string {
  const path = join(tmp.make(), 'store.db');
  const s = openStore(path, { loadVec: false });
  s.db.transaction(() => {
    for (let i = 0; i < rows; i++) setMeta(s.db, `k${String(i).padStart(5, '0')}`, `value ${i} `.repeat(8));
  })();
  s.close();
  return path;
}

function snapshot(path: string) {
  return { bytes: readFileSync(path), mtimeMs: statSync(path).mtimeMs, files: readdirSync(join(path, '..')).sort() };
}

describe('a database written by a newer build', () => {
  it('is refused before any read or write, and the file is left exactly as it was', () => {
    const path = filledStore(10);
    const s = openStore(path, { loadVec: false });
    s.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(newest + 1000, 'from-the-future', '2030-01-01T00:00:00Z');
    s.close();
    const before = snapshot(path);
    let error: unknown;
    try {
      openStore(path);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StoreOpenError);
    expect((error as StoreOpenError).code).toBe('newer_schema');
    expect((error as Error).message).toBe(
      `database ${path} was written by a newer ContextPack (schema ${newest + 1000}, this build knows up to ${newest}); ` +
        'update ContextPack to open it (the file was left untouched)',
    );
    expect(snapshot(path)).toEqual(before);
    // Read-only opens are refused too: this build cannot say what the tables mean.
    expect(() => openStore(path, { readonly: true })).toThrow(/newer ContextPack/);
  });

  it('compares with the set of migrations this build has, not the highest number', () => {
    const path = filledStore(10);
    const s = openStore(path, { loadVec: false });
    const gap = [...Array(newest).keys()].map((i) => i + 1).find((v) => !migrations.some((m) => m.version === v))!;
    s.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(gap, 'another-capability', 'x');
    s.close();
    expect(() => openStore(path)).toThrow(`(schema ${gap}, this build knows up to ${newest})`);
  });

  it('a file that is not a SQLite database is refused untouched', () => {
    const path = join(tmp.make(), 'notes.db');
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(200));
    const before = snapshot(path);
    expect(() => openStore(path)).toThrow(/cannot open database .*notes\.db: not a SQLite database/);
    expect(snapshot(path)).toEqual(before);
  });
});

describe('a damaged database', () => {
  /** Overwrites the cell pointers of the last page, a leaf of the meta table written last; the first pages stay readable. */
  function damage(path: string): void {
    const bytes = readFileSync(path);
    const last = bytes.length - PAGE;
    bytes.fill(0xff, last + 8, last + 40);
    writeFileSync(path, bytes);
  }

  it('is reported, opened read-only: reads that work go on, writes fail with the reason', () => {
    const path = filledStore();
    damage(path);
    const s = openStore(path, { loadVec: false });
    expect(s.readOnlyReason).toMatch(new RegExp(`^database ${path} is damaged \\(PRAGMA quick_check: .+\\); it is open read-only`));
    expect(getMeta(s.db, 'k00000')).toMatch(/^value 0 /);
    let error: unknown;
    try {
      setMeta(s.db, 'new', 'value');
    } catch (err) {
      error = explainStoreError(s, err);
    }
    expect(error).toBeInstanceOf(StoreReadOnlyError);
    expect((error as Error).message).toBe(s.readOnlyReason);
    s.close();
  });

  it('scans a file changed behind its back, not one it left itself', () => {
    const path = filledStore();
    const a = openStore(path, { loadVec: false });
    expect(a.integrity).toBe('unchanged'); // closed by this build a moment ago
    setMeta(a.db, 'more', 'data');
    a.close();
    expect(openStore(path, { loadVec: false }).integrity).toBe('unchanged');
    // Same bytes written back with the old mtime: ctime still tells.
    const before = statSync(path);
    writeFileSync(path, readFileSync(path));
    utimesSync(path, before.atime, before.mtime);
    const b = openStore(path, { loadVec: false });
    expect(b.integrity).toBe('ran');
    b.close();
    // The stamp is the file's alone: damage after a clean close is found.
    damage(path);
    expect(openStore(path, { loadVec: false }).readOnlyReason).toMatch(/is damaged/);
    expect(openStore(':memory:').integrity).toBe('memory');
    expect(openStore(join(tmp.make(), 'n.db'), { loadVec: false }).integrity).toBe('new');
  });

  it('a healthy file is not read-only, and other errors pass through explainStoreError unchanged', () => {
    const s = openStore(filledStore(10), { loadVec: false });
    expect(s.readOnlyReason).toBeNull();
    const other = new Error('x');
    expect(explainStoreError(s, other)).toBe(other);
    s.close();
  });
});

describe('file modes', () => {
  it('creates the database, its WAL and SHM 0600 and the folders it makes 0700', () => {
    const base = tmp.make();
    chmodSync(base, 0o755);
    const path = join(base, 'a', 'b', 'store.db');
    const s = openStore(path, { loadVec: false });
    setMeta(s.db, 'x', 'y');
    for (const f of [path, `${path}-wal`, `${path}-shm`]) expect([f, mode(f)]).toEqual([f, 0o600]);
    expect(mode(join(base, 'a'))).toBe(0o700);
    expect(mode(join(base, 'a', 'b'))).toBe(0o700);
    // A folder that was already there keeps its mode: it is the user's.
    expect(mode(base)).toBe(0o755);
    s.close();
  });

  it('leaves an existing database file as it is', () => {
    const dir = tmp.make();
    mkdirSync(join(dir, 'x'));
    const path = join(dir, 'x', 'store.db');
    openStore(path, { loadVec: false }).close();
    chmodSync(path, 0o640);
    openStore(path, { loadVec: false }).close();
    expect(mode(path)).toBe(0o640);
    expect(existsSync(path)).toBe(true);
  });
});
