import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { storeStats } from './stats.ts';
import { openStore } from './store/index.ts';
import { tempDirs } from './testing/tmp.ts';

const tmp = tempDirs('cp-stats-');
afterAll(() => tmp.cleanup());

describe('store stats', () => {
  it('says once, with the reason, that semantic search is off when sqlite-vec is not loaded', async () => {
    const dir = tmp.make();
    const store = openStore(join(dir, 'novec.db'), { loadVec: false });
    try {
      const s = await storeStats(store, [join(dir, 'models')]);
      expect(s.dbPath).toBe(store.path);
      expect(s.notices.filter((n) => /sqlite-vec/.test(n))).toEqual(['semantic search off: sqlite-vec disabled']);
      expect(s.notices.filter((n) => n.startsWith('semantic search off'))).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  it('reports the missing model when sqlite-vec is there', async () => {
    const dir = tmp.make();
    const store = openStore(join(dir, 'vec.db'));
    try {
      const s = await storeStats(store, [join(dir, 'models')]);
      expect(s.notices).toEqual([expect.stringMatching(/^semantic search off: no model at /)]);
      expect(s.sources).toEqual({ indexed: 0, skipped: 0, failed: 0 });
    } finally {
      store.close();
    }
  });
});
