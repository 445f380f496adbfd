import { readFileSync } from 'node:fs';
import type { Store } from '../../core/store/index.ts';
import { bestPerDocument, bm25Fallback, createBm25Retriever, DEFAULT_HYBRID, openSemanticSearch, semanticHybridRetriever, type FusionMethod, type Retriever, type SemanticSearch } from '../../core/search/index.ts';
import type { SearchHit } from '../../../shared/types.ts';
import { provenance } from '../../../shared/provenance.ts';
import { defaultModelDirs } from '../../paths.ts';
import { FILTER_OPTIONS, FILTER_USAGE, filtersFromFlags } from './filter-flags.ts';
import { printable } from '../printable.ts';
import { overCap, QUERY_MAX } from '../../../shared/limits.ts';
import { CliError, intOption, numberOption, oneOf, printJson, withStore, type Command, type CommandContext } from '../command.ts';
import { cliRetrieval } from '../retrieval.ts';

const MODES = ['best', 'bm25', 'vector', 'hybrid'] as const;
type RequestedMode = (typeof MODES)[number];
const FUSIONS: readonly FusionMethod[] = ['rrf', 'normalized'];

/** The redaction gate, loaded when there is output to judge (its rules compile on first use). */
async function gate() {
  const [{ gatedHit }, { gateString }] = await Promise.all([import('../../core/search/gated-hit.ts'), import('../../core/redact/index.ts')]);
  return { gatedHit, gateString };
}

