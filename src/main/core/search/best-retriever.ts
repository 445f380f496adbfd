// The one place that decides how packets and default searches retrieve: hybrid (DEFAULT_HYBRID's fusion) when
// the active vector space covers every chunk and its model is here, BM25 otherwise, with the reason. The API, the
// CLI and the MCP server all come through here, so a packet is built the same way whichever door it was asked at.
import type { Database } from 'better-sqlite3';
import type { SearchHit } from '../../../shared/types.ts';
import { activeSpace, listSpaces, spaceCoverage } from '../vectors/spaces.ts';
import { createBm25Retriever } from './bm25.ts';
import { DEFAULT_RRF_K, type FusionMethod } from './fusion.ts';
import { DEFAULT_HYBRID } from './hybrid.ts';
import type { RetrievalQuery, Retriever } from './retriever.ts';
import type { OpenSemanticSearch, SemanticSearch } from './semantic-search.ts';
import { createTextMmrRetriever } from './text-mmr.ts';
import { DEFAULT_FETCH_K } from './vector.ts';

/**
 * What the fallback is for. Packets always diversify (text MMR) so one file cannot fill the evidence; searches keep
 * plain BM25 order, because text MMR lowered SciFact nDCG@10 (see docs/packets.md, "Retrieval for packets").
 */
export type RetrievalPurpose = 'packet' | 'search';

export const SEARCH_FALLBACK_TEXT_MMR = false;

export interface BestRetrieverDeps {
  db: Database;
  /** Whether sqlite-vec loaded (Store.vec); without it there are no vectors to read. */
  vec: { loaded: boolean; reason?: string };
  /** Opens semantic search, or says why not. Called only when the active space is complete; the caller owns and closes it. */
  openSemantic: () => Promise<OpenSemanticSearch>;
  /** The BM25 retriever to use (a caller may hold one with its prepared statements); default: a new one. */
  bm25?: Retriever;
}

export interface RetrievalOptions {
  purpose: RetrievalPurpose;
  mmrLambda?: number;
  fetchK?: number;
  fusion?: FusionMethod;
  /** Normalized fusion's [bm25, vector] weights; default DEFAULT_HYBRID.weights. */
  weights?: [number, number];
  /** Benchmarks only: hybrid also on a store CODE_SHARE_FOR_BM25 keeps on BM25, to measure it there. Off by default. */
  ignoreCodeShare?: boolean;
}

/** What a benchmark may set for every retrieval of an API (ApiOptions.retrieval): the fusion, and the code-heavy rule. */
export type RetrievalOverrides = Pick<RetrievalOptions, 'fusion' | 'weights' | 'ignoreCodeShare'>;

export interface RetrievalChoice {
  retriever: Retriever;
  /** The model that embeds queries, when the choice is hybrid. */
  embedderId: string | null;
  /** Why hybrid was not used; null when it was. */
  fallbackReason: string | null;
}

/**
 * Null when hybrid can run on the active space as far as the store can tell; else why not (no model is loaded to
 * answer). ignoreCodeShare (benchmarks): the code-heavy rule (codeBlocker) does not block.
 */
export function hybridBlocker(db: Database, vec: { loaded: boolean; reason?: string }, options: { ignoreCodeShare?: boolean } = {}): string | null {
  if (!vec.loaded) return `semantic search off: sqlite-vec is not loaded${vec.reason ? ` (${vec.reason})` : ''}`;
  const withCode = !options.ignoreCodeShare;
  // The coverage count joins every chunk to its vector (~10 ms at 100,000 chunks): asked again only after a write.
  // Not inside a transaction, which may yet roll back without moving either counter.
  if (db.inTransaction) return coverageBlocker(db, withCode);
  const stamp = `${writeStamp(db)}:${withCode ? 'code' : 'any'}`;
  const memo = blockerMemo.get(db);
  if (memo && memo.stamp === stamp) return memo.blocker;
  const blocker = coverageBlocker(db, withCode);
  blockerMemo.set(db, { stamp, blocker });
  return blocker;
}

const blockerMemo = new WeakMap<Database, { stamp: string; blocker: string | null }>();

/** Moves with every commit by another connection (data_version) and every change by this one (total_changes). */
function writeStamp(db: Database): string {
  return `${db.pragma('data_version', { simple: true })}:${db.prepare('SELECT total_changes()').pluck().get()}`;
}

