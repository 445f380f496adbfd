import type { Database, Statement } from 'better-sqlite3';
import { sep } from 'node:path';
import type { SearchHit } from '../../../shared/types.ts';
import { byScoreThenKey, chunkKey, DEFAULT_RANK_SIGNALS, rankCandidates, type RankCandidate, type RankSignals } from './code-rank.ts';
import { roleWeigher } from './code-task.ts';
import { ftsMatchOf, queryTerms } from './fts-query.ts';
import { taskTerms, type TaskTerms } from './task-terms.ts';
import { indexedTask, taskScores } from './task-scores.ts';
import { splitIdentifier } from './code-words.ts';
import { ftsScorer, type ScoredRow } from './fts-scorer.ts';
import { HIT_JOINS, filterSql, loadHits, loadHitsStatement, type FilterSql } from './hits.ts';
import type { RetrievalQuery, Retriever } from './retriever.ts';

/**
 * FTS5 column weights (title, headings, body): a word in a title or heading says more about a chunk than one in
 * its body. 1.25 was the best of {1, 1.25, 1.5, 2} on SciFact's *train* queries (the test split is only reported).
 * For code the headings column holds the chunk's symbol names.
 */
export interface Bm25Weights {
  title: number;
  headings: number;
  body: number;
}

export const DEFAULT_BM25_WEIGHTS: Bm25Weights = { title: 1.25, headings: 1.25, body: 1 };

/** doc_fields_fts column weights: a query word in the file's path, or in the name of a symbol it defines. */
export const DOC_FIELD_WEIGHTS = { path: 1, symbols: 1 };

export interface Bm25Options {
  weights?: Bm25Weights;
  /** Code-aware signals (see code-rank.ts); `false` gives plain chunk BM25. */
  signals?: Partial<RankSignals> | false;
  /** Rank from FTS5's postings in JS when it can (fts-scorer.ts, identical results); `false`: always FTS5's bm25(). */
  postings?: boolean;
}

/**
 * A chunk holding one of the query's compound identifiers (`package_name`, `res.send`) as written: its score ×
 * (1 + this). Such a name is the most specific thing a task can say; its parts alone are common words.
 */
export const IDENTIFIER_BOOST = 0.5;
// Chunks holding an identifier phrase that are looked at, at most (the best by how they match the phrases).
const PHRASE_CHUNKS = 200;
// Rows beyond a limit fetched so that ties at the cut are broken by the stable key, not by row id.
const TIE_EXTRA = 20;
// A long task's terms that search the documents' path and symbol fields: identifiers, paths, frames, errors.
const FIELD_TERM_WEIGHT = 1.5;
/** A file a traceback frame of the project names: its chunks × (1 + this). */
export const FRAME_BOOST = 1;
/** A file whose path or module the task names. */
export const PATH_BOOST = 1;
const MAX_NAMED_PATHS = 24;
/** Files defining a function or class the task names: their chunks × (1 + this / the number of such files). */
export const SYMBOL_BOOST = 0.5;
const MAX_DEFINITIONS = 3;
const MAX_SYMBOLS = 24;
// Files ranked as whole documents whose chunks join the candidates, and how many file scores are kept at all.
const FILE_DOCS = 10;
const FILE_POOL = 200;
// Every chunk of each file with the file's document id, as fts-scorer's groupScores reads them.
const GROUP_SQL = 'SELECT group_concat(c.id || \':\' || c.document_id) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.external_id IS NULL';
/**
 * The long-task signals (issue #32), each a factor measured on the issue benchmark's development set (bench:issues;
 * docs/packets.md): `fileWeight` for whole-file BM25 (`fileMode` 'add': the file's relevance, 0..1, times the
 * best chunk's score, is added to each of its chunks; 'mult': each chunk × (1 + weight × it)), `pathBoost` for files the task names by path or traceback
 * frame (× PATH_BOOST / FRAME_BOOST), `symbolBoost` for files defining a function or class it names (× SYMBOL_BOOST).
 * 0 turns a signal off. A benchmark may change them to measure each one; the engine never does. Named paths,
 * frames and symbols are off: on the 45 development issues they moved no file up and cost one packet its hunk (a
 * Rust set, where tracebacks are rare; a set with Python tracebacks may say otherwise).
 */