export const searchCommand: Command = {
  name: 'search',
  summary: 'Search the index (best available: hybrid with vectors, else bm25); batch mode prints a TREC run',
  usage:
    'contextpack search "<query>" [--mode best|bm25|vector|hybrid] [--mmr-lambda X] [--fetch-k N] [--fusion rrf|normalized] [--k N] [--json] [--db FILE]\n' +
    `                   ${FILTER_USAGE}   (globs over paths relative to their root: --exclude 'test/**')\n` +
    '       contextpack search --queries FILE.jsonl --k 100 --format trec [--mode …] [--db FILE]\n' +
    '  --mode best (default): hybrid when every chunk has a vector and the model is installed, else bm25;\n' +
    '  --mmr-lambda with bm25: MMR over the chunks\' words (diversity without vectors)',
  options: {
    k: { type: 'string' },
    queries: { type: 'string' },
    format: { type: 'string' },
    mode: { type: 'string' },
    'mmr-lambda': { type: 'string' },
    'fetch-k': { type: 'string' },
    fusion: { type: 'string' },
    ...FILTER_OPTIONS,
  },
  async run(ctx) {
    const k = intOption(ctx, 'k', ctx.values.queries ? 100 : 10);
    const requested = oneOf<RequestedMode>(ctx.values.mode, MODES, 'mode', 'best');
    const fusion = oneOf(ctx.values.fusion, FUSIONS, 'fusion', DEFAULT_HYBRID.fusion);
    const mmrLambda = ctx.values['mmr-lambda'] === undefined ? undefined : numberOption(ctx, 'mmr-lambda', 0.5, 0, 1);
    const fetchK = intOption(ctx, 'fetch-k', undefined);
    const filters = filtersFromFlags(ctx);
    if (requested === 'bm25' && ctx.values.fusion !== undefined) throw new CliError('--fusion needs --mode hybrid (or best)');
    return withStore(ctx, async (store) => {
      let close: (() => Promise<void>) | undefined;
      try {
        const picked = await pickRetriever(ctx, store, requested, { mmrLambda, fetchK, fusion });
        close = picked.close;
        const { retriever } = picked;
        const search = (text: string, n: number): Promise<SearchHit[]> => retriever.search({ text, k: n, filters });
        if (typeof ctx.values.queries === 'string') {
          const format = ctx.values.format ?? 'trec';
          if (format !== 'trec') throw new CliError(`--format must be trec in batch mode, got ${JSON.stringify(format)}`);
          for (const q of readQueries(ctx.values.queries)) {
            // Over-fetch chunks so that k distinct documents survive collapsing multi-chunk documents.
            const { gatedHit } = await gate();
            const hits = bestPerDocument(await search(q.text, k * 3), k).map((h) => gatedHit(h));
            const lines = hits.map((h, i) => `${q.id} Q0 ${printable(h.externalId ?? `${h.path}#${h.anchor}`)} ${i + 1} ${h.score.toFixed(6)} contextpack`);
            if (lines.length > 0) ctx.io.stdout(lines.join('\n') + '\n');
          }
          return 0;
        }
        const text = ctx.args.join(' ');
        if (text.trim() === '') throw new CliError(`search: give a query\nusage: ${this.usage}`);
        if (text.length > QUERY_MAX) throw new CliError(`search: ${overCap('query', QUERY_MAX, text.length)}`);
        // Snippets, titles, paths and anchors leave through the redaction gate (issue #10), as does the echoed query.
        const { gatedHit, gateString } = await gate();
        const hits = (await search(text, k)).map((h) => gatedHit(h));
        const query = gateString(text).text;
        const retrieval = { fusion: retriever.params?.fusion ?? null, mmr: retriever.params?.mmr ?? null, fallback_reason: picked.fallbackReason };
        if (ctx.json) printJson(ctx, { query, mode: retriever.mode, k, ...(filters ? { filters } : {}), ...(picked.notice ? { notice: picked.notice } : {}), retrieval, hits });
        else {
          // Vectors are there and "best" still chose BM25 (the project is mostly code): say so, not only in --json.
          if (requested === 'best' && picked.fallbackReason?.startsWith('code-aware BM25')) ctx.io.stderr(`search: mode best is bm25 here (${picked.fallbackReason}); --mode hybrid uses the vectors\n`);
          ctx.io.stdout(hits.length === 0 ? 'no results\n' : hits.map(formatHit).join('\n'));
        }
        return 0;
      } finally {
        await close?.();
      }
    });
  },
};

interface Picked {
  retriever: Retriever;
  fallbackReason: string | null;
  notice?: string;
  close?: () => Promise<void>;
}

/**
 * best: the retriever factory's choice (packets use the same). vector fails when semantic search is off (it has
 * nothing to fall back on); hybrid falls back to bm25 with the reason on stderr, so scripts that ask for hybrid keep
 * working on machines without a model. bm25 with --mmr-lambda re-ranks by MMR over the chunks' words.
 */
async function pickRetriever(ctx: CommandContext, store: Store, requested: RequestedMode, opts: { mmrLambda?: number; fetchK?: number; fusion: FusionMethod }): Promise<Picked> {
  const bm25 = createBm25Retriever(store.db);
  if (requested === 'bm25') return { retriever: bm25Fallback(bm25, { purpose: 'search', mmrLambda: opts.mmrLambda, fetchK: opts.fetchK }), fallbackReason: null };
  if (requested === 'best') {
    const r = await cliRetrieval(store, ctx.io.env, { purpose: 'search', ...opts });
    return { retriever: r.retriever, fallbackReason: r.fallbackReason, close: r.close };
  }
  let reason: string;
  if (!store.vec.loaded) reason = `semantic search off: ${store.vec.reason}`;
  else {
    const dirs = defaultModelDirs(ctx.io.env);
    const opened = await openSemanticSearch(store.db, { dirs, inProcess: true });
    if (opened.ok) {
      const engine: SemanticSearch = opened.engine;
      const retriever: Retriever =
        requested === 'hybrid'
          ? semanticHybridRetriever(engine, opts)
          : { mode: 'vector', search: (q) => engine.search({ text: q.text, k: q.k, mode: 'vector', mmrLambda: opts.mmrLambda, fetchK: opts.fetchK, filters: q.filters }) };
      return { retriever, fallbackReason: null, close: () => engine.close() };
    }
    reason = opened.reason;
  }
  if (requested === 'vector') throw new CliError(`search --mode vector: ${reason}`);
  const notice = `search --mode hybrid: ${reason}; using bm25`;
  ctx.io.stderr(notice + '\n');
  return { retriever: bm25, fallbackReason: reason, notice };
}

export function formatHit(h: SearchHit, i: number): string {
  // One hit is two lines whatever the file is called: a newline in a path or id is shown escaped.
  const where = printable(provenance(h));
  const snippet = printable(h.text.replace(/\s+/g, ' ').slice(0, 160));
  return `${String(i + 1).padStart(2)}. ${h.score.toFixed(3)}  ${where}${h.externalId ? `  [${printable(h.externalId)}]` : ''}\n    ${snippet}\n`;
}

export function readQueries(file: string): { id: string; text: string }[] {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`--queries ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const out: { id: string; text: string }[] = [];
  raw.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let q: { _id?: unknown; id?: unknown; text?: unknown };
    try {
      q = JSON.parse(line);
    } catch {
      throw new CliError(`${file}:${i + 1}: invalid JSON`);
    }
    const id = q._id ?? q.id;
    if ((typeof id !== 'string' && typeof id !== 'number') || typeof q.text !== 'string') {
      throw new CliError(`${file}:${i + 1}: expected {"_id", "text"}`);
    }
    out.push({ id: String(id), text: q.text });
  });
  return out;
}
