import type { Database, Statement } from 'better-sqlite3';
import { sep } from 'node:path';
import type { SearchHit } from '../../../shared/types.ts';
import { DEFAULT_RANK_SIGNALS, rankCandidates, type RankCandidate, type RankSignals } from './code-rank.ts';
import { roleWeigher } from './code-task.ts';
import { ftsMatchOf, queryTerms } from './fts-query.ts';
import { codeWordTerms, identifierPhrases } from './code-words.ts';
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
// Chunks holding an identifier phrase that are looked at, at most.
const PHRASE_CHUNKS = 200;

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
}

export function createBm25Retriever(db: Database, options: Bm25Weights | Bm25Options = {}): Retriever {
  const opts: Bm25Options = 'body' in options ? { weights: options } : options;
  const weights = opts.weights ?? DEFAULT_BM25_WEIGHTS;
  const w = [weights.title, weights.headings, weights.body];
  const signals = opts.signals === false ? null : (opts.signals ??{});
  const hasFields = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'doc_fields_fts'").get() !== undefined;
  // FTS5's bm25() is "lower is better"; scores are negated so every retriever returns "higher is better".
  const plain = db.prepare(
    `SELECT c.id AS chunkId, c.document_id AS documentId, -r.rank AS score, s.path AS path, s.root AS root, s.rel_path AS relPath, d.external_id IS NULL AS isFile
     FROM (SELECT rowid, bm25(chunks_fts, ?, ?, ?) AS rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank, rowid LIMIT ?) r
     JOIN chunks c ON c.id = r.rowid ${HIT_JOINS}
     ORDER BY r.rank, c.id`,
  );
  const fields = hasFields
    ? db.prepare(
        `SELECT rowid AS documentId, -bm25(doc_fields_fts, ?, ?) AS score FROM doc_fields_fts WHERE doc_fields_fts MATCH ?
         ORDER BY bm25(doc_fields_fts, ?, ?) LIMIT ?`,
      )
    : null;
  const load = loadHitsStatement(db);
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
    // Code-aware ranking also searches the query's code-word variants (camelCase parts, joined words, spellings).
    const terms = signals ? codeWordTerms(query.text) : queryTerms(query.text);
    const match = ftsMatchOf(terms);
    if (match === null || query.k <= 0) return [];
    const filter = filterSql(query.filters);
    const limit = signals ? query.k + EXTRA_CANDIDATES : query.k;
    const fast = scorer?.topK(terms, w, limit, filter.params.length === 0 ? undefined : (ids) => accepted(ids, filter));
    // Hit rows already loaded (the fast path loads its candidates whole); the rest are loaded at the end.
    const loaded = new Map<number, LoadedRow>();
    const rows = (fast
      ? candidateRows(fast, loaded)
      : filter.params.length === 0
      ? plain.all(...w, match, limit)
      : cached(
          `SELECT c.id AS chunkId, c.document_id AS documentId, -bm25(chunks_fts, ?, ?, ?) AS score, s.path AS path, s.root AS root, s.rel_path AS relPath, d.external_id IS NULL AS isFile
           FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid ${HIT_JOINS}
           WHERE chunks_fts MATCH ? AND ${filter.where}
           ORDER BY score DESC, c.id LIMIT ?`,
        ).all(...w, match, ...filter.params, limit)) as CandidateRow[];
    if (!signals) return hitsInOrder(rows.slice(0, query.k), loaded);

    const fieldScores = new Map<number, number>();
    if (fields) {
      const fw = [DOC_FIELD_WEIGHTS.path, DOC_FIELD_WEIGHTS.symbols];
      for (const f of fields.all(...fw, match, ...fw, FIELD_DOCS) as { documentId: number; score: number }[]) fieldScores.set(f.documentId, f.score);
    }
    const seenDocs = new Set(rows.map((r) => r.documentId));
    const missing = [...fieldScores.keys()].filter((d) => !seenDocs.has(d));
    if (missing.length > 0) rows.push(...chunksOfDocuments(missing, match, filter));

    const phrased = identifierChunks(query.text, match, filter, rows);
    const candidates: RankCandidate[] = rows.map((r) => ({ chunkId: r.chunkId, documentId: r.documentId, score: phrased.has(r.chunkId) ? r.score * (1 + IDENTIFIER_BOOST) : r.score, relPath: relPathOf(r), isFile: r.isFile === 1 }));
    const sig = { ...DEFAULT_RANK_SIGNALS, ...signals };
    const weigh = roleWeigher(query.text, sig);
    const ranked = rankCandidates(candidates, fieldScores, { signals, roleFactor: (p) => weigh(p).factor });
    return hitsInOrder(ranked.slice(0, query.k), loaded);
  }

  /**
   * The best matching chunk of each document found by its path or symbols alone (its body may not use the query's
   * words), or its first chunk when none matches; under the same filters as the search.
   */
  function chunksOfDocuments(docs: number[], match: string, filter: ReturnType<typeof filterSql>): CandidateRow[] {
    const ids = JSON.stringify(docs);
    const matched = cached(
      `SELECT c.id AS chunkId, c.document_id AS documentId, -bm25(chunks_fts, ?, ?, ?) AS score, s.path AS path, s.root AS root, s.rel_path AS relPath, d.external_id IS NULL AS isFile
       FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid ${HIT_JOINS}
       WHERE chunks_fts MATCH ? AND c.document_id IN (SELECT value FROM json_each(?)) AND ${filter.where}`,
    ).all(...w, match, ids, ...filter.params) as CandidateRow[];
    const have = new Set(matched.map((r) => r.documentId));
    const rest = docs.filter((d) => !have.has(d));
    if (rest.length === 0) return matched;
    const first = cached(
      `SELECT c.id AS chunkId, c.document_id AS documentId, 0 AS score, s.path AS path, s.root AS root, s.rel_path AS relPath, d.external_id IS NULL AS isFile
       FROM chunks c ${HIT_JOINS}
       WHERE c.document_id IN (SELECT value FROM json_each(?)) AND c.ordinal = 0 AND ${filter.where}`,
    ).all(JSON.stringify(rest), ...filter.params) as CandidateRow[];
    return [...matched, ...first];
  }

  /**
   * Chunks holding one of the query's compound identifiers as a phrase; those not among `rows` yet join them with
   * their BM25 score for `match` (a file that uses `package_name` may not rank on `package` and `name`).
   */
  function identifierChunks(text: string, match: string, filter: FilterSql, rows: CandidateRow[]): Set<number> {
    const phrases = identifierPhrases(text);
    if (phrases.length === 0) return new Set();
    const phraseMatch = phrases.map((p) => `"${p.map((w) => w.replaceAll('"', '""')).join(' ')}"`).join(' OR ');
    const ids = cached('SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid LIMIT ?').pluck().all(phraseMatch, PHRASE_CHUNKS) as number[];
    const found = new Set(ids);
    const have = new Set(rows.map((r) => r.chunkId));
    const missing = ids.filter((id) => !have.has(id));
    if (missing.length > 0) {
      rows.push(...(cached(
        `SELECT c.id AS chunkId, c.document_id AS documentId, -bm25(chunks_fts, ?, ?, ?) AS score, s.path AS path, s.root AS root, s.rel_path AS relPath, d.external_id IS NULL AS isFile
         FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid ${HIT_JOINS}
         WHERE chunks_fts MATCH ? AND chunks_fts.rowid IN (SELECT value FROM json_each(?)) AND ${filter.where}`,
      ).all(...w, match, JSON.stringify(missing), ...filter.params) as CandidateRow[]));
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
      if (row) out.push({ chunkId: row.chunkId, documentId: row.documentId, score: s.score, path: row.path, root: roots.get(row.chunkId) ?? '', relPath: row.relPath ?? null, isFile: row.externalId == null ? 1 : 0 });
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
