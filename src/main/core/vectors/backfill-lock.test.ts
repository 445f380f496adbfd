// Embedding a batch takes seconds with a real model; the backfill must not hold the database's write lock while it
// does, or ingest and the watcher would stall behind it. Checked with a second connection that writes while the
// embedder is mid-batch.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestPaths } from '../ingest/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { backfillVectors, type PassageEmbedder } from './backfill.ts';

const tmp = tempDirs('cp-backfill-lock-');
let store: Store;
let dbPath: string;

beforeAll(async () => {
  dbPath = join(tmp.make(), 'lock.db');
  store = openStore(dbPath);
  const root = tmp.make();
  writeTree(root, Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`n${i}.md`, `# Note ${i}\n\nbody of note ${i}\n`])));
  await ingestPaths(store.db, [root]);
});
afterAll(() => {
  store.close();
  tmp.cleanup();
});

describe('backfill and the write lock', () => {
  it('lets another connection write while a batch is being embedded, and holds the lock only to store each batch', async () => {
    const other = openStore(dbPath);
    const writesDuringEmbedding: boolean[] = [];
    // An embedder that, mid-batch, has another connection take the write lock and commit (busy_timeout 0: no waiting).
    const embedder: PassageEmbedder = {
      modelId: 'test/lock',
      dims: 4,
      fingerprint: 'lockfingerprint0',
      async embedPassages(texts) {
        await new Promise((r) => setTimeout(r, 5));
        other.db.pragma('busy_timeout = 0');
        try {
          other.db.exec('BEGIN IMMEDIATE');
          other.db.prepare("INSERT INTO settings(key, value, updated_at) VALUES ('lock-probe', '1', 'now') ON CONFLICT(key) DO UPDATE SET value = value + 1").run();
          other.db.exec('COMMIT');
          writesDuringEmbedding.push(true);
        } catch (err) {
          if (other.db.inTransaction) other.db.exec('ROLLBACK');
          if (!/locked|busy/i.test((err as Error).message)) throw err;
          writesDuringEmbedding.push(false);
        }
        return texts.map((_, i) => Float32Array.from([1, i, 0, 0].map((x) => x / Math.hypot(1, i))));
      },
    };
    try {
      const r = await backfillVectors(store.db, embedder, { batchSize: 2 });
      expect(r).toMatchObject({ embedded: 6, swapped: true });
      expect(writesDuringEmbedding).toEqual([true, true, true]);
      expect(other.db.prepare("SELECT value FROM settings WHERE key = 'lock-probe'").pluck().get()).toBe('3');
    } finally {
      other.close();
    }
  });
});
