import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestPaths } from '../ingest/index.ts';
import { openStore } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { assemble, createStoreSources, listPackets, packetStaleness, renderPacket } from './index.ts';

const tmp = tempDirs('cp-stale-');
afterAll(() => tmp.cleanup());

describe('paths an agent can use, and stale packets', () => {
  it('cites root-relative paths with one root, the root name first with several, and no absolute path anywhere in the packet', async () => {
    const proj = join(tmp.make(), 'myproj');
    const other = join(tmp.make(), 'wiki');
    writeTree(proj, { 'docs/x.md': '# Setup\n\nInstall the walrus toolkit first.\n' });
    writeTree(other, { 'y.md': '# Walrus\n\nWalrus care notes.\n' });
    const store = openStore(':memory:', { loadVec: false });
    await ingestPaths(store.db, [proj]);
    const sources = createStoreSources(store.db);
    const one = await assemble({ query: 'walrus' }, { db: store.db, sources }, 'md');
    expect(one.packet.included.filter((i) => i.kind === 'evidence').map((i) => i.source)).toEqual(['docs/x.md#setup:1-3']);
    const rootId = (store.db.prepare('SELECT id FROM roots').get() as { id: number }).id;
    expect(one.manifest.cited_sources).toEqual([{ path: 'docs/x.md', root_id: rootId }]);

    // A root without sources (an empty folder) does not make citations longer.
    await ingestPaths(store.db, [tmp.make()]);
    const still = await assemble({ query: 'walrus' }, { db: store.db, sources }, 'md');
    expect(still.packet.included.filter((i) => i.kind === 'evidence').map((i) => i.source)).toEqual(['docs/x.md#setup:1-3']);

    await ingestPaths(store.db, [other]);
    const two = await assemble({ query: 'walrus' }, { db: store.db, sources }, 'md');
    const cited = two.packet.included.filter((i) => i.kind === 'evidence').map((i) => i.source).sort();
    expect(cited).toEqual(['myproj/docs/x.md#setup:1-3', 'wiki/y.md#walrus:1-3']);
    for (const format of ['md', 'json', 'contextos'] as const) {
      const text = renderPacket(two.packet, two.hash, format);
      expect(text).toContain('myproj/docs/x.md');
      expect(text).not.toContain(proj);
      expect(text).not.toContain(other);
      expect(text).not.toMatch(/\/tmp\//);
    }
    expect(Buffer.from(two.bytes).toString()).not.toContain(proj);
    store.close();
  });

  it('says which cited sources changed or vanished, from the index alone', async () => {
    const root = tmp.make();
    writeTree(root, { 'a.md': '# Alpha\n\nokapi facts\n', 'b.md': '# Beta\n\nokapi habitat\n', 'c.md': '# Gamma\n\nunrelated\n' });
    const store = openStore(':memory:', { loadVec: false });
    await ingestPaths(store.db, [root]);
    const sources = createStoreSources(store.db);
    const p = await assemble({ query: 'okapi' }, { db: store.db, sources }, 'md');
    const q = await assemble({ query: 'unrelated' }, { db: store.db, sources }, 'md');
    expect(listPackets(store.db).map((x) => x.stale)).toEqual([false, false]);

    writeFileSync(join(root, 'a.md'), '# Alpha\n\nokapi facts, revised\n');
    unlinkSync(join(root, 'b.md'));
    await ingestPaths(store.db, [root]);
    const byHash = new Map(listPackets(store.db).map((x) => [x.hash, x]));
    expect(byHash.get(p.hash)).toMatchObject({ stale: true, changed_sources: [{ path: 'a.md', change: 'changed' }, { path: 'b.md', change: 'vanished' }] });
    expect(byHash.get(q.hash)).toMatchObject({ stale: false });
    expect(byHash.get(q.hash)!.changed_sources).toBeUndefined();

    // Back to the cited content: not stale any more (content hashes, not timestamps).
    writeFileSync(join(root, 'a.md'), '# Alpha\n\nokapi facts\n');
    writeFileSync(join(root, 'b.md'), '# Beta\n\nokapi habitat\n');
    await ingestPaths(store.db, [root]);
    expect(packetStaleness(store.db, [p.hash]).get(p.hash)).toEqual({ stale: false });
    store.close();
  });
});
