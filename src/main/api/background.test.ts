import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { tinyModels } from '../core/vectors/testing/tiny-embedder.ts';
import type { ApiEvent, EmbedProgress } from '../../shared/api/index.ts';
import { createApi } from './index.ts';

const tmp = tempDirs('cp-bg-');
afterAll(() => tmp.cleanup());

function waitForEmbed(events: ApiEvent[], state: EmbedProgress['state']): Promise<EmbedProgress> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      const hit = events.find((e): e is Extract<ApiEvent, { name: 'embed.progress' }> => e.name === 'embed.progress' && e.payload.state === state);
      if (hit) return resolve(hit.payload);
      if (Date.now() - started > 30_000) return reject(new Error(`no embed.progress ${state}: ${JSON.stringify(events.map((e) => e.name))}`));
      setTimeout(poll, 20);
    };
    poll();
  });
}

describe('background work of the app', () => {
  it('embeds new chunks in a worker after an ingest, so vector search works without a separate step', async () => {
    const models = await tinyModels();
    const dataDir = tmp.make();
    const store = openStore(join(dataDir, 'bg.db'));
    const api = createApi({ store, dataDir, version: 't', transport: 'http', modelDirs: [models.root], background: true });
    const events: ApiEvent[] = [];
    api.events.subscribe((e) => events.push(e));
    try {
      const root = tmp.make();
      writeTree(root, { 'a.md': '# Volcano\n\nmagma and ash\n', 'b.md': '# Ocean\n\ncoral reefs and currents\n' });
      const r = await api.dispatch('library.ingest', { paths: [root] });
      expect(r.ok).toBe(true);
      const done = await waitForEmbed(events, 'done');
      expect(done).toMatchObject({ done: 2, total: 2 });
      expect(events.some((e) => e.name === 'embed.progress' && e.payload.state === 'running')).toBe(true);
      const hits = await api.dispatch('search.query', { query: 'magma ash', mode: 'vector', k: 1 });
      expect(hits.ok && (hits.value as { hits: { path: string }[] }).hits[0]!.path).toBe(join(root, 'a.md'));
      const stats = await api.dispatch('stats.get', {});
      expect(stats.ok && JSON.stringify((stats.value as { notices: string[] }).notices)).not.toMatch(/semantic search off/);
    } finally {
      await api.close();
      store.close();
      await models.cleanup();
    }
  });

  it('an embedding run asked for while the background one goes is refused as busy, and runs once it is done', async () => {
    const models = await tinyModels();
    const dataDir = tmp.make();
    const store = openStore(join(dataDir, 'bg3.db'));
    const api = createApi({ store, dataDir, version: 't', transport: 'http', modelDirs: [models.root], background: true });
    const events: ApiEvent[] = [];
    api.events.subscribe((e) => events.push(e));
    try {
      const root = tmp.make();
      writeTree(root, { 'a.md': '# Volcano\n\nmagma and ash\n', 'b.md': '# Ocean\n\ncoral reefs and currents\n' });
      expect((await api.dispatch('library.ingest', { paths: [root] })).ok).toBe(true);
      // The background run started with the ingest (it opens the model in a worker first).
      expect(await api.dispatch('library.embed', {})).toMatchObject({ ok: false, error: { code: 'busy' } });
      await waitForEmbed(events, 'done');
      // Busy until the background run has closed its worker, a moment after its last event.
      let r = await api.dispatch('library.embed', {});
      for (const started = Date.now(); !r.ok && r.error.code === 'busy' && Date.now() - started < 10_000; r = await api.dispatch('library.embed', {})) await new Promise((f) => setTimeout(f, 20));
      expect(r).toMatchObject({ ok: true, value: { embedded: 0, done: 2, total: 2, active: true } });
    } finally {
      await api.close();
      store.close();
      await models.cleanup();
    }
  });

  it('says why semantic search is off when there is no model, and ingest still works', async () => {
    const dataDir = tmp.make();
    const store = openStore(join(dataDir, 'bg2.db'));
    const missing = join(dataDir, 'no-models');
    const api = createApi({ store, dataDir, version: 't', transport: 'http', modelDirs: [missing], background: true });
    const events: ApiEvent[] = [];
    api.events.subscribe((e) => events.push(e));
    try {
      const root = tmp.make();
      writeTree(root, { 'a.md': '# A\n\ntext\n' });
      expect((await api.dispatch('library.ingest', { paths: [root] })).ok).toBe(true);
      const off = await waitForEmbed(events, 'off');
      expect(off.reason).toMatch(/semantic search off: no model at/);
      const stats = await api.dispatch('stats.get', {});
      expect(stats.ok && (stats.value as { notices: string[] }).notices.join('\n')).toMatch(/semantic search off: no model at/);
    } finally {
      await api.close();
      store.close();
    }
  });
});
