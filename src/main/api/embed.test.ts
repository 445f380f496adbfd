// library.embed over the handler map with a tiny real model: progress events to completion, a Ctrl-C (interrupt)
// that stops after a batch and resumes, one run at a time, a model switch recorded first, and the reasons it is off.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../shared/api/events.ts';
import { ingestPaths } from '../core/ingest/index.ts';
import { openStore, type Store } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { configuredModelId } from '../core/vectors/index.ts';
import { tinyModels, type TinyModelDir } from '../core/vectors/testing/tiny-embedder.ts';
import { createApi, type Api } from './index.ts';

const tmp = tempDirs('cp-api-embed-');
let models: TinyModelDir;
let store: Store;
let api: Api;
const events: ApiEvent[] = [];

beforeAll(async () => {
  models = await tinyModels(['Xenova/all-MiniLM-L6-v2', 'Xenova/gte-small']);
  const root = tmp.make();
  writeTree(root, Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`n${i}.md`, `# Note ${i}\n\n## A\n\nlions ${i}\n\n## B\n\nwhales ${i}\n`])));
  store = openStore(join(tmp.make(), 'e.db'));
  await ingestPaths(store.db, [root]);
  api = createApi({ store, dataDir: tmp.make(), version: 't', transport: 'cli', background: false, watch: false, modelDirs: [models.root], embedInProcess: true });
  api.events.subscribe((e) => void events.push(e));
});
afterAll(async () => {
  await api.close();
  store.close();
  await models.cleanup();
  tmp.cleanup();
});

const progress = () => events.filter((e) => e.name === 'embed.progress').map((e) => e.payload as { state: string; done: number; total: number; modelId: string });

describe('library.embed', () => {
  it('embeds every chunk a batch at a time, with progress to the end', async () => {
    const r = await api.dispatch('library.embed', { batch: 40 });
    expect(r).toMatchObject({ ok: true, value: { modelId: 'Xenova/all-MiniLM-L6-v2', active: true, aborted: false } });
    const total = (r as { value: { total: number } }).value.total;
    expect(total).toBeGreaterThan(80);
    const p = progress();
    expect(p.filter((e) => e.state === 'running').length).toBeGreaterThanOrEqual(Math.ceil(total / 40));
    expect(p.at(-1)).toEqual({ state: 'done', modelId: 'Xenova/all-MiniLM-L6-v2', done: total, total });
  });

  it('a new model is recorded before embedding; an interrupt stops after the batch and a later run resumes', async () => {
    events.length = 0;
    const off = api.events.subscribe((e) => {
      if (e.name === 'embed.progress' && e.payload.state === 'running') api.interrupt();
    });
    const first = await api.dispatch('library.embed', { modelId: 'Xenova/gte-small', batch: 10 });
    off();
    expect(first).toMatchObject({ ok: true, value: { modelId: 'Xenova/gte-small', aborted: true, active: false, done: 10 } });
    expect(configuredModelId(store.db)).toBe('Xenova/gte-small');
    const again = await api.dispatch('library.embed', {});
    expect(again).toMatchObject({ ok: true, value: { modelId: 'Xenova/gte-small', aborted: false, active: true, swapped: true } });
  });

  it('runs one at a time', async () => {
    const [a, b] = await Promise.all([api.dispatch('library.embed', { modelId: 'Xenova/all-MiniLM-L6-v2' }), api.dispatch('library.embed', {})]);
    expect(a).toMatchObject({ ok: true });
    expect(b).toMatchObject({ ok: false, error: { code: 'busy' } });
  });

  it('says why it is off: no model here, or no vector extension', async () => {
    events.length = 0;
    const bare = createApi({ store, dataDir: tmp.make(), version: 't', transport: 'cli', background: false, watch: false, modelDirs: [tmp.make()], embedInProcess: true });
    bare.events.subscribe((e) => void events.push(e));
    expect(await bare.dispatch('library.embed', {})).toMatchObject({ ok: false, error: { code: 'unavailable', message: expect.stringMatching(/no model at/) } });
    expect(progress()).toMatchObject([{ state: 'off' }]);
    await bare.close();
    const noVec = openStore(join(tmp.make(), 'n.db'), { loadVec: false });
    const plain = createApi({ store: noVec, dataDir: tmp.make(), version: 't', transport: 'cli', background: false, watch: false, modelDirs: [models.root] });
    expect(await plain.dispatch('library.embed', {})).toMatchObject({ ok: false, error: { code: 'unavailable', message: expect.stringMatching(/^semantic search off/) } });
    await plain.close();
    noVec.close();
  });
});
