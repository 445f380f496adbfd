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
  // Texts per job and per progress report; every text still runs alone (embed-core.ts embedEach).
  batchSize?: number;
  // Worker threads embedding side by side, each with its own session; default: defaultLanes().
  lanes?: number;
  // onnxruntime intra-op threads per lane; leave unset to share the cores among the lanes.
  threads?: number;
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
 * One worker per core, up to four, each running a one-thread session. A text runs alone (no padding, no batch to
 * share), and one text's matrices are too small to split well across threads: two one-thread lanes embedded
 * SciFact chunks 1.4x faster than one two-thread session (docs/semantic-search.md). Sessions in one thread do not
 * overlap (onnxruntime-node runs them on the calling thread), hence workers. Each lane is another copy of the model
 * (~175 MB with int8), so past four cores a lane takes more threads instead.
 */
export function defaultLanes(cores = availableParallelism()): number {
  return Math.max(1, Math.min(4, cores));
}

function initFor(model: ModelFound, threads: number | undefined): CoreOptions {
  return { root: model.root, spec: model.spec, externalData: model.externalData.length, ...(threads ? { threads } : {}) };
}

function checkDims(model: ModelFound, dims: number): void {
  if (dims !== model.dims) throw new Error(`model at ${model.dir} reports ${dims} dimensions, probe said ${model.dims}`);
}

// Same computation in the calling thread: for tests, scripts and benchmarks, never for the Electron main process.
export async function openInProcessEmbedder(model: ModelFound, options: EmbedderOptions = {}): Promise<Embedder> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const { embedEach, loadEmbedCore } = await import('./embed-core.ts');
  // One session in the caller's thread, on every core unless told otherwise.
  const core = await loadEmbedCore(initFor(model, options.threads));
  checkDims(model, core.dims);
  return wrap(model, core.dims, {
    embed: async (texts, onBatch) => {
      const out = new Array<Float32Array>(texts.length);
      await embedEach(core, texts, batchSize, (indices, flat) => {
        indices.forEach((textIndex, row) => (out[textIndex] = flat.slice(row * core.dims, (row + 1) * core.dims)));
        onBatch(indices.length);
      });
      return out;
    },
    close: () => core.dispose(),
  });
}

type Pending = {
  id: number;
  texts: string[];
  out: Float32Array[];
  // Texts handed to lanes so far, and those embedded.
  handed: number;
  done: number;
  onBatch: (done: number) => void;
  resolve: (v: Float32Array[]) => void;
  reject: (e: Error) => void;
};

// A slice of one request for one lane: its texts and where they sit in the request.
type Job = { request: number; offset: number; texts: string[] };

type Lane = { worker: Worker; job?: Job };

export async function openEmbedder(model: ModelFound, options: EmbedderOptions = {}, deps: WorkerDeps = {}): Promise<Embedder> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const laneCount = Math.max(1, Math.floor(options.lanes ?? defaultLanes()));
  const init = initFor(model, options.threads ?? Math.max(1, Math.floor(availableParallelism() / laneCount)));
  const url = deps.workerUrl ?? DEFAULT_WORKER_URL;
  const spawn = (): Worker => (deps.spawnWorker ? deps.spawnWorker(url, init) : new Worker(url, { workerData: init }));
  const workers: Worker[] = [];
  let dims: number;
  try {
    // The first lane alone: its failure (no model, say) is reported once, before more copies load; then the rest.
    workers.push(spawn());
    dims = await laneReady(workers[0]!, url);
    checkDims(model, dims);
    const rest = Array.from({ length: laneCount - 1 }, () => spawn());
    workers.push(...rest);
    await Promise.all(rest.map((w) => laneReady(w, url)));
  } catch (err) {
    await Promise.all(workers.map((w) => w.terminate()));
    throw err;
  }

  const pending = new Map<number, Pending>();
  // Requests with texts not yet handed out, first served first; a query goes to the front.
  const queue: Pending[] = [];
  const lanes: Lane[] = workers.map((worker) => ({ worker }));
  let nextId = 1;
  let dead: Error | undefined;
  const failAll = (err: Error): void => {
    dead ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    queue.length = 0;
  };
  const dispatch = (): void => {
    for (const lane of lanes) {
      while (queue[0] && (queue[0].handed === queue[0].texts.length || !pending.has(queue[0].id))) queue.shift();
      const p = queue[0];
      if (lane.job || !p) continue;
      // Jobs shrink towards the end of a request (half of what is left per lane, at most batchSize), so the lanes
      // finish it together instead of one idling while another runs a last full job.
      const size = Math.max(1, Math.min(batchSize, Math.ceil((p.texts.length - p.handed) / (2 * laneCount))));
      const job = { request: p.id, offset: p.handed, texts: p.texts.slice(p.handed, p.handed + size) };
      p.handed += job.texts.length;
      lane.job = job;
      const msg: ToWorker = { type: 'embed', id: job.request, texts: job.texts, batchSize };
      lane.worker.postMessage(msg);
    }
  };
  for (const lane of lanes) {
    lane.worker.on('message', (msg: FromWorker) => {
      if (msg.type !== 'batch' && msg.type !== 'done' && msg.type !== 'error') return;
      const job = lane.job;
      const p = pending.get(msg.id);
      if (msg.type !== 'batch') lane.job = undefined;
      if (p && job && job.request === msg.id) {
        if (msg.type === 'batch') {
          msg.indices.forEach((i, row) => (p.out[job.offset + i] = msg.vectors.slice(row * dims, (row + 1) * dims)));
          p.done += msg.indices.length;
          p.onBatch(msg.indices.length);
        } else if (msg.type === 'error') {
          pending.delete(msg.id);
          p.reject(new Error(`embedding with ${model.modelId} failed: ${msg.message}`));
        } else if (p.done === p.texts.length) {
          pending.delete(msg.id);
          p.resolve(p.out);
        }
      }
      if (msg.type !== 'batch') dispatch();
    });
    lane.worker.on('error', (err) => failAll(new Error(`embedding worker crashed: ${err.message}`)));
    lane.worker.on('exit', (code) => failAll(new Error(`embedding worker exited (code ${code})`)));
  }

  return wrap(model, dims!, {
    embed: (texts, onBatch) => {
      if (dead) return Promise.reject(dead);
      const id = nextId++;
      return new Promise<Float32Array[]>((resolve, reject) => {
        const p: Pending = { id, texts, out: new Array<Float32Array>(texts.length), handed: 0, done: 0, onBatch, resolve, reject };
        pending.set(id, p);
        // A one-text request is a query someone is waiting on: it goes ahead of a backfill's remaining texts.
        if (texts.length === 1) queue.unshift(p);
        else queue.push(p);
        dispatch();
      });
    },
    close: async () => {
      failAll(new Error('embedder closed'));
      await Promise.all(workers.map((w) => w.terminate()));
    },
  });
}

/** Resolves with the model's dimensions once the lane's worker has loaded it; rejects with why it could not. */
function laneReady(worker: Worker, url: URL | string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const fail = (err: Error): void => {
      cleanup();
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
