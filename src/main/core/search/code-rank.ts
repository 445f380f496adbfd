import { isTestPath } from './code-paths.ts';

/** A chunk that matched the query, with its BM25 score (higher is better) and where it lives. */
export interface RankCandidate {
  chunkId: number;
  documentId: number;
  score: number;
  /** Path relative to its root (test detection looks at the project's folders, not the user's home). */
  relPath: string;
  /** A whole file (not one entry of a JSONL collection): only files aggregate their chunks. */
  isFile: boolean;
  /** Breaks ties by content (path, line), never by row id, so a store filled in another order ranks the same. */
  key?: string;
}

/** Best score first; ties by the stable key, then the chunk id (only for chunks without a key). */
export function byScoreThenKey(a: { score: number; key?: string; chunkId: number }, b: { score: number; key?: string; chunkId: number }): number {
  if (b.score !== a.score) return b.score - a.score;
  const ka = a.key ?? '';
  const kb = b.key ?? '';
  if (ka !== kb) return ka < kb ? -1 : 1;
  return a.chunkId - b.chunkId;
}

/** A chunk's stable key: its file's path and its first line, zero-padded so the string order is the line order. */
export function chunkKey(path: string, lineStart: number): string {
  return `${path}\u0000${String(lineStart).padStart(10, '0')}`;
}

/**
 * The signals on top of chunk BM25, all general (no per-repository tuning), each a plain factor:
 * - `fieldWeight`: the document's own path and symbol names as a field (BM25 over doc_fields_fts), added to each
 *   of its chunks, so `content-type` finds `lib/content-type.js` and `acceptsCharsets` finds the file defining it.
 * - `aggregation`: a share of the file's next-best matching chunk is added to each of its chunks (to the best
 *   one: its second; to the others: its best), so a file with several relevant chunks rises over a file with one
 *   lucky chunk. Files only: on prose collections (SciFact) any such bonus favours long documents and cost nDCG
 *   (0.6913 → 0.6793 at 0.1, → 0.6586 summing all other chunks at 0.25), and on code localization it measured
 *   neutral, so it stays small.
 * - `testFactor`: tests, fixtures and examples are multiplied by it unless the query is about tests.
 * - `repeatDecay`: a document's j-th chunk (0-based, best first) is multiplied by repeatDecay^j, so one file
 *   does not fill the top of the list (a soft per-file cap: MMR with "same file" as the similarity).
 */
export interface RankSignals {
  fieldWeight: number;
  aggregation: number;
  testFactor: number;
  /** Docs for a code task (issue #23): the source a fix changes ranks over the page describing it. */
  docFactor: number;
  repeatDecay: number;
}

export const DEFAULT_RANK_SIGNALS: RankSignals = { fieldWeight: 1, aggregation: 0.1, testFactor: 0.5, docFactor: 0.5, repeatDecay: 0.6 };

/** A file's weight by its role for this query (code-task.ts `roleWeigher`); without one, only tests are demoted. */
export type RoleFactor = (relPath: string) => number;

/** Combines the signals; returns every candidate with its final score, best first (ties: by path and line, byScoreThenKey). */
export function rankCandidates(
  candidates: readonly RankCandidate[],
  fieldScores: ReadonlyMap<number, number>,
  opts: {
    signals?: Partial<RankSignals>;
    aboutTests?: boolean;
    roleFactor?: RoleFactor;
    /** A file's chunks × (1 + b): files the task names (a path, a traceback frame). */
    docBoost?: ReadonlyMap<number, number>;
    /** Whole-file relevance, 0..1 (its BM25 over the best file's); each chunk × (1 + fileWeight × it). */
    fileScores?: ReadonlyMap<number, number>;
    fileWeight?: number;
    /** 'add': the file's relevance is added to the chunk's relative score (chunk / best chunk) instead. */
    fileMode?: 'mult' | 'add';
  } = {},
): { chunkId: number; documentId: number; score: number; key?: string }[] {
  const sig = { ...DEFAULT_RANK_SIGNALS, ...opts.signals };
  const byDoc = new Map<number, RankCandidate[]>();
  for (const c of candidates) {
    const list = byDoc.get(c.documentId);
    if (list) list.push(c);
    else byDoc.set(c.documentId, [c]);
  }
  const out: { chunkId: number; documentId: number; score: number; key?: string }[] = [];
  const add = opts.fileMode === 'add';
  const topChunk = candidates.reduce((m, c) => Math.max(m, c.score), 0);
  for (const [doc, list] of byDoc) {
    list.sort(byScoreThenKey);
    const field = sig.fieldWeight * (fieldScores.get(doc) ?? 0);
    const demote = (opts.roleFactor ? opts.roleFactor(list[0]!.relPath) : !opts.aboutTests && isTestPath(list[0]!.relPath) ? sig.testFactor : 1) * (1 + (opts.docBoost?.get(doc) ?? 0)) * (add ? 1 : 1 + (opts.fileWeight ?? 0) * (opts.fileScores?.get(doc) ?? 0));
    const fileAdd = add ? (opts.fileWeight ?? 0) * (opts.fileScores?.get(doc) ?? 0) * topChunk : 0;
    const agg = list[0]!.isFile ? sig.aggregation : 0;
    const best = Math.max(0, list[0]!.score);
    const second = list.length > 1 ? Math.max(0, list[1]!.score) : 0;
    const scored = list.map((c, i) => {
      const other = i === 0 ? second : best;
      return { chunkId: c.chunkId, documentId: doc, score: (c.score + agg * other + field + fileAdd) * demote, key: c.key };
    });
    scored.sort(byScoreThenKey);
    scored.forEach((s, j) => out.push({ ...s, score: s.score * sig.repeatDecay ** j }));
  }
  return out.sort(byScoreThenKey);
}
