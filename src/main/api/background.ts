import type { Database } from 'better-sqlite3';
import { tryOpenEmbedder } from '../core/embed/embedder.ts';
import { startMaintenanceTimer } from '../core/memory/index.ts';
import { backfillVectors, configuredModelId } from '../core/vectors/index.ts';
import type { ApiEvent } from '../../shared/api/events.ts';

export interface BackgroundDeps {
  db: Database;
  vecLoaded: boolean;
  modelDirs: readonly string[];
  emit: (event: ApiEvent) => void;
  /** The embedding worker's entry; the desktop bundle passes its own, plain Node uses the source file. */
  embedWorkerUrl?: URL;
  now?: () => Date;
  onError?: (what: string, err: unknown) => void;
  /** Tests turn the daily lifecycle timer off to keep the clock out of their way. */
  maintenance?: boolean;
  /** An embedding run asked for (library.embed) is going: this one leaves the work to it. */
  embeddingElsewhere?: () => boolean;
}

/**
 * Work the app does on its own: embedding chunks that lack vectors after each ingest (in a worker thread, so the
 * UI and the API stay responsive), and the memory lifecycle rules once a day. Runs coalesce: an ingest that
 * lands while an embedding run is busy schedules exactly one more run.
 */
export function createBackgroundJobs(deps: BackgroundDeps) {
  let running: Promise<void> | null = null;
  let again = false;
  const abort = new AbortController();
  const stopMaintenance = deps.maintenance === false
    ? () => {}
    : startMaintenanceTimer({ db: deps.db, now: deps.now, onError: (err) => deps.onError?.('maintenance', err) });

  async function embedOnce(): Promise<void> {
    if (!deps.vecLoaded || deps.modelDirs.length === 0 || deps.embeddingElsewhere?.()) return;
    const modelId = configuredModelId(deps.db);
    const opened = await tryOpenEmbedder({ modelId, dirs: deps.modelDirs }, {}, deps.embedWorkerUrl ? { workerUrl: deps.embedWorkerUrl } : {});
    if (!opened.ok) {
      deps.emit({ name: 'embed.progress', payload: { state: 'off', modelId, done: 0, total: 0, reason: opened.reason } });
      return;
    }
    try {
      const report = await backfillVectors(deps.db, opened.embedder, {
        signal: abort.signal,
        onProgress: (p) => deps.emit({ name: 'embed.progress', payload: { state: 'running', modelId: p.modelId, done: p.done, total: p.total } }),
      });
      deps.emit({ name: 'embed.progress', payload: { state: 'done', modelId: report.modelId, done: report.done, total: report.total } });
    } finally {
      await opened.embedder.close();
    }
  }

  function embedPending(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await embedOnce();
        } catch (err) {
          deps.onError?.('embedding', err);
          deps.emit({ name: 'embed.progress', payload: { state: 'failed', modelId: configuredModelId(deps.db), done: 0, total: 0, reason: (err as Error).message } });
        }
      } while (again && !abort.signal.aborted);
    })().finally(() => {
      running = null;
    });
    return running;
  }

  return {
    embedPending,
    /** Whether a background embedding run is going (library.embed waits for it instead of racing it). */
    embedding: () => running !== null,
    /** Stops the timer and asks a running embedding job to stop after its current batch (it resumes next time). */
    async close(): Promise<void> {
      stopMaintenance();
      abort.abort();
      await running;
    },
  };
}

export type BackgroundJobs = ReturnType<typeof createBackgroundJobs>;
