// The Embedder the rest of ContextPack uses: passages and queries in, unit vectors out, with the model's prefixes
// applied here so callers cannot forget them. The default runs transformers.js in a worker thread.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
// embed-core (transformers.js, onnxruntime, sharp) is imported only where inference runs: in the worker, or in
// process on request. The Electron main process loads this file and must never load those.
import type { CoreOptions } from './embed-core.ts';
import { withPrefix } from './models.ts';
import type { ModelSpec } from './models.ts';
import { probeModel } from './probe.ts';
import type { ModelFound, ProbeOptions } from './probe.ts';
import type { FromWorker, ToWorker, WorkerInit } from './worker-protocol.ts';
import { messageOf } from '../../../shared/message-of.ts';

export type EmbedProgress = { done: number; total: number };

export type Embedder = {
  readonly modelId: string;
  readonly dims: number;
  // Changes whenever the vectors could change (weights, tokenizer, pooling, prefixes); store it with each vector.
  readonly fingerprint: string;
  readonly spec: ModelSpec;
  embedPassages(texts: readonly string[], options?: { onProgress?: (p: EmbedProgress) => void }): Promise<Float32Array[]>;
  embedQuery(text: string): Promise<Float32Array>;
  close(): Promise<void>;
};

export type EmbedderOptions = {
  batchSize?: number;
  // onnxruntime intra-op threads per session; leave unset to share every core among the sessions.
  threads?: number;
  // Sessions embedding batches side by side; default 1 (defaultSessions says why).
  sessions?: number;
};

export type WorkerDeps = {
  // The Electron bundle emits the worker as its own file and passes its location here.
  workerUrl?: URL | string;
  spawnWorker?: (url: URL | string, init: WorkerInit) => Worker;
};

export const DEFAULT_BATCH_SIZE = 32;
const DEFAULT_WORKER_URL = new URL('./embed-worker.ts', import.meta.url);

// Raw texts in (already prefixed), vectors out in input order; the part that differs between worker and in-process.
type Backend = {
  embed(texts: string[], onBatch: (done: number) => void): Promise<Float32Array[]>;
  close(): Promise<void>;
};

function wrap(model: ModelFound, dims: number, backend: Backend): Embedder {
  let closed = false;
  const run = async (texts: string[], onBatch: (done: number) => void): Promise<Float32Array[]> => {
    if (closed) throw new Error(`embedder for ${model.modelId} is closed`);
    return texts.length === 0 ? [] : backend.embed(texts, onBatch);
  };
  return {
    modelId: model.modelId,
    dims,
    fingerprint: model.fingerprint,
    spec: model.spec,
    embedPassages: (texts, options) => {
      let done = 0;
      return run(
        texts.map((t) => withPrefix(model.spec, 'passage', t)),
        (n) => {
          done += n;
          options?.onProgress?.({ done, total: texts.length });
        },
      );
    },
    embedQuery: async (text) => (await run([withPrefix(model.spec, 'query', text)], () => {}))[0]!,
    close: async () => {
      if (closed) return;
      closed = true;
      await backend.close();
    },
  };
}

/**
 * One session using every core. Two one-thread sessions looked better per CPU-second on a loaded machine, but their
 * runs do not overlap through transformers.js: on a quiet 2-core machine they used 1.01 cores and embedded 22.9
 * SciFact abstracts/s, against 1.98 cores and 42.5/s for one two-thread session (docs/semantic-search.md).
 */
export function defaultSessions(): number {
  return 1;
}

function initFor(model: ModelFound, options: EmbedderOptions): CoreOptions {
  const sessions = options.sessions ?? defaultSessions();
  const threads = options.threads ?? (sessions > 1 ? Math.max(1, Math.floor(availableParallelism() / sessions)) : undefined);
  return {
    root: model.root,
    spec: model.spec,
    externalData: model.externalData.length,
    sessions,
    ...(threads ? { threads } : {}),
  };
}

function checkDims(model: ModelFound, dims: number): void {
  if (dims !== model.dims) throw new Error(`model at ${model.dir} reports ${dims} dimensions, probe said ${model.dims}`);
}

