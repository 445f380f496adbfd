// The watcher and links made inside a watched root: real file-system events (inotify through @parcel/watcher), a
// real SQLite store; a link that leads out of the root is reported as skipped and nothing behind it is read.
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ingestPaths } from '../ingest/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { createWatcher, parcelSubscribe, type Watcher } from './index.ts';
import type { IngestReport } from '../../../shared/types.ts';

const tmp = tempDirs('cp-watch-links-');
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

describe('watcher: links created inside a root', () => {
  it('a link to a folder outside, a link to /, and a folder swapped for a link are skipped; the outside is never indexed', async () => {
    const base = tmp.make();
    const root = join(base, 'repo');
    writeTree(base, {
      'repo/docs/a.md': '# A\n\ninside-alpha\n',
      'repo/notes/n.md': '# N\n\ninside-notes\n',
      'outside/private.md': 'outside-private-marker\n',
      'outside/n.md': 'outside-notes-marker\n',
    });
    const store = openStore(join(tmp.make(), 'w.db'), { loadVec: false });
    await ingestPaths(store.db, [root]);
    const reports: IngestReport[] = [];
    const watcher = createWatcher({ db: store.db, subscribe: parcelSubscribe, debounceMs: 60, pollMs: 100, afterBatch: (r) => void reports.push(r) });
    open.push({ store, watcher });
    const text = () => (store.db.prepare('SELECT text FROM chunks').all() as { text: string }[]).map((r) => r.text).join('\n');
    const skipped = () => reports.flatMap((r) => r.skipped);
    await watcher.start();

    symlinkSync('../../outside', join(root, 'docs', 'link'));
    symlinkSync('/', join(root, 'docs', 'rootlink'));
    // A real edit in the same batch, so the batch is seen to have run.
    writeFileSync(join(root, 'docs', 'b.md'), '# B\n\ninside-bravo\n');
    await until('the batch', () => text().includes('inside-bravo'), watcher);
    // The folder that held n.md becomes a link to a folder outside holding an n.md of its own.
    renameSync(join(root, 'notes'), join(base, 'notes-old'));
    symlinkSync(join(base, 'outside'), join(root, 'notes'));
    writeFileSync(join(root, 'docs', 'c.md'), '# C\n\ninside-charlie\n');
    await until('the second batch', () => text().includes('inside-charlie'), watcher);
    mkdirSync(join(root, 'late'));
    await watcher.idle();

    expect(text()).not.toContain('outside-private-marker');
    expect(text()).not.toContain('outside-notes-marker');
    // Recorded in the index like any skip, whichever batch met the link.
    const reasons = new Map((store.db.prepare("SELECT path, error FROM sources WHERE status = 'skipped'").all() as { path: string; error: string }[]).map((r) => [r.path, r.error]));
    expect(reasons.get(join(root, 'docs', 'link'))).toBe('symlink outside root');
    expect(reasons.get(join(root, 'docs', 'rootlink'))).toBe('symlink outside root');
    expect(reasons.get(join(root, 'notes'))).toBe('symlink outside root');
    // What was indexed below the folder before it became a link leaves the index.
    expect(text()).not.toContain('inside-notes');
    expect(skipped().length).toBeGreaterThan(0);
  });
});
