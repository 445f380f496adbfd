import type { EmbedReport } from '../../../shared/api/index.ts';
import { DEFAULT_BACKFILL_BATCH } from '../../core/vectors/backfill.ts';
import { CliError, intOption, printJson, type Command, type CommandContext } from '../command.ts';
import { CliApiFailure, withApi, type ApiCall, type ApiSide } from '../api-client.ts';
import { codeBlocker } from '../../core/search/best-retriever.ts';
import { progressLine } from '../progress.ts';

export const embedCommand: Command = {
  name: 'embed',
  summary: 'Embed chunks that lack a vector (resumable); --model switches model and re-embeds',
  usage: 'contextpack embed [--model ID] [--batch N] [--progress | --quiet] [--json] [--db FILE]',
  options: { model: { type: 'string' }, batch: { type: 'string' }, progress: { type: 'boolean', default: false }, quiet: { type: 'boolean', default: false } },
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
          result = await embedVia(call, api, ctx, { ...(modelId !== undefined ? { modelId } : {}), batch }, 0);
        } finally {
          process.off('SIGINT', onSigint);
        }
        if (!result.ok) throw new CliError(`embed: ${result.reason}`, 1);
        const report = result.report;
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
 * Progress is shown by default when stderr is a terminal (count, rate, time left, from the moment the call starts);
 * `--progress` shows it anyway (a line every few seconds), `--quiet` and `--json` never.
 */
export function showsProgress(ctx: CommandContext): boolean {
  if (ctx.values.quiet === true) return false;
  return ctx.values.progress === true || (!ctx.json && process.stderr.isTTY === true);
}

/**
 * One library.embed call, with its progress on stderr (showsProgress), and first, on a code-heavy project, which
 * mode search "best" will use afterwards and why. A missing or broken model is a reason, not an exception: callers
 * go on BM25-only.
 */
export async function embedVia(call: ApiCall, api: ApiSide, ctx: CommandContext, input: { modelId?: string; batch?: number }, announceAfterMs = 250): Promise<EmbedResult> {
  const line = showsProgress(ctx) ? progressLine(ctx.io.stderr, 'embedding', 'chunks', { tty: process.stderr.isTTY === true }) : null;
  // A first line while the model loads: at once for `embed`, which was asked to; after a moment for ingest's own
  // embedding, so that a project without a model (which fails at once) shows none.
  const loading = line ? setTimeout(() => line.start('loading the model'), announceAfterMs) : null;
  let started = false;
  const stop = api.events.subscribe((e) => {
    if (e.name !== 'embed.progress' || e.payload.state !== 'running') return;
    if (!started) {
      started = true;
      const code = codeBlocker(api.db);
      if (code && ctx.values.quiet !== true) {
        line?.end();
        ctx.io.stderr(`note: search mode "best" stays bm25 after embedding (${code}); --mode hybrid uses the vectors\n`);
      }
    }
    line?.update(e.payload.done, e.payload.total);
  });
  try {
    return { ok: true, report: await call('library.embed', input) };
  } catch (err) {
    if (err instanceof CliApiFailure && err.apiError.code === 'unavailable') return { ok: false, reason: err.apiError.message };
    throw err;
  } finally {
    if (loading) clearTimeout(loading);
    stop();
    line?.end();
  }
}

export function formatBackfill(r: EmbedReport): string {
  const state = r.active
    ? r.swapped ? 'now active (older vectors dropped)' : 'active'
    : r.aborted ? 'interrupted; run again to resume' : `not active yet: ${r.total - r.done} chunks missing${r.otherVersion ? `, ${r.otherVersion} chunks of another chunker version (run ingest --rescan)` : ''}`;
  return `${r.modelId} (${r.dims}-d, chunker v${r.chunkerVersion}): embedded ${r.embedded}, ${r.done}/${r.total} chunks have vectors in ${(r.durationMs / 1000).toFixed(2)} s — ${state}\n`;
}