export const ISSUE_SIGNALS: { fileWeight: number; pathBoost: number; symbolBoost: number; fileMode: 'mult' | 'add' } = { fileWeight: 1, pathBoost: 0, symbolBoost: 0, fileMode: 'add' };

// Candidates beyond k, so file aggregation and the per-file decay have other chunks to work with.
const EXTRA_CANDIDATES = 50;
// Documents ranked by their path / symbol fields whose chunks are fetched even when no chunk made the candidates.
const FIELD_DOCS = 20;

interface CandidateRow {
  chunkId: number;
  documentId: number;
  score: number;
  path: string;
  root: string;
  /** Path relative to its root, as ingest recorded it (migration 040); null in stores without it. */
  relPath: string | null;
  isFile: number;
  lineStart: number;
}

type KeyedRow = CandidateRow & { key: string };

const withKeys = (rows: CandidateRow[]): KeyedRow[] => rows.map((r) => ({ ...r, key: chunkKey(r.path, r.lineStart) }));

/** The task's terms and their weights, as parallel arrays; `uniform` when every weight is 1 (a subject line). */
interface WeightedQuery {
  terms: string[];
  weights: number[];
  uniform?: boolean;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export function createBm25Retriever(db: Database, options: Bm25Weights | Bm25Options = {}): Retriever {
  const opts: Bm25Options = 'body' in options ? { weights: options } : options;
  const weights = opts.weights ?? DEFAULT_BM25_WEIGHTS;
  const w = [weights.title, weights.headings, weights.body];
  const signals = opts.signals === false ? null : (opts.signals ??{});
  const hasFields = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'doc_fields_fts'").get() !== undefined;
  // FTS5's bm25() is "lower is better"; scores are negated so every retriever returns "higher is better".
  const plain = db.prepare(
    `SELECT c.id AS chunkId, c.document_id AS documentId, -r.rank AS score, s.path AS path, s.root AS root, s.rel_path AS relPath, d.external_id IS NULL AS isFile, c.line_start AS lineStart
     FROM (SELECT rowid, bm25(chunks_fts, ?, ?, ?) AS rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank, rowid LIMIT ?) r
     JOIN chunks c ON c.id = r.rowid ${HIT_JOINS}
     ORDER BY r.rank, c.id`,
  );
  const fields = hasFields
    ? db.prepare(
        `SELECT r.documentId, r.score, s.path AS path FROM (
           SELECT rowid AS documentId, -bm25(doc_fields_fts, ?, ?) AS score FROM doc_fields_fts WHERE doc_fields_fts MATCH ?
           ORDER BY bm25(doc_fields_fts, ?, ?) LIMIT ?) r
         JOIN documents d ON d.id = r.documentId JOIN sources s ON s.id = d.source_id`,
      )
    : null;
  const load = loadHitsStatement(db);
  const termScores = db.prepare('SELECT rowid, -bm25(chunks_fts, ?, ?, ?) AS score FROM chunks_fts WHERE chunks_fts MATCH ?');
  // Ranks from FTS5's postings in JS when it can (identical scores, see fts-scorer.ts); else the SQL above.
  const scorer = opts.postings === false ? null : ftsScorer(db, 'chunks_fts');
  // Roots of chunks whose source has no relative path (stores from before migration 040 filled it).
  const rootsOf = db.prepare(`SELECT c.id AS chunkId, s.root AS root FROM chunks c ${HIT_JOINS} WHERE c.id IN (SELECT value FROM json_each(?))`);
  const filtered = new Map<string, Statement>();
  const cached = (sql: string) => {
    let st = filtered.get(sql);
    if (!st) filtered.set(sql, (st = db.prepare(sql)));
    return st;
  };

  return {
    mode: 'bm25',
    async search(query: RetrievalQuery): Promise<SearchHit[]> {
      return searchSync(query);
    },
  };

  function searchSync(query: RetrievalQuery): SearchHit[] {
    if (query.k <= 0) return [];
    // Code-aware ranking reads the task value (task-terms.ts): weighted words for an issue, the query's words and
    // their code-word variants (camelCase parts, joined words, spellings) at weight 1 for a subject line.
    const task = signals ? indexedTask(db, query.task ?? taskTerms(query.text)) : null;
    const weighted = task ? task.terms : queryTerms(query.text).map((term) => ({ term, weight: 1 }));
    const q: WeightedQuery = { terms: weighted.map((t) => t.term), weights: weighted.map((t) => t.weight) };
    q.uniform = q.weights.every((x) => x === 1);
    const match = ftsMatchOf(q.terms);
    if (match === null) return [];
    const filter = filterSql(query.filters);
    const limit = signals ? query.k + EXTRA_CANDIDATES : query.k;
    const accept = filter.params.length === 0 ? undefined : (ids: number[]) => accepted(ids, filter);
    // A long task always ranks from the postings (file scores exist only there), whichever query of the index it is.
    const long = task?.long === true;
    const fast = scorer?.topK(q.terms, w, limit, accept, { termWeights: q.uniform ? undefined : q.weights, ties: true, force: long });
    // Hit rows already loaded (the fast path loads its candidates whole); the rest are loaded at the end.
    const loaded = new Map<number, LoadedRow>();
    const found = fast
      ? candidateRows(fast, loaded)
      : !q.uniform
      ? weightedRows(q, limit, filter)
      : ((filter.params.length === 0
          ? plain.all(...w, match, limit + TIE_EXTRA)
          : cached(
              `SELECT c.id AS chunkId, c.document_id AS documentId, -bm25(chunks_fts, ?, ?, ?) AS score, s.path AS path, s.root AS root, s.rel_path AS relPath, d.external_id IS NULL AS isFile, c.line_start AS lineStart
               FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid ${HIT_JOINS}
               WHERE chunks_fts MATCH ? AND ${filter.where}
               ORDER BY score DESC, c.id LIMIT ?`,
            ).all(...w, match, ...filter.params, limit + TIE_EXTRA)) as CandidateRow[]);
    // Ties are broken by path and line, never by row id: a store filled in another order ranks the same (#35).
    const rows = found.map((r) => ({ ...r, key: chunkKey(r.path, r.lineStart) })).sort(byScoreThenKey).slice(0, limit);
    if (!signals || !task) return hitsInOrder(rows.slice(0, query.k), loaded);

    const fieldScores = new Map<number, number>();
    const fieldMatch = task.long ? ftsMatchOf(weighted.filter((t) => t.weight >= FIELD_TERM_WEIGHT).map((t) => t.term)) : match;
    if (fields && fieldMatch !== null) {
      const fw = [DOC_FIELD_WEIGHTS.path, DOC_FIELD_WEIGHTS.symbols];
      const docs = fields.all(...fw, fieldMatch, ...fw, FIELD_DOCS + TIE_EXTRA) as { documentId: number; score: number; path: string }[];
      docs.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.documentId - b.documentId));
      for (const f of docs.slice(0, FIELD_DOCS)) fieldScores.set(f.documentId, f.score);
    }
    const boost = long && ISSUE_SIGNALS.pathBoost > 0 ? namedFiles(task, filter) : new Map<number, number>();
    const defined = long && ISSUE_SIGNALS.symbolBoost > 0 ? definitionsOf(task.symbols, filter) : { docs: new Map<number, number>(), chunks: [] as number[] };
    for (const [d, b] of defined.docs) boost.set(d, Math.max(boost.get(d) ?? 0, b));
    // Issue #32: a long task ranks files as whole documents too (BM25 over each file's chunks summed); the best
    // files' chunks join the candidates, and each chunk's score grows with its file's (fileWeight).
    const files = long && ISSUE_SIGNALS.fileWeight > 0 ? fileScores(q, filter) : new Map<number, number>();
    const seenDocs = new Set(rows.map((r) => r.documentId));
    const topFiles = [...files.keys()].slice(0, FILE_DOCS);
    const missing = [...new Set([...fieldScores.keys(), ...boost.keys(), ...topFiles])].filter((d) => !seenDocs.has(d)).sort((a, b) => a - b);
    if (missing.length > 0) rows.push(...withKeys(chunksOfDocuments(missing, q, match, filter)));

