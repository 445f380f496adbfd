import { renameSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../store/index.ts';
import { applyMigrations } from '../store/migrate.ts';
import { migrations } from '../store/migrations/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { ingestPaths, listRoots, rescan } from './index.ts';

const tmp = tempDirs('cp-roots-');
afterAll(() => tmp.cleanup());

describe('roots', () => {
  it('files every source under its root with a relative path; a subfolder ingested again stays in its root', async () => {
    const root = join(tmp.make(), 'proj');
    writeTree(root, { 'docs/a.md': 'a\n', 'src/b.ts': 'b\n' });
    const store = openStore(':memory:', { loadVec: false });
    await ingestPaths(store.db, [root]);
    await ingestPaths(store.db, [join(root, 'docs')]);
    expect(listRoots(store.db)).toMatchObject([{ path: root, name: 'proj', kind: 'folder', status: 'online', watch: true, sources: 2 }]);
    expect(store.db.prepare('SELECT rel_path AS r FROM sources ORDER BY r').all()).toEqual([{ r: 'docs/a.md' }, { r: 'src/b.ts' }]);

    // Two roots with the same folder name get distinct names.
    const twin = join(tmp.make(), 'proj');
    writeTree(twin, { 'c.md': 'c\n' });
    await ingestPaths(store.db, [twin]);
    expect(listRoots(store.db).map((r) => r.name)).toEqual(['proj', 'proj-2']);
    store.close();
  });

  it('a folder root that vanishes goes offline and keeps its sources; rescan uses the remembered roots', async () => {
    const root = tmp.make();
    writeTree(root, { 'a.md': 'a\n' });
    const store = openStore(':memory:', { loadVec: false });
    await ingestPaths(store.db, [root]);
    renameSync(root, `${root}-x`);
    const r = await rescan(store.db);
    expect(r.offline).toEqual([root]);
    expect(r.removed).toEqual([]);
    expect(listRoots(store.db)[0]).toMatchObject({ status: 'offline', sources: 1 });
    renameSync(`${root}-x`, root);
    await rescan(store.db);
    expect(listRoots(store.db)[0]).toMatchObject({ status: 'online', sources: 1 });
    store.close();
  });

  it('migration 040 backfills roots from the longest earlier ingest path, else the file\'s own folder', () => {
    const db = new BetterSqlite3(':memory:');
    applyMigrations(db, migrations.filter((m) => m.version < 40));
    const add = db.prepare(`INSERT INTO sources (path, root, type, status, indexed_at) VALUES (?, ?, 'text', 'indexed', 'now')`);
    db.prepare('INSERT INTO ingest_log (started_at, roots) VALUES (?, ?)').run('t', JSON.stringify(['/w/proj', '/w/proj/docs']));
    add.run('/w/proj/src/a.ts', '/w/proj');
    add.run('/w/proj/docs/b.md', '/w/proj');
    add.run('/elsewhere/c.md', '/elsewhere/c.md');
    add.run('/lost/d.md', '/gone-root-typo');
    applyMigrations(db, migrations);
    const rows = db.prepare('SELECT s.path, s.rel_path AS rel, r.path AS root, r.name, r.kind FROM sources s JOIN roots r ON r.id = s.root_id ORDER BY s.path').all();
    expect(rows).toEqual([
      { path: '/elsewhere/c.md', rel: 'c.md', root: '/elsewhere/c.md', name: 'c.md', kind: 'file' },
      { path: '/lost/d.md', rel: 'd.md', root: '/lost', name: 'lost', kind: 'folder' },
      { path: '/w/proj/docs/b.md', rel: 'b.md', root: '/w/proj/docs', name: 'docs', kind: 'folder' },
      { path: '/w/proj/src/a.ts', rel: 'src/a.ts', root: '/w/proj', name: 'proj', kind: 'folder' },
    ]);
    db.close();
  });
});
