// Worker-thread entry, one per lane: loads the model once, then embeds jobs one at a time, streaming each finished
// group back so the caller can report progress and the main thread never runs tokenization or inference.
import { parentPort, workerData } from 'node:worker_threads';
import { embedEach, loadEmbedCore } from './embed-core.ts';
import { messageOf } from '../../../shared/message-of.ts';
import type { EmbedCore } from './embed-core.ts';
import type { FromWorker, ToWorker, WorkerInit } from './worker-protocol.ts';

const port = parentPort;
if (!port) throw new Error('embed-worker.ts must run in a worker thread');
const send = (msg: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(msg, transfer);

// No top-level await: the desktop build bundles this entry as CommonJS.
async function main(): Promise<void> {
  let core: EmbedCore;
  try {
    core = await loadEmbedCore(workerData as WorkerInit);
    send({ type: 'ready', dims: core.dims });
  } catch (err) {
    send({ type: 'failed', message: messageOf(err) });
    return;
  }
  // Requests are serialized: the embedder sends a lane one job at a time anyway.
  let queue = Promise.resolve();
  port!.on('message', (msg: ToWorker) => {
    queue = queue.then(async () => {
      try {
        await embedEach(core, msg.texts, msg.batchSize, (indices, vectors) => {
          send({ type: 'batch', id: msg.id, indices, vectors }, [vectors.buffer as ArrayBuffer]);
        });
        send({ type: 'done', id: msg.id });
      } catch (err) {
        send({ type: 'error', id: msg.id, message: messageOf(err) });
      }
    });
  });
}

void main();