    // The definitions the task names join the candidates with their score for the task.
    const haveChunks = new Set(rows.map((r) => r.chunkId));
    const defChunks = defined.chunks.filter((id) => !haveChunks.has(id));
    if (defChunks.length > 0) {
      const scores = scoresOf(q, defChunks);
      rows.push(...withKeys((cached(`SELECT c.id AS chunkId, c.document_id AS documentId, 0 AS score, s.path AS path, s.root AS root, s.rel_path AS relPath, d.external_id IS NULL AS isFile, c.line_start AS lineStart FROM chunks c ${HIT_JOINS} WHERE c.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(defChunks)) as CandidateRow[]).map((r) => ({ ...r, score: scores.get(r.chunkId) ?? 0 }))));
    }
    const phrased = identifierChunks(task.phrases, q, filter, rows);
    const candidates: RankCandidate[] = rows.map((r) => ({ chunkId: r.chunkId, documentId: r.documentId, score: phrased.has(r.chunkId) ? r.score * (1 + IDENTIFIER_BOOST) : r.score, relPath: relPathOf(r), isFile: r.isFile === 1, key: r.key }));
    const sig = { ...DEFAULT_RANK_SIGNALS, ...signals };
    const weigh = roleWeigher(task, sig);
    const ranked = rankCandidates(candidates, fieldScores, { signals, roleFactor: (p) => weigh(p).factor, docBoost: boost, fileScores: files, fileWeight: ISSUE_SIGNALS.fileWeight, fileMode: ISSUE_SIGNALS.fileMode });
    return hitsInOrder(ranked.slice(0, query.k), loaded);
  }

  /**
   * Weighted BM25 through FTS5 when the postings path cannot answer: each term's bm25() alone is exactly its part
   * of the sum, so the rows' scores are the ones the postings path gives (added in the same order).
   */
  function weightedRows(q: WeightedQuery, limit: number, filter: FilterSql): CandidateRow[] {
    const acc = new Map<number, number>();
    for (const [i, term] of q.terms.entries()) {
      const one = ftsMatchOf([term])!;
      for (const r of termScores.all(...w, one) as { rowid: number; score: number }[]) acc.set(r.rowid, (acc.get(r.rowid) ?? 0) + (q.weights[i] === 1 ? r.score : r.score * q.weights[i]!));
    }
    let ranked = [...acc].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    if (filter.params.length > 0) {
      const ok = accepted(ranked.slice(0, (limit + TIE_EXTRA) * 8).map(([id]) => id), filter);
      ranked = ranked.filter(([id]) => ok.has(id));
    }
    const top = ranked.slice(0, limit + TIE_EXTRA);
    const scoreOf = new Map(top);
    return (cached(`SELECT c.id AS chunkId, c.document_id AS documentId, 0 AS score, s.path AS path, s.root AS root, s.rel_path AS relPath, d.external_id IS NULL AS isFile, c.line_start AS lineStart FROM chunks c ${HIT_JOINS} WHERE c.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(top.map(([id]) => id))) as CandidateRow[]).map((r) => ({ ...r, score: scoreOf.get(r.chunkId) ?? 0 }));
  }

  /** This query's score of the given rows (weighted or not), from the postings when they are loaded, else FTS5. */
  function scoresOf(q: WeightedQuery, rowids: number[]): Map<number, number> {
    return taskScores(db, { terms: q.terms.map((term, i) => ({ term, weight: q.weights[i]! })) }, rowids, w);
  }

  /**
   * Where the functions and classes the task names are defined (the symbol index: doc_fields_fts's symbols, then
   * chunks anchored at the name): a name defined in at most MAX_DEFINITIONS files boosts them (SYMBOL_BOOST shared
   * among them) and its defining chunks join the candidates. A name defined everywhere (`run`, `new`) says nothing.
   */
  function definitionsOf(symbols: readonly string[], filter: FilterSql): { docs: Map<number, number>; chunks: number[] } {
    const docs = new Map<number, number>();
    const chunks: number[] = [];
    if (!fields || symbols.length === 0) return { docs, chunks };
    const names = [...new Set(symbols)].slice(0, MAX_SYMBOLS);
    const phrases = names.map((n) => splitIdentifier(n.replace(/_/g, ' ')).join(' ')).filter((p) => p !== '');
    if (phrases.length === 0) return { docs, chunks };
    const match = [...new Set(phrases)].map((p) => `symbols : "${p.replaceAll('"', '""')}"`).join(' OR ');
    const rows = cached(
      `SELECT c.id AS chunkId, c.document_id AS documentId, c.anchor AS anchor, s.path AS path, c.line_start AS lineStart
       FROM (SELECT rowid FROM doc_fields_fts WHERE doc_fields_fts MATCH ? LIMIT 400) f
       JOIN chunks c ON c.document_id = f.rowid AND c.anchor != '' ${HIT_JOINS} WHERE ${filter.where}`,
    ).all(match, ...filter.params) as { chunkId: number; documentId: number; anchor: string; path: string; lineStart: number }[];
    const wanted = new Set(names);
    const byName = new Map<string, { chunkId: number; documentId: number; key: string }[]>();
    for (const r of rows) {
      const own = r.anchor.slice(r.anchor.lastIndexOf('.') + 1);
      if (!wanted.has(own)) continue;
      const list = byName.get(own) ?? [];
      list.push({ chunkId: r.chunkId, documentId: r.documentId, key: chunkKey(r.path, r.lineStart) });
      byName.set(own, list);
    }
    for (const [, list] of [...byName].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const files = new Set(list.map((x) => x.documentId));
      if (files.size > MAX_DEFINITIONS) continue;
      for (const f of files) docs.set(f, Math.max(docs.get(f) ?? 0, (ISSUE_SIGNALS.symbolBoost * SYMBOL_BOOST) / files.size));
      for (const x of list.sort((a, b) => (a.key < b.key ? -1 : 1)).slice(0, 2)) chunks.push(x.chunkId);
    }
    return { docs, chunks };
  }

  /**
   * Whole-file BM25 of the task's weighted terms (fts-scorer.ts groupScores), each file's score over the best
   * file's (0..1), best first, ties by path; files only (a JSONL record is not a file), under the search's filters.
   */
  function fileScores(q: WeightedQuery, filter: FilterSql): Map<number, number> {
    const raw = scorer?.groupScores(q.terms, w, GROUP_SQL, { termWeights: q.uniform ? undefined : q.weights });
    if (!raw || raw.size === 0) return new Map();
    let ranked = [...raw].sort((a, b) => b[1] - a[1]).slice(0, FILE_POOL);
    const paths = new Map((cached(`SELECT d.id AS id, s.path AS path FROM documents d JOIN sources s ON s.id = d.source_id WHERE d.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ranked.map(([d]) => d))) as { id: number; path: string }[]).map((r) => [r.id, r.path]));
    ranked.sort((a, b) => b[1] - a[1] || ((paths.get(a[0]) ?? '') < (paths.get(b[0]) ?? '') ? -1 : 1));
    if (filter.params.length > 0) {
      const ok = new Set(cached(`SELECT d.id FROM documents d JOIN sources s ON s.id = d.source_id LEFT JOIN roots rt ON rt.id = s.root_id JOIN chunks c ON c.document_id = d.id AND c.ordinal = 0 WHERE d.id IN (SELECT value FROM json_each(?)) AND ${filter.where}`).pluck().all(JSON.stringify(ranked.map(([d]) => d)), ...filter.params) as number[]);
      ranked = ranked.filter(([d]) => ok.has(d));
    }
    const top = ranked[0]?.[1] ?? 0;
    return new Map(top > 0 ? ranked.map(([d, v]) => [d, v / top]) : []);
  }

  /**
   * Files the task names: a path or module it mentions, a traceback frame's file (the innermost project frame
   * counts most), and files defining a function or class it names. Each gets a boost (× 1 + b) on its chunks.
   */
  function namedFiles(task: TaskTerms, filter: FilterSql): Map<number, number> {
    const out = new Map<number, number>();
    const add = (doc: number, b: number) => out.set(doc, Math.max(out.get(doc) ?? 0, b));
    const frameFiles = new Set(task.frames.filter((f) => !f.external).map((f) => f.file));
    for (const p of task.paths.slice(0, MAX_NAMED_PATHS)) {
      const norm = p.replace(/^\/+/, '');
      const base = norm.split('/').pop()!;
      if (base.length < 2) continue;
      const hasExt = /\.[A-Za-z0-9]{1,5}$/.test(base);
      const rows = cached(
        `SELECT d.id AS documentId, coalesce(s.rel_path, s.path) AS rel FROM sources s JOIN documents d ON d.source_id = s.id AND d.external_id IS NULL
         WHERE (s.rel_path = ? OR s.rel_path LIKE ? ESCAPE '\\' OR s.rel_path LIKE ? ESCAPE '\\') LIMIT 50`,
      ).all(base, `%/${likeEscape(base)}`, hasExt ? `%/${likeEscape(base)}` : `%/${likeEscape(base)}.%`) as { documentId: number; rel: string }[];
      for (const r of rows) {
        const rel = r.rel.replace(/\\/g, '/');
        const relNoExt = rel.replace(/\.[A-Za-z0-9]{1,5}$/, '');
        // Component-aligned: the named path ends with the file's relative path, or the file's path ends with it.
        const aligned = (a: string, b: string) => a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
        const ok = hasExt ? aligned(norm, rel) : aligned(norm, relNoExt) || aligned(`${norm}/__init__`, relNoExt) || aligned(`${norm}/index`, relNoExt);
        if (!ok) continue;
        // Only a unique-enough name: a bare `utils.py` matching ten files says little about any of them.
        if (rows.length > 8 && !norm.includes('/')) continue;
        add(r.documentId, (frameFiles.has(p) ? FRAME_BOOST : PATH_BOOST) * ISSUE_SIGNALS.pathBoost);
      }
    }
    if (filter.params.length > 0 && out.size > 0) {
      const ok = new Set(cached(`SELECT d.id FROM documents d JOIN sources s ON s.id = d.source_id LEFT JOIN roots rt ON rt.id = s.root_id JOIN chunks c ON c.document_id = d.id AND c.ordinal = 0 WHERE d.id IN (SELECT value FROM json_each(?)) AND ${filter.where}`).pluck().all(JSON.stringify([...out.keys()]), ...filter.params) as number[]);
      for (const d of [...out.keys()]) if (!ok.has(d)) out.delete(d);
    }
    return out;
  }

  /**
   * The best matching chunk of each document found by its path or symbols alone (its body may not use the query's
   * words), or its first chunk when none matches; under the same filters as the search.
   */
  function chunksOfDocuments(docs: number[], q: WeightedQuery, match: string, filter: ReturnType<typeof filterSql>): CandidateRow[] {
    const ids = JSON.stringify(docs);
    const matchedIds = cached(
      `SELECT c.id FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid ${HIT_JOINS}
       WHERE chunks_fts MATCH ? AND c.document_id IN (SELECT value FROM json_each(?)) AND ${filter.where}`,
    ).pluck().all(match, ids, ...filter.params) as number[];
    const scores = scoresOf(q, matchedIds);
    const matched = (cached(`SELECT c.id AS chunkId, c.document_id AS documentId, 0 AS score, s.path AS path, s.root AS root, s.rel_path AS relPath, d.external_id IS NULL AS isFile, c.line_start AS lineStart FROM chunks c ${HIT_JOINS} WHERE c.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(matchedIds)) as CandidateRow[]).map((r) => ({ ...r, score: scores.get(r.chunkId) ?? 0 }));
    const have = new Set(matched.map((r) => r.documentId));
    const rest = docs.filter((d) => !have.has(d));
    if (rest.length === 0) return matched;
    const first = cached(
      `SELECT c.id AS chunkId, c.document_id AS documentId, 0 AS score, s.path AS path, s.root AS root, s.rel_path AS relPath, d.external_id IS NULL AS isFile, c.line_start AS lineStart
       FROM chunks c ${HIT_JOINS}
       WHERE c.document_id IN (SELECT value FROM json_each(?)) AND c.ordinal = 0 AND ${filter.where}`,
    ).all(JSON.stringify(rest), ...filter.params) as CandidateRow[];
    return [...matched, ...first];
  }

  /**
   * Chunks holding one of the task's compound identifiers as a phrase; those not among `rows` yet join them with
   * their score for the query (a file that uses `package_name` may not rank on `package` and `name`). Which chunks
   * are looked at is decided by how well they match the phrases (FTS5's rank), ties by path and line: never by
   * row id, which would favour the oldest rows of an incrementally filled store (#35).
   */
  function identifierChunks(phrases: readonly string[][], q: WeightedQuery, filter: FilterSql, rows: KeyedRow[]): Set<number> {
    if (phrases.length === 0) return new Set();
    const phraseMatch = phrases.map((p) => `"${p.map((x) => x.replaceAll('"', '""')).join(' ')}"`).join(' OR ');
    const ranked = cached(
      `SELECT r.rowid AS chunkId, r.rank AS rank, s.path AS path, c.line_start AS lineStart
       FROM (SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?) r
       JOIN chunks c ON c.id = r.rowid JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id`,
    ).all(phraseMatch, PHRASE_CHUNKS * 4) as { chunkId: number; rank: number; path: string; lineStart: number }[];
    // FTS5's rank is lower-better; as a score, higher-better, ties by the stable key.
    const chosen = ranked
      .map((r) => ({ chunkId: r.chunkId, score: -r.rank, key: chunkKey(r.path, r.lineStart) }))
      .sort(byScoreThenKey)
      .slice(0, PHRASE_CHUNKS)
      .map((r) => r.chunkId);
    const found = new Set(chosen);
    const have = new Set(rows.map((r) => r.chunkId));
    const missing = chosen.filter((id) => !have.has(id)).sort((a, b) => a - b);
    if (missing.length > 0) {
      const scores = scoresOf(q, missing);
      const extra = cached(
        `SELECT c.id AS chunkId, c.document_id AS documentId, 0 AS score, s.path AS path, s.root AS root, s.rel_path AS relPath, d.external_id IS NULL AS isFile, c.line_start AS lineStart
         FROM chunks c ${HIT_JOINS}
         WHERE c.id IN (SELECT value FROM json_each(?)) AND ${filter.where}`,
      ).all(JSON.stringify(missing), ...filter.params) as CandidateRow[];
      rows.push(...withKeys(extra.map((r) => ({ ...r, score: scores.get(r.chunkId) ?? 0 })).filter((r) => r.score > 0)));
    }
    return found;
  }

  /** The scorer's rows loaded whole, once: their ranking fields now, the same row objects as hits at the end. */
  function candidateRows(scored: ScoredRow[], loaded: Map<number, LoadedRow>): CandidateRow[] {
    for (const row of load.all(JSON.stringify(scored.map((s) => s.rowid))) as LoadedRow[]) loaded.set(row.chunkId, row);
    const legacy = scored.filter((s) => loaded.get(s.rowid)?.relPath == null).map((s) => s.rowid);
    const roots = new Map<number, string>();
    if (legacy.length > 0) for (const r of rootsOf.all(JSON.stringify(legacy)) as { chunkId: number; root: string }[]) roots.set(r.chunkId, r.root);
    const out: CandidateRow[] = [];
    for (const s of scored) {
      const row = loaded.get(s.rowid);
      if (row) out.push({ chunkId: row.chunkId, documentId: row.documentId, score: s.score, path: row.path, root: roots.get(row.chunkId) ?? '', relPath: row.relPath ?? null, isFile: row.externalId == null ? 1 : 0, lineStart: row.lineStart });
    }
    return out;
  }

  function accepted(ids: number[], filter: FilterSql): Set<number> {
    const st = cached(`SELECT c.id FROM chunks c ${HIT_JOINS} WHERE c.id IN (SELECT value FROM json_each(?)) AND ${filter.where}`);
    return new Set(st.pluck().all(JSON.stringify(ids), ...filter.params) as number[]);
  }

  /** Hits in the given order with the given scores, loading the rows not loaded yet in one statement. */
  function hitsInOrder(scored: { chunkId: number; score: number }[], loaded: Map<number, LoadedRow>): SearchHit[] {
    const rest = scored.filter((s) => !loaded.has(s.chunkId));
    if (rest.length === scored.length) return loadHits(load, scored);
    const restHits = new Map(loadHits(load, rest).map((h) => [h.chunkId, h]));
    const out: SearchHit[] = [];
    for (const s of scored) {
      const row = loaded.get(s.chunkId);
      if (row) {
        // The row object becomes the hit: score last, the key order loadHits gives.
        (row as SearchHit).score = s.score;
        out.push(row as SearchHit);
      } else {
        // loadHits gave it this score already.
        const hit = restHits.get(s.chunkId);
        if (hit) out.push(hit);
      }
    }
    return out;
  }
}

type LoadedRow = Omit<SearchHit, 'score'>;

function relPathOf(r: { path: string; root: string; relPath: string | null }): string {
  if (r.relPath) return r.relPath;
  if (r.path === r.root) return r.path.slice(Math.max(r.path.lastIndexOf('/'), r.path.lastIndexOf('\\')) + 1);
  const under = r.path.length > r.root.length && r.path.startsWith(r.root) && (r.path[r.root.length] === '/' || r.path[r.root.length] === sep);
  return under ? r.path.slice(r.root.length + 1) : r.path;
}
