import { AutoTokenizer, env, pipeline } from '@huggingface/transformers';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbedder, openInProcessEmbedder, tryOpenEmbedder } from './embedder.ts';
import type { EmbedProgress } from './embedder.ts';
import { probeModel } from './probe.ts';
import type { ModelFound } from './probe.ts';
import { buildTinyModel } from './testing/tiny-model.ts';
import type { TinyModel } from './testing/tiny-model.ts';

const DIM = 32;
let root: string;
let minilm: TinyModel;
let e5: TinyModel;
let bge: TinyModel;

async function found(modelId: string, spec = {}): Promise<ModelFound> {
  const probe = await probeModel({ modelId, dirs: [root], spec });
  if (!probe.ok) throw new Error(probe.reason);
  return probe;
}

let tokenizer: Awaited<ReturnType<typeof AutoTokenizer.from_pretrained>>;
const ids = (text: string): number[] => (tokenizer(text, { return_tensor: false }) as unknown as { input_ids: number[] }).input_ids;

// The tiny model's output for token t is word[t] + type[0], so a pooled embedding can be recomputed by hand.
function manual(model: TinyModel, tokenIds: number[], pooling: 'mean' | 'cls'): Float32Array {
  const rows = pooling === 'cls' ? tokenIds.slice(0, 1) : tokenIds;
  const v = new Float32Array(model.dims);
  for (const t of rows) for (let k = 0; k < model.dims; k++) v[k]! += model.wordEmbedding[t * model.dims + k]! + model.typeEmbedding[k]!;
  const norm = Math.hypot(...v.map((x) => x / rows.length));
  return v.map((x) => x / rows.length / norm);
}