// Same computation in the calling thread: for tests, scripts and benchmarks, never for the Electron main process.
export async function openInProcessEmbedder(model: ModelFound, options: EmbedderOptions = {}): Promise<Embedder> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const { embedInBatches, loadEmbedCore } = await import('./embed-core.ts');
  const core = await loadEmbedCore(initFor(model, options));
  checkDims(model, core.dims);
  return wrap(model, core.dims, {
    embed: async (texts, onBatch) => {
      const out = new Array<Float32Array>(texts.length);
      await embedInBatches(core, texts, batchSize, (indices, flat) => {
        indices.forEach((textIndex, row) => (out[textIndex] = flat.slice(row * core.dims, (row + 1) * core.dims)));
        onBatch(indices.length);
      });
      return out;
    },
    close: () => core.dispose(),
  });
}

type Pending = {
  out: Float32Array[];
  onBatch: (done: number) => void;
  resolve: (v: Float32Array[]) => void;
  reject: (e: Error) => void;
};

export async function openEmbedder(model: ModelFound, options: EmbedderOptions = {}, deps: WorkerDeps = {}): Promise<Embedder> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const init = initFor(model, options);
  const url = deps.workerUrl ?? DEFAULT_WORKER_URL;
  const worker = deps.spawnWorker ? deps.spawnWorker(url, init) : new Worker(url, { workerData: init });

  const dims = await new Promise<number>((resolve, reject) => {
    const fail = (err: Error): void => {
      cleanup();
      void worker.terminate();
      reject(err);
    };
    const onMessage = (msg: FromWorker): void => {
      if (msg.type === 'ready') {
        cleanup();
        resolve(msg.dims);
      } else if (msg.type === 'failed') fail(new Error(msg.message));
    };
    const onError = (err: Error): void => fail(new Error(`embedding worker ${String(url)} failed to start: ${err.message}`));
    const onExit = (code: number): void => fail(new Error(`embedding worker ${String(url)} exited (code ${code}) before the model loaded`));
    const cleanup = (): void => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
  try {
    checkDims(model, dims);
  } catch (err) {
    await worker.terminate();
    throw err;
  }

  const pending = new Map<number, Pending>();
  let nextId = 1;
  let dead: Error | undefined;
  const failAll = (err: Error): void => {
    dead ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('message', (msg: FromWorker) => {
    if (msg.type !== 'batch' && msg.type !== 'done' && msg.type !== 'error') return;
    const p = pending.get(msg.id);
    if (!p) return;
    if (msg.type === 'batch') {
      msg.indices.forEach((textIndex, row) => (p.out[textIndex] = msg.vectors.slice(row * dims, (row + 1) * dims)));
      p.onBatch(msg.indices.length);
    } else {
      pending.delete(msg.id);
      if (msg.type === 'done') p.resolve(p.out);
      else p.reject(new Error(`embedding with ${model.modelId} failed: ${msg.message}`));
    }
  });
  worker.on('error', (err) => failAll(new Error(`embedding worker crashed: ${err.message}`)));
  worker.on('exit', (code) => failAll(new Error(`embedding worker exited (code ${code})`)));

  return wrap(model, dims, {
    embed: (texts, onBatch) => {
      if (dead) return Promise.reject(dead);
      const id = nextId++;
      return new Promise<Float32Array[]>((resolve, reject) => {
        pending.set(id, { out: new Array<Float32Array>(texts.length), onBatch, resolve, reject });
        const msg: ToWorker = { type: 'embed', id, texts, batchSize };
        worker.postMessage(msg);
      });
    },
    close: async () => {
      failAll(new Error('embedder closed'));
      await worker.terminate();
    },
  });
}

export type OpenResult = { ok: true; embedder: Embedder } | { ok: false; reason: string };

// Probe + open in one step for ingest and search: any failure becomes the one-line reason that
// `contextpack stats` shows, and the caller carries on BM25-only.
export async function tryOpenEmbedder(
  probe: ProbeOptions,
  options: EmbedderOptions & { inProcess?: boolean } = {},
  deps: WorkerDeps = {},
): Promise<OpenResult> {
  const found = await probeModel(probe);
  if (!found.ok) return { ok: false, reason: found.reason };
  try {
    const embedder = options.inProcess ? await openInProcessEmbedder(found, options) : await openEmbedder(found, options, deps);
    return { ok: true, embedder };
  } catch (err) {
    return { ok: false, reason: `semantic search off: ${messageOf(err)}` };
  }
}
