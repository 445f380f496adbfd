// Messages between an Embedder and its worker thread (embed-worker.ts).
import type { CoreOptions } from './embed-core.ts';

export type WorkerInit = CoreOptions;

// batchSize: texts per progress report; each text still runs alone (embed-core.ts embedEach).
export type ToWorker = { type: 'embed'; id: number; texts: string[]; batchSize: number };

export type FromWorker =
  | { type: 'ready'; dims: number }
  | { type: 'failed'; message: string }
  // One finished batch: the positions of its texts in the request and their vectors, flattened.
  | { type: 'batch'; id: number; indices: number[]; vectors: Float32Array }
  | { type: 'done'; id: number }
  | { type: 'error'; id: number; message: string };