function expectClose(a: Float32Array, b: Float32Array, digits = 5): void {
  expect(a.length).toBe(b.length);
  a.forEach((x, i) => expect(x).toBeCloseTo(b[i]!, digits));
}

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cp-embed-'));
  minilm = await buildTinyModel({ root, modelId: 'Xenova/all-MiniLM-L6-v2', dim: DIM });
  e5 = await buildTinyModel({ root, modelId: 'Xenova/e5-small-v2', dim: DIM, seed: 2 });
  bge = await buildTinyModel({ root, modelId: 'Xenova/bge-small-en-v1.5', dim: DIM, seed: 3 });
  env.allowRemoteModels = false;
  env.localModelPath = root;
  tokenizer = await AutoTokenizer.from_pretrained('Xenova/all-MiniLM-L6-v2');
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('in-process embedder on the tiny model', () => {
  it('loads offline through the stock transformers.js feature-extraction pipeline, which agrees with it', async () => {
    env.allowRemoteModels = false;
    env.localModelPath = root;
    const extractor = await pipeline('feature-extraction', 'Xenova/all-MiniLM-L6-v2', { dtype: 'q8' });
    const text = 'Embeddings map words to vectors.';
    const reference = await extractor(text, { pooling: 'mean', normalize: true });
    const embedder = await openInProcessEmbedder(await found('Xenova/all-MiniLM-L6-v2'));
    const [mine] = await embedder.embedPassages([text]);
    expectClose(mine!, reference.data as Float32Array);
    await embedder.close();
    await extractor.dispose();
  });

  it('mean-pools over real tokens and normalizes to unit length', async () => {
    const embedder = await openInProcessEmbedder(await found('Xenova/all-MiniLM-L6-v2'));
    expect(ids('This is an example sentence')).toEqual([101, 2023, 2003, 2019, 2742, 6251, 102]);
    const [v, short] = await embedder.embedPassages(['This is an example sentence', 'example']);
    expectClose(v!, manual(minilm, [101, 2023, 2003, 2019, 2742, 6251, 102], 'mean'));
    // Batched with a longer text, the short one is padded; padding must not leak into its mean.
    expectClose(short!, manual(minilm, ids('example'), 'mean'));
    expect(Math.hypot(...v!)).toBeCloseTo(1, 5);
    await embedder.close();
  });

  it('takes the [CLS] row for bge and prefixes only its queries', async () => {
    const embedder = await openInProcessEmbedder(await found('Xenova/bge-small-en-v1.5'));
    const [p] = await embedder.embedPassages(['sparse retrieval']);
    expectClose(p!, manual(bge, [101], 'cls'));
    const q = await embedder.embedQuery('sparse retrieval');
    expectClose(q, manual(bge, [101], 'cls'));
    expect(embedder.spec.queryPrefix).toBe('Represent this sentence for searching relevant passages: ');
    await embedder.close();
  });

  it('applies the e5 query and passage prefixes', async () => {
    const embedder = await openInProcessEmbedder(await found('Xenova/e5-small-v2'));
    const q = await embedder.embedQuery('how are vectors stored');
    const [p] = await embedder.embedPassages(['how are vectors stored']);
    expectClose(q, manual(e5, ids('query: how are vectors stored'), 'mean'));
    expectClose(p!, manual(e5, ids('passage: how are vectors stored'), 'mean'));
    expect(dot(q, p!)).toBeLessThan(0.999);
    await embedder.close();
  });

  it('gives each text its own vector, in input order, together or one by one, in process or across lanes', async () => {
    // 600 texts span two tokenization windows (512 each); jobs of 4 spread them over three lanes.
    const texts = Array.from({ length: 600 }, (_, i) => `chunk ${i} ` + 'about sqlite vector search '.repeat(i % 4));
    const lanes = await openEmbedder(await found('Xenova/all-MiniLM-L6-v2'), { batchSize: 4, lanes: 3 });
    const single = await openInProcessEmbedder(await found('Xenova/all-MiniLM-L6-v2'), { batchSize: 1 });
    const progress: number[] = [];
    const a = await lanes.embedPassages(texts, { onProgress: (p) => progress.push(p.done) });
    expect(progress.at(-1)).toBe(texts.length);
    const b: Float32Array[] = [];
    for (const t of texts.slice(0, 40)) b.push(...(await single.embedPassages([t])));
    // Bit for bit: a store filled by the app's lanes equals one filled in process, whatever the thread count.
    b.forEach((v, i) => expect([...a[i]!]).toEqual([...v]));
    a.forEach((v, i) => expectClose(v, manual(minilm, ids(texts[i]!), 'mean')));
    await lanes.close();
    await single.close();
  });

  it('serves a query ahead of the queued jobs of a long request', async () => {
    const embedder = await openEmbedder(await found('Xenova/all-MiniLM-L6-v2'), { batchSize: 2, lanes: 1 });
    const texts = Array.from({ length: 400 }, (_, i) => `passage ${i} ` + 'about sqlite vector search '.repeat(8));
    let passagesDone = 0;
    let doneAtQuery = -1;
    const long = embedder.embedPassages(texts, { onProgress: (p) => (passagesDone = p.done) });
    const query = embedder.embedQuery('vector search').then((v) => {
      doneAtQuery = passagesDone;
      return v;
    });
    expect((await query).length).toBe(DIM);
    await long;
    // Behind at most the job the lane was running, not the 200 jobs queued after it.
    expect(doneAtQuery).toBeLessThanOrEqual(4);
    await embedder.close();
  });

  it('truncates long inputs to maxTokens but keeps the closing [SEP]', async () => {
    const embedder = await openInProcessEmbedder(await found('Xenova/all-MiniLM-L6-v2', { maxTokens: 6 }));
    const full = ids('one two three four five six seven eight');
    const [v] = await embedder.embedPassages(['one two three four five six seven eight']);
    expectClose(v!, manual(minilm, [...full.slice(0, 5), 102], 'mean'));
    await embedder.close();
  });

  it('ranks passages sharing words with the query first', async () => {
    const embedder = await openInProcessEmbedder(await found('Xenova/all-MiniLM-L6-v2'));
    const passages = ['the cat sat on the mat', 'quarterly revenue grew in europe', 'compile the rust crate'];
    const vs = await embedder.embedPassages(passages);
    const q = await embedder.embedQuery('revenue in europe');
    const best = vs.map((v) => dot(v, q)).reduce((bi, s, i, all) => (s > all[bi]! ? i : bi), 0);
    expect(best).toBe(1);
    await embedder.close();
  });

  it('returns [] for no passages and refuses work after close', async () => {
    const embedder = await openInProcessEmbedder(await found('Xenova/all-MiniLM-L6-v2'));
    expect(await embedder.embedPassages([])).toEqual([]);
    await embedder.close();
    await expect(embedder.embedQuery('x')).rejects.toThrow(/closed/);
  });
});

