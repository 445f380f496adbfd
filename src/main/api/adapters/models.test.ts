// The Models panel's API end to end: the real API over a real store, a download from a local server in the Hugging
// Face layout (the tiny model), then background embedding in the worker, until hybrid search runs.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, ModelsView } from '../../../shared/api/index.ts';
import { startModelServer, type ModelServer } from '../../core/embed/testing/model-server.ts';
import { buildTinyModel } from '../../core/embed/testing/tiny-model.ts';
import { openStore, type Store } from '../../core/store/index.ts';
import { tempDirs, writeTree } from '../../core/testing/tmp.ts';
import { createApi, type Api } from '../index.ts';

const tmp = tempDirs('cp-models-api-');
const MODEL = 'Xenova/bge-small-en-v1.5';
let server: ModelServer;
let store: Store;
let api: Api;
let downloadDir: string;
const events: ApiEvent[] = [];

const call = async <T>(method: string, input: unknown): Promise<T> => {
  const r = await api.dispatch(method, input);
  if (!r.ok) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
  return r.value as T;
};
const waitFor = async (pred: () => boolean, what: string) => {
  for (let i = 0; i < 600 && !pred(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!pred()) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events.slice(-5))}`);
};

beforeAll(async () => {
  const tiny = await buildTinyModel({ root: tmp.make(), modelId: MODEL, dim: 32 });
  server = await startModelServer({ modelId: MODEL, modelDir: tiny.modelDir });
  store = openStore(join(tmp.make(), 'm.db'));
  downloadDir = join(tmp.make(), 'models');
  api = createApi({ store, dataDir: tmp.make(), version: 't', transport: 'http', modelDirs: [downloadDir], modelDownloads: { dir: downloadDir, baseUrl: server.baseUrl } });
  api.events.subscribe((e) => void events.push(e));
  const root = tmp.make();
  writeTree(root, { 'volcano.md': '# Volcano\n\nmagma and ash rise from the crater\n', 'ocean.md': '# Ocean\n\ncoral reefs and currents\n' });
  await call('library.ingest', { paths: [root] });
});

afterAll(async () => {
  await api.close();
  store.close();
  await server.close();
  tmp.cleanup();
});

describe('models.* API', () => {
  it('lists the registered models, none installed, and says why semantic search is off', async () => {
    const v = await call<ModelsView>('models.list', {});
    expect(v.models.map((m) => m.id)).toEqual(['Xenova/all-MiniLM-L6-v2', 'Xenova/bge-small-en-v1.5', 'Xenova/gte-small', 'Xenova/e5-small-v2']);
    expect(v.models.every((m) => !m.installed)).toBe(true);
    expect(v.semantic.on).toBe(false);
    expect(v.semantic.reason).toMatch(/semantic search off/);
    expect(v).toMatchObject({ downloadDir, baseUrl: server.baseUrl });
  });

  it('refuses a model it does not know, by field', async () => {
    expect(await api.dispatch('models.download', { modelId: 'evil/model' })).toMatchObject({ ok: false, error: { code: 'invalid_input', issues: [{ field: 'modelId' }] } });
    expect(await api.dispatch('models.download', { modelId: '../../etc' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('a cancelled download says so and leaves nothing installed', async () => {
    server.behaviour = { slowMs: 20 };
    expect(await call('models.download', { modelId: MODEL })).toEqual({ started: true });
    await waitFor(() => events.some((e) => e.name === 'models.progress' && e.payload.file?.endsWith('.onnx') && e.payload.bytes > 0), 'the ONNX file to start');
    expect(await call('models.cancel', { modelId: MODEL })).toEqual({ cancelled: true });
    await waitFor(() => events.some((e) => e.name === 'models.progress' && e.payload.state === 'cancelled'), 'cancelled');
    const v = await call<ModelsView>('models.list', {});
    expect(v.models.find((m) => m.id === MODEL)).toMatchObject({ installed: false, download: { state: 'cancelled' } });
  });

  it('downloads with progress, resumes, then embeds in the background until hybrid search runs', async () => {
    server.behaviour = {};
    server.ranges.length = 0;
    events.length = 0;
    expect(await call('models.download', { modelId: MODEL })).toEqual({ started: true });
    await waitFor(() => events.some((e) => e.name === 'embed.progress' && e.payload.state === 'done'), 'embedding to finish');
    expect(server.ranges).toHaveLength(1);
    const states = events.filter((e) => e.name === 'models.progress').map((e) => (e.name === 'models.progress' ? e.payload.state : ''));
    expect(states).toContain('downloading');
    expect(states.at(-1)).toBe('done');
    const v = await call<ModelsView>('models.list', {});
    expect(v.configured).toBe(MODEL);
    expect(v.models.find((m) => m.id === MODEL)).toMatchObject({ installed: true, dims: 32 });
    expect(v.semantic).toMatchObject({ on: true, active: { modelId: MODEL, dims: 32, vectors: 2, chunks: 2 } });
    const hybrid = await call<{ mode: string; hits: unknown[] }>('search.query', { query: 'magma crater', mode: 'hybrid' });
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.hits.length).toBeGreaterThan(0);
  });

  it('models.use refuses a model that is not installed', async () => {
    expect(await api.dispatch('models.use', { modelId: 'Xenova/gte-small' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('a mirror answering random bytes with no digest replaces nothing and changes no setting; confirming installs the real files marked unverified', async () => {
    const before = await call<ModelsView>('models.list', {});
    events.length = 0;
    server.behaviour = { garbage: true };
    expect(await call('models.download', { modelId: MODEL })).toEqual({ started: true });
    await waitFor(() => events.some((e) => e.name === 'models.progress' && e.payload.state === 'failed'), 'the refusal');
    const v = await call<ModelsView>('models.list', {});
    expect(v.configured).toBe(before.configured);
    expect(v.models.find((m) => m.id === MODEL)).toMatchObject({ installed: true, download: { state: 'failed', needsConfirmation: 'unverified', error: expect.stringMatching(/no digest/) } });
    expect(v.models.find((m) => m.id === MODEL)!.unverified).toBeUndefined();

    events.length = 0;
    server.behaviour = { noDigest: true };
    expect(await call('models.download', { modelId: MODEL, allowUnverified: true })).toEqual({ started: true });
    await waitFor(() => events.some((e) => e.name === 'models.progress' && ['done', 'failed'].includes(e.payload.state)), 'the unverified install');
    expect((await call<ModelsView>('models.list', {})).models.find((m) => m.id === MODEL)).toMatchObject({ installed: true, unverified: true, download: { state: 'done' } });
    server.behaviour = {};
  });
});

