import { mkdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ingestPaths, listRoots } from '../ingest/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { createWatcher, parcelSubscribe, type LibraryChange, type Watcher } from './index.ts';

// Real file-system events (inotify through @parcel/watcher) in temporary folders; nothing is mocked.
const tmp = tempDirs('cp-watch-');
const open: { store: Store; watcher: Watcher }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.watcher.close();
    o.store.close();
  }
});
afterAll(() => tmp.cleanup());

async function until(what: string, cond: () => boolean, w: Watcher, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await w.idle();
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function setup(files: Record<string, string>, opts: { ingestFirst?: boolean } = {}) {
  const root = tmp.make();
  writeTree(root, files);
  const store = openStore(join(tmp.make(), 'w.db'), { loadVec: false });
  if (opts.ingestFirst !== false) await ingestPaths(store.db, [root]);
  const changes: LibraryChange[] = [];
  const watcher = createWatcher({ db: store.db, subscribe: parcelSubscribe, debounceMs: 60, pollMs: 100, onChange: (c) => changes.push(c) });
  open.push({ store, watcher });
  const paths = () => (store.db.prepare('SELECT rel_path AS p FROM sources ORDER BY rel_path').all() as { p: string }[]).map((r) => r.p);
  const hits = (q: string) => (store.db.prepare('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?').get(q) as { n: number }).n;
  return { root, store, watcher, changes, paths, hits };
}

describe('watcher', () => {
  it('follows add, edit, delete, rename, a new subfolder and ignores ignored files', async () => {
    const t = await setup({ 'a.md': '# A\n\nalpha walrus\n', 'b.txt': 'bravo\n', '.gitignore': 'build/\n*.log\n' });
    await t.watcher.start();
    expect(t.watcher.status()).toMatchObject({ watching: 1, queue: 0 });

    writeFileSync(join(t.root, 'c.md'), '# C\n\ncharlie narwhal\n');
    await until('add', () => t.hits('narwhal') === 1, t.watcher);

    writeFileSync(join(t.root, 'a.md'), '# A\n\nalpha okapi\n');
    await until('edit', () => t.hits('okapi') === 1 && t.hits('walrus') === 0, t.watcher);

    unlinkSync(join(t.root, 'b.txt'));
    await until('delete', () => !t.paths().includes('b.txt'), t.watcher);

    renameSync(join(t.root, 'c.md'), join(t.root, 'd.md'));
    await until('rename', () => t.paths().includes('d.md') && !t.paths().includes('c.md'), t.watcher);

    mkdirSync(join(t.root, 'sub', 'deeper'), { recursive: true });
    writeFileSync(join(t.root, 'sub', 'deeper', 'e.md'), '# E\n\necho quokka\n');
    await until('new subfolder', () => t.paths().includes('sub/deeper/e.md'), t.watcher);

    renameSync(join(t.root, 'sub'), join(t.root, 'moved'));
    await until('renamed folder', () => t.paths().includes('moved/deeper/e.md') && !t.paths().includes('sub/deeper/e.md'), t.watcher);

    mkdirSync(join(t.root, 'build'));
    writeFileSync(join(t.root, 'build', 'out.md'), 'ignored tapir\n');
    writeFileSync(join(t.root, 'debug.log'), 'ignored tapir\n');
    writeFileSync(join(t.root, '.env'), 'TAPIR_MODE=ignored tapir\n'); // a credential file: the walker's containment rules skip it
    writeFileSync(join(t.root, 'f.md'), 'fox\n'); // a later event that proves the ignored ones were seen and dropped
    await until('after ignored', () => t.paths().includes('f.md'), t.watcher);
    expect(t.hits('tapir')).toBe(0);
    expect(t.paths()).toEqual(['.env', '.gitignore', 'a.md', 'd.md', 'f.md', 'moved/deeper/e.md']);
    expect(t.store.db.prepare("SELECT status FROM sources WHERE rel_path = '.env'").get()).toEqual({ status: 'skipped' });

    const all = t.changes.flatMap((c) => [...c.added, ...c.updated, ...c.removed]);
    expect(all.every((p) => !p.startsWith('/'))).toBe(true);
    expect(t.changes.some((c) => c.removed.includes('b.txt'))).toBe(true);
    expect(t.watcher.status().lastChange).not.toBeNull();
  });

  it('indexes a burst of files in one batch', async () => {
    const t = await setup({ 'seed.md': 'seed\n' });
    await t.watcher.start();
    const before = t.watcher.status().batches;
    for (let i = 0; i < 300; i++) writeTree(t.root, { [`burst/d${i % 10}/f${i}.md`]: `# F${i}\n\nburst file zebra${i}\n` });
    await until('burst', () => t.paths().length === 301, t.watcher);
    // One debounced batch for the whole burst (reconcile on start counted before).
    expect(t.watcher.status().batches - before).toBe(1);
    expect(t.hits('zebra299')).toBe(1);
    // The batch is logged under its root (a packet's HISTORY shows the log), not as 300 file paths.
    expect(t.store.db.prepare('SELECT roots FROM ingest_log ORDER BY id DESC LIMIT 1').get()).toEqual({ roots: JSON.stringify([t.root]) });
  });

  it('reconciles each root with the index before listening (edits made while nothing watched)', async () => {
    const t = await setup({ 'keep.md': 'keep\n', 'edit.md': 'old kiwi\n', 'gone.md': 'gone\n' });
    writeFileSync(join(t.root, 'edit.md'), 'new mango\n');
    unlinkSync(join(t.root, 'gone.md'));
    writeFileSync(join(t.root, 'new.md'), 'new lychee\n');
    await t.watcher.start(); // no event happens after start: only the reconcile can see these
    expect(t.paths()).toEqual(['edit.md', 'keep.md', 'new.md']);
    expect(t.hits('mango')).toBe(1);
    expect(t.hits('kiwi')).toBe(0);
    expect(t.changes).toHaveLength(1);
    expect(t.changes[0]).toMatchObject({ added: ['new.md'], updated: ['edit.md'], removed: ['gone.md'] });
  });

  it('marks a root that disappears offline, keeps its sources, and follows it again when it returns', async () => {
    const t = await setup({ 'x.md': 'xylophone\n', 'y.md': 'yak\n' });
    await t.watcher.start();
    const away = `${t.root}-away`;
    renameSync(t.root, away);
    await until('offline', () => listRoots(t.store.db)[0]!.status === 'offline' && t.watcher.status().watching === 0, t.watcher);
    expect(t.paths()).toEqual(['x.md', 'y.md']);
    expect(t.hits('xylophone')).toBe(1);
    expect(t.watcher.status()).toMatchObject({ watching: 0 });

    writeFileSync(join(away, 'z.md'), 'zeppelin\n'); // changed while away
    renameSync(away, t.root);
    // Reconciled (z.md, written while away, is in) and subscribed again.
    await until('online', () => listRoots(t.store.db)[0]!.status === 'online' && t.paths().includes('z.md') && t.watcher.status().watching === 1, t.watcher);
    writeFileSync(join(t.root, 'w.md'), 'wombat\n');
    await until('events after return', () => t.hits('wombat') === 1, t.watcher);
    rmSync(away, { recursive: true, force: true });
  });
});
