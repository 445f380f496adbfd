// library.embed: one embedding run on request (the CLI's `contextpack embed`), beside the app's background runs.
// Progress goes out as embed.progress events; a run stops after its current batch when the API is interrupted or
// closed, and a later run resumes where it stopped (progress lives in the database).
import type { Store } from '../core/store/index.ts';
import type { WorkerDeps } from '../core/embed/embedder.ts';
import { backfillVectors, configuredModelId, setConfiguredModelId } from '../core/vectors/index.ts';
import type { ApiOutput, ApiParsedInput } from '../../shared/api/index.ts';
import type { ApiEvent } from '../../shared/api/events.ts';
import { ApiFailure, unavailable } from './failure.ts';

export interface EmbedDeps {
  store: Store;
  modelDirs: readonly string[];
  emit: (e: ApiEvent) => void;
  /** The CLI embeds in its own thread (it is a script); the app in the embedding worker. */
  inProcess?: boolean;
  embedWorker?: WorkerDeps;
  /** The app's background embedding is going: two runs over one space would embed the same chunks twice. */
  embeddingElsewhere?: () => boolean;
}

export function createEmbedRuns(deps: EmbedDeps) {
  const running = new Set<AbortController>();

  async function embed(input: ApiParsedInput<'library.embed'>): Promise<ApiOutput<'library.embed'>> {
    const { store } = deps;
    if (!store.vec.loaded) throw unavailable(`semantic search off: ${store.vec.reason}`);
    if (running.size > 0 || deps.embeddingElsewhere?.()) throw new ApiFailure('busy', 'an embedding run is already going; wait for it to finish');
    const modelId = input.modelId ?? configuredModelId(store.db);
    const stop = new AbortController();
    running.add(stop);
    try {
      // Loaded here, not at the top: every other method would otherwise pay for loading transformers.js.
      const { tryOpenEmbedder } = await import('../core/embed/embedder.ts');
      const opened = await tryOpenEmbedder({ modelId, dirs: deps.modelDirs }, { inProcess: deps.inProcess === true }, deps.embedWorker ?? {});
      if (!opened.ok) {
        deps.emit({ name: 'embed.progress', payload: { state: 'off', modelId, done: 0, total: 0, reason: opened.reason } });
        throw unavailable(opened.reason);
      }
      try {
        // Recorded before embedding starts, so an interrupted switch resumes with the new model.
        if (input.modelId !== undefined) setConfiguredModelId(store.db, modelId);
        const report = await backfillVectors(store.db, opened.embedder, {
          batchSize: input.batch,
          signal: stop.signal,
          onProgress: (p) => deps.emit({ name: 'embed.progress', payload: { state: 'running', modelId: p.modelId, done: p.done, total: p.total } }),
        });
        deps.emit({ name: 'embed.progress', payload: { state: 'done', modelId: report.modelId, done: report.done, total: report.total } });
        return report;
      } finally {
        await opened.embedder.close();
      }
    } finally {
      running.delete(stop);
    }
  }

  return {
    embed,
    running: () => running.size > 0,
    /** Asks running runs to stop after their current batch; each answers with what it did (aborted). */
    interrupt(): void {
      for (const r of running) r.abort();
    },
  };
}

export type EmbedRuns = ReturnType<typeof createEmbedRuns>;
