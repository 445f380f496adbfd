import type { Store } from '../../core/store/index.ts';
import { backfillVectors, configuredModelId, DEFAULT_BACKFILL_BATCH, setConfiguredModelId, type BackfillProgress, type BackfillReport } from '../../core/vectors/index.ts';
import { defaultModelDirs } from '../../paths.ts';
import { CliError, intOption, printJson, withStore, type Command } from '../command.ts';

export const embedCommand: Command = {
  name: 'embed',
  summary: 'Embed chunks that lack a vector (resumable); --model switches model and re-embeds',
  usage: 'contextpack embed [--model ID] [--batch N] [--progress] [--json] [--db FILE]',
  options: { model: { type: 'string' }, batch: { type: 'string' }, progress: { type: 'boolean', default: false } },
  async run(ctx) {
    const batchSize = intOption(ctx, 'batch', DEFAULT_BACKFILL_BATCH);
    return withStore(ctx, async (store) => {
      if (!store.vec.loaded) throw new CliError(`embed: semantic search off: ${store.vec.reason}`);
      const modelId = typeof ctx.values.model === 'string' ? ctx.values.model : configuredModelId(store.db);
      const dirs = defaultModelDirs(ctx.io.env);
      const stop = new AbortController();
      const onSigint = () => stop.abort();
      process.once('SIGINT', onSigint);
      let result: EmbedResult;
      try {
        result = await embedMissing(store, {
          modelId,
          dirs,
          batchSize,
          signal: stop.signal,
          // Recorded before embedding starts, so an interrupted switch resumes with the new model.
          onOpened: typeof ctx.values.model === 'string' ? () => setConfiguredModelId(store.db, modelId) : undefined,
          onProgress: ctx.values.progress === true ? (p) => ctx.io.stderr(`\rembedding ${p.done}/${p.total}`) : undefined,
        });
      } finally {
        process.off('SIGINT', onSigint);
      }
      if (!result.ok) throw new CliError(`embed: ${result.reason}`, 1);
      const report = result.report;
      if (ctx.values.progress === true) ctx.io.stderr('\n');
      if (ctx.json) printJson(ctx, report);
      else ctx.io.stdout(formatBackfill(report));
      return report.aborted ? 130 : 0;
    });
  },
};

export type EmbedResult = { ok: true; report: BackfillReport } | { ok: false; reason: string };

/**
 * Embeds every chunk lacking a vector for the model, in this process (the CLI is a script; the app runs the same
 * job in a worker). A missing or broken model is a reason, not an exception: callers go on BM25-only.
 */
export async function embedMissing(
  store: Store,
  options: {
    modelId: string;
    dirs: string[];
    batchSize?: number;
    signal?: AbortSignal;
    onOpened?: () => void;
    onProgress?: (p: BackfillProgress) => void;
  },
): Promise<EmbedResult> {
  if (!store.vec.loaded) return { ok: false, reason: `semantic search off: ${store.vec.reason}` };
  // Loaded here, not at the top: every other command would otherwise pay for loading transformers.js.
  const { tryOpenEmbedder } = await import('../../core/embed/embedder.ts');
  const opened = await tryOpenEmbedder({ modelId: options.modelId, dirs: options.dirs }, { inProcess: true });
  if (!opened.ok) return { ok: false, reason: opened.reason };
  try {
    options.onOpened?.();
    const report = await backfillVectors(store.db, opened.embedder, { batchSize: options.batchSize, signal: options.signal, onProgress: options.onProgress });
    return { ok: true, report };
  } finally {
    await opened.embedder.close();
  }
}

export function formatBackfill(r: BackfillReport): string {
  const state = r.active
    ? r.swapped ? 'now active (older vectors dropped)' : 'active'
    : r.aborted ? 'interrupted; run again to resume' : `not active yet: ${r.total - r.done} chunks missing${r.otherVersion ? `, ${r.otherVersion} chunks of another chunker version (run ingest --rescan)` : ''}`;
  return `${r.modelId} (${r.dims}-d, chunker v${r.chunkerVersion}): embedded ${r.embedded}, ${r.done}/${r.total} chunks have vectors in ${(r.durationMs / 1000).toFixed(2)} s — ${state}\n`;
}