describe('worker-thread embedder', () => {
  it('matches the in-process vectors and reports progress per batch', async () => {
    const model = await found('Xenova/all-MiniLM-L6-v2');
    const texts = Array.from({ length: 10 }, (_, i) => `file ${i}: ` + 'index the project files '.repeat(1 + (i % 3)));
    const worker = await openEmbedder(model, { batchSize: 4, lanes: 1 });
    const inProcess = await openInProcessEmbedder(model, { batchSize: 4 });
    const progress: EmbedProgress[] = [];
    const a = await worker.embedPassages(texts, { onProgress: (p) => progress.push(p) });
    const b = await inProcess.embedPassages(texts);
    a.forEach((v, i) => expectClose(v, b[i]!, 6));
    expect(progress).toEqual([
      // Jobs of at most 4, shrinking towards the end so that lanes finish together.
      { done: 4, total: 10 },
      { done: 7, total: 10 },
      { done: 9, total: 10 },
      { done: 10, total: 10 },
    ]);
    expect(worker).toMatchObject({ modelId: 'Xenova/all-MiniLM-L6-v2', dims: DIM, fingerprint: model.fingerprint });
    // Concurrent requests are queued in the worker and each gets its own answer.
    const [q1, q2] = await Promise.all([worker.embedQuery('index'), worker.embedQuery('project')]);
    expectClose(q1, manual(minilm, ids('index'), 'mean'));
    expectClose(q2, manual(minilm, ids('project'), 'mean'));
    await worker.close();
    await inProcess.close();
    await expect(worker.embedPassages(['x'])).rejects.toThrow(/closed/);
  });

  it('keeps the calling thread free while it embeds; the in-process variant does not', async () => {
    await buildTinyModel({ root, modelId: 'test/heavy', dim: 128, layers: 4 });
    const heavy = await found('test/heavy', { pooling: 'mean' });
    const texts = Array.from({ length: 128 }, (_, i) => `passage ${i} ` + 'the worker keeps the event loop free '.repeat(16));
    // The share of the time the calling thread's event loop was busy while 128 passages were embedded.
    const busyWhile = async (embedder: Awaited<ReturnType<typeof openEmbedder>>) => {
      const before = performance.eventLoopUtilization();
      await embedder.embedPassages(texts);
      const { utilization } = performance.eventLoopUtilization(before);
      await embedder.close();
      return utilization;
    };
    const worker = await busyWhile(await openEmbedder(heavy, { batchSize: 128 }));
    const inProcess = await busyWhile(await openInProcessEmbedder(heavy, { batchSize: 128 }));
    expect(worker).toBeLessThan(0.3);
    expect(inProcess).toBeGreaterThan(0.6);
  });

  it('uses an injected worker location, as the Electron bundle does', async () => {
    const urls: string[] = [];
    const { Worker } = await import('node:worker_threads');
    const embedder = await openEmbedder(
      await found('Xenova/all-MiniLM-L6-v2'),
      { lanes: 2 },
      {
        workerUrl: new URL('./embed-worker.ts', import.meta.url),
        spawnWorker: (url, init) => {
          urls.push(String(url));
          return new Worker(url, { workerData: init });
        },
      },
    );
    expect(urls).toEqual(Array(2).fill(new URL('./embed-worker.ts', import.meta.url).href));
    expect((await embedder.embedQuery('x')).length).toBe(DIM);
    await embedder.close();
  });
});

describe('broken models', () => {
  it('names the ONNX path when the model file is corrupt, in process, in the worker, and as a stats reason', async () => {
    const broken = join(root, '..', `${root.split('/').pop()}-broken`);
    await cp(join(root, 'Xenova/all-MiniLM-L6-v2'), join(broken, 'Xenova/all-MiniLM-L6-v2'), { recursive: true });
    const onnxPath = join(broken, 'Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx');
    await writeFile(onnxPath, 'this is not an onnx model');
    try {
      const probe = await probeModel({ dirs: [broken] });
      if (!probe.ok) throw new Error(probe.reason);
      await expect(openInProcessEmbedder(probe)).rejects.toThrow(`cannot load the embedding model Xenova/all-MiniLM-L6-v2 from ${onnxPath}`);
      await expect(openEmbedder(probe)).rejects.toThrow(`cannot load the embedding model Xenova/all-MiniLM-L6-v2 from ${onnxPath}`);
      const result = await tryOpenEmbedder({ dirs: [broken] });
      expect(result).toMatchObject({ ok: false, reason: expect.stringContaining(`semantic search off: cannot load the embedding model Xenova/all-MiniLM-L6-v2 from ${onnxPath}`) });
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });

  it('reports a missing model without starting anything', async () => {
    const result = await tryOpenEmbedder({ dirs: [join(root, 'nowhere')] });
    expect(result).toEqual({ ok: false, reason: `semantic search off: no model at ${join(root, 'nowhere', 'Xenova/all-MiniLM-L6-v2')}; run \`contextpack models fetch\`` });
  });

  it('fails with the path, not a download attempt, when the worker is pointed at a folder without the model', async () => {
    const model = await found('Xenova/all-MiniLM-L6-v2');
    const elsewhere = join(root, 'empty-root');
    await expect(openEmbedder({ ...model, root: elsewhere })).rejects.toThrow(`from ${join(elsewhere, 'Xenova/all-MiniLM-L6-v2')}`);
  });
});
