import type { EmbedReport } from '../../../shared/api/index.ts';
import { DEFAULT_BACKFILL_BATCH } from '../../core/vectors/backfill.ts';
import { CliError, intOption, printJson, type Command, type CommandContext } from '../command.ts';
import { CliApiFailure, withApi, type ApiCall, type ApiSide } from '../api-client.ts';

export const embedCommand: Command = {
  name: 'embed',
  summary: 'Embed chunks that lack a vector (resumable); --model switches model and re-embeds',
  usage: 'contextpack embed [--model ID] [--batch N] [--progress] [--json] [--db FILE]',
  options: { model: { type: 'string' }, batch: { type: 'string' }, progress: { type: 'boolean', default: false } },
  async run(ctx) {
    const batch = intOption(ctx, 'batch', DEFAULT_BACKFILL_BATCH);
    const modelId = typeof ctx.values.model === 'string' ? ctx.values.model : undefined;
    return withApi(
      ctx,
      'embed',
      async (call, api) => {
        // Said before any model is looked for, as a usage problem (exit 2), as the command always did.
        if (!api.vec.loaded) throw new CliError(`embed: semantic search off: ${api.vec.reason}`);
        const onSigint = () => api.interrupt();
        process.once('SIGINT', onSigint);
        let result: EmbedResult;
        try {
          result = await embedVia(call, api, ctx, { ...(modelId !== undefined ? { modelId } : {}), batch });
        } finally {
          process.off('SIGINT', onSigint);
        }
        if (!result.ok) throw new CliError(`embed: ${result.reason}`, 1);
        const report = result.report;
        if (ctx.values.progress === true) ctx.io.stderr('\n');
        if (ctx.json) printJson(ctx, report);
        else ctx.io.stdout(formatBackfill(report));
        return report.aborted ? 130 : 0;
      },
      { modelId: '--model' },
    );
  },
};

export type EmbedResult = { ok: true; report: EmbedReport } | { ok: false; reason: string };

/**
 * One library.embed call, with `embedding done/total` on stderr under --progress. A missing or broken model is a
 * reason, not an exception: callers go on BM25-only.
 */
export async function embedVia(call: ApiCall, api: ApiSide, ctx: CommandContext, input: { modelId?: string; batch?: number }): Promise<EmbedResult> {
  const stop =
    ctx.values.progress === true
      ? api.events.subscribe((e) => {
          if (e.name === 'embed.progress' && e.payload.state === 'running') ctx.io.stderr(`\rembedding ${e.payload.done}/${e.payload.total}`);
        })
      : () => {};
  try {
    return { ok: true, report: await call('library.embed', input) };
  } catch (err) {
    if (err instanceof CliApiFailure && err.apiError.code === 'unavailable') return { ok: false, reason: err.apiError.message };
    throw err;
  } finally {
    stop();
  }
}

export function formatBackfill(r: EmbedReport): string {
  const state = r.active
    ? r.swapped ? 'now active (older vectors dropped)' : 'active'
    : r.aborted ? 'interrupted; run again to resume' : `not active yet: ${r.total - r.done} chunks missing${r.otherVersion ? `, ${r.otherVersion} chunks of another chunker version (run ingest --rescan)` : ''}`;
  return `${r.modelId} (${r.dims}-d, chunker v${r.chunkerVersion}): embedded ${r.embedded}, ${r.done}/${r.total} chunks have vectors in ${(r.durationMs / 1000).toFixed(2)} s — ${state}\n`;
}