function coverageBlocker(db: Database, withCode: boolean): string | null {
  const space = activeSpace(db);
  if (!space) {
    // A first embedding run under way: say how far it is, so a BM25 answer is not mistaken for "no model".
    const building = listSpaces(db).find((s) => s.state === 'building');
    if (building) {
      const b = spaceCoverage(db, building);
      return `semantic search off: no vectors yet; embedding with ${building.modelId} has covered ${b.chunks - b.missing - b.otherVersion} of ${b.chunks} chunks, BM25 answers until it finishes`;
    }
    return 'semantic search off: no vectors yet; install a local model and run `contextpack embed`';
  }
  const c = spaceCoverage(db, space);
  const missing = c.missing + c.otherVersion;
  if (missing > 0) return `vectors of ${space.modelId} cover ${c.chunks - missing} of ${c.chunks} chunks; run \`contextpack embed\``;
  return withCode ? codeBlocker(db) : null;
}

/**
 * Hybrid stays off where most chunks are source code. Measured with the default model (docs/semantic-search.md,
 * bench:localize): on flask's fix commits hybrid's search top-10 found a changed file for 0.53 of tasks against
 * code-aware BM25's 0.71, and its packets 0.79 against 0.81; cobra's packets gained (0.96 against 0.87) but its
 * search did not. A prose model does not know code, and fusion drops BM25's per-file spreading.
 */
export const CODE_SHARE_FOR_BM25 = 0.5;

export function codeBlocker(db: Database): string | null {
  const r = db
    .prepare(
      `SELECT count(*) AS total, coalesce(sum(s.type = 'code'), 0) AS code
       FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id`,
    )
    .get() as { total: number; code: number };
  if (r.total === 0 || r.code / r.total < CODE_SHARE_FOR_BM25) return null;
  return `code-aware BM25: ${r.code} of ${r.total} chunks are source code, where hybrid search with a prose embedding model measured worse than BM25`;
}

/**
 * Hybrid search of an open semantic engine, as a Retriever that records its fusion and MMR settings. Packets and
 * searches share DEFAULT_HYBRID: no MMR, because every MMR setting measured on SciFact cost relevance
 * (docs/semantic-search.md).
 */
export function semanticHybridRetriever(engine: SemanticSearch, options: Partial<RetrievalOptions> = {}): Retriever {
  const mmrLambda = options.mmrLambda ?? DEFAULT_HYBRID.mmrLambda;
  const fetchK = options.fetchK ?? DEFAULT_FETCH_K;
  const fusion = options.fusion ?? DEFAULT_HYBRID.fusion;
  const weights = fusion === 'normalized' ? (options.weights ?? DEFAULT_HYBRID.weights) : undefined;
  return {
    mode: 'hybrid',
    params: {
      fusion: fusion === 'rrf' ? { method: 'rrf', k: DEFAULT_RRF_K } : { method: 'normalized', weights: weights! },
      mmr: mmrLambda < 1 ? { lambda: mmrLambda, fetch_k: fetchK, similarity: 'vector' } : null,
    },
    search: (q: RetrievalQuery): Promise<SearchHit[]> =>
      engine.search({ text: q.text, k: q.k, mode: 'hybrid', mmrLambda, fetchK, fusion, weights, filters: q.filters }),
  };
}

/** The BM25 fallback for a purpose: with text MMR for packets, plain for searches (unless told otherwise). */
export function bm25Fallback(bm25: Retriever, options: RetrievalOptions): Retriever {
  const textMmr = options.purpose === 'packet' || SEARCH_FALLBACK_TEXT_MMR || options.mmrLambda !== undefined;
  return textMmr ? createTextMmrRetriever(bm25, { mmrLambda: options.mmrLambda, fetchK: options.fetchK }) : bm25;
}

/** The best retriever the store and the model folders allow right now. */
export async function chooseRetriever(deps: BestRetrieverDeps, options: RetrievalOptions): Promise<RetrievalChoice> {
  const bm25 = deps.bm25 ?? createBm25Retriever(deps.db);
  const fallback = (reason: string): RetrievalChoice => ({ retriever: bm25Fallback(bm25, options), embedderId: null, fallbackReason: reason });
  const blocker = hybridBlocker(deps.db, deps.vec, { ignoreCodeShare: options.ignoreCodeShare });
  if (blocker) return fallback(blocker);
  let opened: OpenSemanticSearch;
  try {
    opened = await deps.openSemantic();
  } catch (err) {
    // A model that fails to load must not take the packet down: BM25 serves, and the manifest says why.
    return fallback(`semantic search failed to open: ${(err as Error).message ?? String(err)}`);
  }
  if (!opened.ok) return fallback(opened.reason);
  return { retriever: semanticHybridRetriever(opened.engine, options), embedderId: opened.engine.modelId, fallbackReason: null };
}
