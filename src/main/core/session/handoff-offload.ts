// A large handoff is built in a worker thread (handoff-worker.ts) so that the process asking for it (the MCP server,
// serve, the app) keeps answering meanwhile: on a 10^6-turn transcript the build takes seconds, and a server's event
// loop must not stop for that long. The caller stores the result on its own connection (storeHandoff: milliseconds).
// Small transcripts are built in place: a worker's start-up costs more than their whole build.
import { Worker } from 'node:worker_threads';
import type { TranscriptRead } from '../../../shared/api/sessions-contract.ts';
import type { RedactionEvent } from '../redact/index.ts';
import { TranscriptError } from '../transcripts/index.ts';
import type { HandoffRequest, StorableHandoff } from './handoff.ts';

/** Transcripts at least this long (characters) are built off the event loop. */
export const OFFLOAD_MIN_CHARS = 256 * 1024;

const DEFAULT_WORKER_URL = new URL('./handoff-worker.ts', import.meta.url);

export interface OffloadRequest {
  /** The store to read decisions, issues and ownership from (read-only), or null for none. */
  dbPath: string | null;
  transcript: { name: string; text: string } | null;
  request: Omit<HandoffRequest, 'transcript'>;
  /** ISO time the package is built at. */
  now: string;
}

export type OffloadResult =
  | { ok: true; built: StorableHandoff; transcript: TranscriptRead | null; events: RedactionEvent[] }
  | { ok: false; name: string; message: string };

/** The worker could not run at all (its module is missing from this build): the caller builds in place. */
export class OffloadUnavailable extends Error {}

/**
 * Builds in a worker and resolves with what storeHandoff needs; a failure of the build (a bad transcript) rejects
 * with the same error class the in-place build throws. Redaction events are replayed into `redactionLog`.
 */
export function buildHandoffOffThread(job: OffloadRequest, opts: { redactionLog?: ((e: RedactionEvent) => void) | null; workerUrl?: URL } = {}): Promise<{ built: StorableHandoff; transcript: TranscriptRead | null }> {
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      worker = new Worker(opts.workerUrl ?? DEFAULT_WORKER_URL, { workerData: job });
    } catch (err) {
      reject(new OffloadUnavailable((err as Error).message));
      return;
    }
    let settled = false;
    worker.once('message', (r: OffloadResult) => {
      settled = true;
      void worker.terminate();
      if (!r.ok) {
        const err = r.name === 'TranscriptError' ? new TranscriptError(r.message) : new Error(r.message);
        reject(err);
        return;
      }
      if (opts.redactionLog) for (const e of r.events) opts.redactionLog(e);
      resolve({ built: r.built, transcript: r.transcript });
    });
    worker.once('error', (err) => {
      if (settled) return;
      settled = true;
      // A module that cannot load is this build's limit, not the request's: the caller builds in place.
      const code = (err as NodeJS.ErrnoException).code ?? '';
      reject(/MODULE_NOT_FOUND|ERR_UNKNOWN_FILE_EXTENSION|ERR_UNSUPPORTED/.test(code) ? new OffloadUnavailable(err.message) : err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the handoff worker exited (${code}) without a result`));
    });
  });
}
