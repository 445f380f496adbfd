import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import type { ApiEvent } from '../../shared/api/events.ts';
import { createApi } from './index.ts';
import { tinyModels } from '../core/vectors/testing/tiny-embedder.ts';

const tmp = tempDirs('cp-api-watch-');
afterAll(() => tmp.cleanup());

describe('the app watcher through the API', () => {
  it('follows roots an ingest created, pushes library.changed and watch.status, and obeys the per-root switch', async () => {
    const dataDir = tmp.make();
    const root = join(tmp.make(), 'proj');
    writeTree(root, { 'a.md': '# A\n\nalpha\n' });
    const store = openStore(join(dataDir, 'w.db'), { loadVec: false });
    const api = createApi({ store, dataDir, version: 't', transport: 'http', background: false, watch: { debounceMs: 50, pollMs: 100 } });
    const events: ApiEvent[] = [];
    api.events.subscribe((e) => events.push(e));
    const call = async <T = any>(m: string, input: unknown = {}): Promise<T> => {
      const r = await api.dispatch(m, input);
      if (!r.ok) throw new Error(`${m}: ${r.error.message}`);
      return r.value as T;
    };
    const until = async (what: string, cond: () => boolean | Promise<boolean>) => {
      const end = Date.now() + 8000;
      while (!(await cond())) {
        if (Date.now() > end) throw new Error(`timed out: ${what}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    const hits = async (q: string) => (await call<{ hits: unknown[] }>('search.query', { query: q })).hits.length;
    try {
      await call('library.ingest', { paths: [root] });
      expect(events.some((e) => e.name === 'library.changed' && e.payload.added.includes('a.md'))).toBe(true);
      await until('followed', async () => (await call('watch.status')).watching === 1);
      const [r] = await call<{ id: number; name: string; watch: boolean }[]>('roots.list');
      expect(r).toMatchObject({ name: 'proj', watch: true, status: 'online' });

      writeFileSync(join(root, 'b.md'), '# B\n\nbravo pangolin\n');
      await until('edit indexed', async () => (await hits('pangolin')) === 1);
      expect(events.some((e) => e.name === 'library.changed' && e.payload.root === 'proj' && e.payload.added.includes('b.md'))).toBe(true);
      expect(events.some((e) => e.name === 'watch.status' && e.payload.lastChange !== null)).toBe(true);
      // The search hit cites the relative path.
      const hit = (await call<{ hits: { displayPath: string; relPath: string }[] }>('search.query', { query: 'pangolin' })).hits[0]!;
      expect(hit).toMatchObject({ displayPath: 'b.md', relPath: 'b.md' });

      expect(await call('roots.setWatch', { rootId: r!.id, watch: false })).toMatchObject({ watch: false });
      expect((await call('watch.status')).watching).toBe(0);
      writeFileSync(join(root, 'c.md'), '# C\n\ncharlie axolotl\n');
      await new Promise((res) => setTimeout(res, 400));
      expect(await hits('axolotl')).toBe(0);

      await call('roots.setWatch', { rootId: r!.id, watch: true }); // reconciles on follow
      expect(await hits('axolotl')).toBe(1);
      expect(await api.dispatch('roots.setWatch', { rootId: 999, watch: true })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    } finally {
      await api.close();
      store.close();
    }
  });
});

describe('the app watcher with a model', () => {
  it('embeds the chunks of a watched edit in the worker, so vector search finds it', async () => {
    const models = await tinyModels();
    const dataDir = tmp.make();
    const root = join(tmp.make(), 'lib');
    writeTree(root, { 'a.md': '# Volcano\n\nmagma and ash\n' });
    const store = openStore(join(dataDir, 'e.db'));
    const api = createApi({ store, dataDir, version: 't', transport: 'http', modelDirs: [models.root], background: true, watch: { debounceMs: 50, pollMs: 100 } });
    const covered = () => (store.db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    try {
      const r = await api.dispatch('library.ingest', { paths: [root] });
      expect(r.ok).toBe(true);
      const vectors = () => {
        const space = store.db.prepare("SELECT id FROM vector_spaces WHERE state = 'active'").get() as { id: number } | undefined;
        return space ? (store.db.prepare(`SELECT count(*) AS n FROM vec_f32_${space.id}`).get() as { n: number }).n : 0;
      };
      const until = async (what: string, cond: () => boolean | Promise<boolean>) => {
        const end = Date.now() + 20_000;
        while (!(await cond())) {
          if (Date.now() > end) throw new Error(`timed out: ${what}`);
          await new Promise((res) => setTimeout(res, 25));
        }
      };
      await until('first embedding', () => vectors() === covered() && covered() > 0);
      // The watcher follows the new root; an edit on disk gets its vectors without any call.
      await until('followed', async () => {
        const st = await api.dispatch('watch.status', {});
        return st.ok && (st.value as { watching: number }).watching === 1;
      });
      writeFileSync(join(root, 'b.md'), '# Ocean\n\ncoral reefs and currents\n');
      await until('watched file embedded', () => covered() === 2 && vectors() === 2);
      const hits = await api.dispatch('search.query', { query: 'coral reefs', mode: 'vector', k: 1 });
      expect(hits.ok && (hits.value as { hits: { relPath: string }[] }).hits[0]!.relPath).toBe('b.md');
    } finally {
      await api.close();
      store.close();
      await models.cleanup();
    }
  }, 40_000);
});
