import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestPaths } from '../core/ingest/index.ts';
import { openStore, type Store } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { tinyModels, type TinyModelDir } from '../core/vectors/testing/tiny-embedder.ts';
import { createApi } from './index.ts';
import { createEngines } from './wire-engines.ts';

const tmp = tempDirs('cp-shutdown-');
let models: TinyModelDir;
let store: Store;
let dataDir: string;

beforeAll(async () => {
  models = await tinyModels();
  dataDir = tmp.make();
  store = openStore(join(dataDir, 's.db'));
  const root = tmp.make();
  writeTree(root, { 'a.md': '# Volcano\n\nmagma and ash\n', 'b.md': '# Ocean\n\ncoral reefs\n' });
  await ingestPaths(store.db, [root]);
  await models.embedAll(store.db);
});

afterAll(async () => {
  store.close();
  await models.cleanup();
  tmp.cleanup();
});

describe('the query embedder', () => {
  it('runs in the worker entry the app gives (the desktop bundle has no .ts source to start)', async () => {
    const missing = pathToFileURL(join(dataDir, 'no-such-bundle', 'embed-worker.cjs'));
    const api = createApi({ store, dataDir, version: 't', transport: 'http', modelDirs: [models.root], embedWorkerUrl: missing, background: false });
    try {
      const r = await api.dispatch('search.query', { query: 'magma', mode: 'vector', k: 1 });
      expect(r).toMatchObject({ ok: false, error: { code: 'unavailable', message: expect.stringContaining(missing.href) } });
    } finally {
      await api.close();
    }
  });

  it('is closed by Api.close, so its worker thread does not keep the process alive', async () => {
    const workers: { worker: Worker; exited: boolean }[] = [];
    const engines = createEngines(store, {
      modelDirs: [models.root],
      embedWorker: {
        spawnWorker: (url, init) => {
          const w = { worker: new Worker(url, { workerData: init }), exited: false };
          w.worker.once('exit', () => (w.exited = true));
          workers.push(w);
          return w.worker;
        },
      },
    });
    const api = createApi({ store, dataDir, version: 't', transport: 'http', modelDirs: [models.root], engines, background: false });
    const r = await api.dispatch('search.query', { query: 'coral reefs', mode: 'hybrid', k: 1 });
    expect(r.ok).toBe(true);
    expect(workers).toHaveLength(1);
    expect(workers[0]!.exited).toBe(false);
    await api.close();
    expect(workers[0]!.exited).toBe(true);
  });
});

describe('closing the API during an ingest', () => {
  it('stops the running ingest between files and waits for it, so the store can close right after', async () => {
    const dir = tmp.make();
    const own = openStore(join(dir, 'ingest.db'));
    const api = createApi({ store: own, dataDir: dir, version: 't', transport: 'http', background: false });
    const root = tmp.make();
    writeTree(root, Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`n${i}.md`, `# Note ${i}\n\nbody ${i}\n`])));
    let closing: Promise<void> | null = null;
    api.events.subscribe((e) => {
      if (e.name === 'ingest.progress' && e.payload.phase === 'index') closing ??= api.close();
    });
    let settled = false;
    const ingest = api.dispatch('library.ingest', { paths: [root] }).finally(() => (settled = true));
    try {
      await expect.poll(() => closing !== null).toBe(true);
      await closing;
      expect(settled).toBe(true);
      const r = await ingest;
      expect(r.ok).toBe(true);
      const files = (r as { ok: true; value: { files: number } }).value.files;
      expect(files).toBeGreaterThan(0);
      expect(files).toBeLessThan(200);
      expect(await api.dispatch('library.rescan', {})).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    } finally {
      await closing;
      own.close();
    }
  });
});
