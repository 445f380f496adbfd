// The one test suite every Retriever implementation runs (bm25, vector, hybrid): call it from a *.test.ts file.
import type { Database } from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestPaths } from '../ingest/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import type { Retriever } from './retriever.ts';

export const CONTRACT_CORPUS: Record<string, string> = {
  'docs/volcano.md': '# Volcanoes\n\nMagma chambers feed volcanic eruptions with molten rock and ash clouds.\n',
  'docs/ocean.md': '# Oceans\n\nCoral reefs shelter fish; ocean currents move warm water toward the poles.\n',
  'docs/space.md': '# Space\n\nTelescopes observe distant galaxies, nebulae and exoplanet transits.\n',
  'src/cache.ts': 'export class LruCache {\n  // evicts the least recently used entry when capacity is reached\n  evict(): void {}\n}\n',
  'src/retry.py': 'def retry_with_backoff(fn, attempts):\n    """exponential backoff between retry attempts"""\n    return fn()\n',
  'notes/garden.txt': 'Tomatoes need sunlight, compost and regular watering in the garden.\n',
};

export const HOSTILE_QUERIES = [
  '', '   ', '"', '""', '"unterminated', "'", 'AND', 'OR OR', 'NOT', 'NEAR', 'NEAR(a b, 2)', 'a NEAR/2 b', '*', 'magma*',
  'title:magma', '{title}: x', '(', ')', '^magma', 'magma -ash', 'a+b', '--', '; DROP TABLE chunks; --', '\u0000', '💥🔥',
  '日本語のテキスト', 'naïve café', 'x'.repeat(5000), '\\', '%_', ':', 'col:', '"magma" AND "ash"',
];

export function retrieverContract(name: string, create: (store: Store) => Retriever | Promise<Retriever>): void {
  describe(`Retriever contract: ${name}`, () => {
    const tmp = tempDirs('cp-retriever-');
    let store: Store;
    let retriever: Retriever;
    let root: string;
    beforeAll(async () => {
      root = tmp.make();
      writeTree(root, CONTRACT_CORPUS);
      store = openStore(':memory:');
      await ingestPaths(store.db, [root]);
      retriever = await create(store);
    });
    afterAll(() => {
      store.close();
      tmp.cleanup();
    });

    it('ranks the document about the query first, with full provenance', async () => {
      const hits = await retriever.search({ text: 'magma eruptions volcanic', k: 3 });
      expect(hits.length).toBeGreaterThan(0);
      const top = hits[0]!;
      expect(top.path).toBe(`${root}/docs/volcano.md`);
      expect(top.anchor).toBe('volcanoes');
      expect(top.lineStart).toBe(1);
      expect(top.lineEnd).toBeGreaterThanOrEqual(3);
      expect(top.text).toContain('Magma');
      expect(Number.isFinite(top.score)).toBe(true);
    });

    it('finds code by identifiers and comments', async () => {
      const hits = await retriever.search({ text: 'exponential backoff retry', k: 2 });
      expect(hits[0]?.path).toBe(`${root}/src/retry.py`);
    });

    it('returns at most k hits, best first, without duplicates', async () => {
      for (const k of [1, 2, 5]) {
        const hits = await retriever.search({ text: 'water ocean garden magma galaxies cache', k });
        expect(hits.length).toBeLessThanOrEqual(k);
        for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
        expect(new Set(hits.map((h) => h.chunkId)).size).toBe(hits.length);
      }
      expect(await retriever.search({ text: 'magma', k: 0 })).toEqual([]);
    });

    it('applies path and type filters', async () => {
      const code = await retriever.search({ text: 'evicts least recently used backoff', k: 10, filters: { types: ['code'] } });
      expect(code.length).toBeGreaterThan(0);
      for (const h of code) expect(h.path).toMatch(/\.(ts|py)$/);
      const docs = await retriever.search({ text: 'magma coral telescopes tomatoes', k: 10, filters: { pathGlob: `${root}/docs/*` } });
      expect(docs.length).toBeGreaterThan(0);
      for (const h of docs) expect(h.path.startsWith(`${root}/docs/`)).toBe(true);
      const none = await retriever.search({ text: 'magma', k: 10, filters: { modifiedAfter: '2999-01-01' } });
      expect(none).toEqual([]);
    });

    it('never throws on hostile query text', async () => {
      for (const q of HOSTILE_QUERIES) {
        const hits = await retriever.search({ text: q, k: 5 });
        expect(Array.isArray(hits), JSON.stringify(q)).toBe(true);
      }
    });
  });
}

export type { Database };
