import { modelSearchDirs, REPO_RESOURCES_MODELS_DIR } from '../../core/embed/model-dirs.ts';
import { openStore } from '../../core/store/index.ts';
import { backfillVectors, configuredModelId, setConfiguredModelId, type BackfillReport } from '../../core/vectors/index.ts';
import { CliError, intOption, printJson, type Command } from '../command.ts';

export const embedCommand: Command = {
  name: 'embed',
  summary: 'Embed chunks that lack a vector (resumable); --model switches model and re-embeds',
  usage: 'contextpack embed [--model ID] [--batch N] [--progress] [--json] [--db FILE]',
  options: { model: { type: 'string' }, batch: { type: 'string' }, progress: { type: 'boolean', default: false } },
  async run(ctx) {
    const batchSize = intOption(ctx, 'batch', 64);
    const store = openStore(ctx.dbPath);
    try {
      if (!store.vec.loaded) throw new CliError(`embed: semantic search off: ${store.vec.reason}`);
      const modelId = typeof ctx.values.model === 'string' ? ctx.values.model : configuredModelId(store.db);
      const dirs = modelSearchDirs({ resourcesModelsDir: REPO_RESOURCES_MODELS_DIR, env: ctx.io.env });
      // Loaded here, not at the top: every other command would otherwise pay for loading transformers.js.
      const { tryOpenEmbedder } = await import('../../core/embed/embedder.ts');
      // The CLI is a script, so the model runs in this process; the app runs the same job with the worker embedder.
      const opened = await tryOpenEmbedder({ modelId, dirs }, { inProcess: true });
      if (!opened.ok) throw new CliError(`embed: ${opened.reason}`, 1);
      if (typeof ctx.values.model === 'string') setConfiguredModelId(store.db, modelId);
      const stop = new AbortController();
      const onSigint = () => stop.abort();
      process.once('SIGINT', onSigint);
      let report: BackfillReport;
      try {
        report = await backfillVectors(store.db, opened.embedder, {
          batchSize,
          signal: stop.signal,
          onProgress: ctx.values.progress === true ? (p) => ctx.io.stderr(`\rembedding ${p.done}/${p.total}`) : undefined,
        });
      } finally {
        process.off('SIGINT', onSigint);
        await opened.embedder.close();
      }
      if (ctx.values.progress === true) ctx.io.stderr('\n');
      if (ctx.json) printJson(ctx, report);
      else ctx.io.stdout(formatBackfill(report));
      return report.aborted ? 130 : 0;
    } finally {
      store.close();
    }
  },
};

export function formatBackfill(r: BackfillReport): string {
  const state = r.active
    ? r.swapped ? 'now active (older vectors dropped)' : 'active'
    : r.aborted ? 'interrupted; run again to resume' : `not active yet: ${r.total - r.done} chunks missing${r.otherVersion ? `, ${r.otherVersion} chunks of another chunker version (run ingest --rescan)` : ''}`;
  return `${r.modelId} (${r.dims}-d, chunker v${r.chunkerVersion}): embedded ${r.embedded}, ${r.done}/${r.total} chunks have vectors in ${(r.durationMs / 1000).toFixed(2)} s — ${state}\n`;
}
