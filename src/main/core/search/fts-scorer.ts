import type { Database, Statement } from 'better-sqlite3';
import { averages, readLengths, type RowLengths } from './fts5-records.ts';

/**
 * BM25 over an FTS5 table's own postings, scored in JS with the exact arithmetic of FTS5's bm25() (fts5_aux.c):
 * the same idf, average length, row lengths and per-instance column weights, added in the same order, so scores
 * and therefore rankings are bit-identical to `bm25(table, ...weights)`.
 *
 * Why: FTS5 evaluates bm25() per matching row, walking that row's position lists; an OR query of ten words matches
 * ~40 % of a corpus, and that walk is most of a query's time. Here each term's postings are read once through
 * fts5vocab, kept, and scored term-at-a-time over typed arrays. The cache is keyed on the FTS5 structure record and
 * averages record together: every committed write that adds or removes a token changes the first, and every
 * inserted or deleted row changes the second (a row of no tokens flushes no segment), so a write by any connection
 * invalidates it.
 *
 * It is an accelerator, never the only path: `topK` returns null (the caller runs its SQL) when a query term is
 * not exactly one token, inside an open transaction (FTS5 may hold pending rows in memory), on any SQLite error,
 * and for the first query of each version of the index, so one-shot processes (the CLI) never pay for loading
 * the row lengths, and a search right after a write does not read every postings list again. The row lengths of a
 * new version are read after that first query, in the background (~40 ms for 100,000 chunks).
 *
 * One file over 600 lines on purpose: top-k, row scores, whole-file (group) scores and indexed word forms all read
 * the same per-version postings cache, row lengths and read transaction, which splitting would expose.
 */
export interface FtsScorer {
  /**
   * The `limit` best rows for the OR of `terms` (each one FTS5 phrase), best first (ties: lower rowid first),
   * with the score FTS5's bm25() would give negated (higher is better); rows for which `accept` is false are
   * skipped (see TopKOptions for term weights and ties). Null: use FTS5 directly.
   */
  topK(terms: readonly string[], weights: readonly number[], limit: number, accept?: (rowids: number[]) => Set<number>, options?: TopKOptions): ScoredRow[] | null;
  /**
   * BM25 over groups of rows as whole documents (a file's chunks as the file: term counts and lengths summed per
   * group, idf over groups), every group with a positive score. `groupSql` selects `id || ':' || group` for every
   * row as one group_concat string (read once per version of the index). Null when the postings cannot answer.
   */
  groupScores(terms: readonly string[], weights: readonly number[], groupSql: string, options?: TopKOptions): Map<number, number> | null;
  /**
   * Word forms the index holds (issue #32: "concatenating" should meet `concat`): for each word, its longest prefix
   * (at least `minShare` of it, five letters or more) that is an indexed token other than the word's own stem, in at
   * most `maxShare` of the rows; null for a word without one. Null when the index cannot be read this way.
   */
  indexedPrefixes(words: readonly string[], minShare?: number, maxShare?: number): (string | null)[] | null;
  /** The same score for the given rows only (0 for a row no term matches); null: use FTS5 directly. */
  scoreRows(terms: readonly string[], weights: readonly number[], rowids: readonly number[], options?: TopKOptions): Map<number, number> | null;
}

export interface TopKOptions {
  /** Each term's contribution × its weight (a weight of 1 changes nothing, bit for bit). */
  termWeights?: readonly number[];
  /** Rows tied with the last one kept come too (up to `limit` more), so the caller breaks ties by a stable key. */
  ties?: boolean;
  /**
   * Answer from the postings even on the first query of a version (reading the row lengths now): a caller that
   * must get the same answer whichever path serves it (group scores exist only here) asks for it.
   */
  force?: boolean;
}

export interface ScoredRow {
  rowid: number;
  score: number;
}

export interface FtsScorerOptions {
  /** Queries of each version of the index that FTS5 answers before the postings do (default 1). */
  warmAfter?: number;
  /** Cached postings entries (rows × terms, about 30 bytes each) kept across queries (default 1 million). */
  maxPostings?: number;
}

interface Postings {
  rows: Int32Array;
  /** Per row, its instance count in each column (rows.length × columns). */
  counts: Uint32Array;
  /** Each posting's BM25 term score, per column weights (see impactsOf). */
  impacts: Map<string, Float64Array>;
}

const K1 = 1.2;
const B = 0.75;
// Accepted rows are checked in pages of this many (times the limit) ranked candidates.
const ACCEPT_PAGE = 4;

const scorers = new WeakMap<Database, Map<string, FtsScorer>>();

/** One scorer (and one cache) per connection and table, shared by every retriever on that connection. */
export function ftsScorer(db: Database, table: string, options: FtsScorerOptions = {}): FtsScorer {
  let byTable = scorers.get(db);
  if (!byTable) scorers.set(db, (byTable = new Map()));
  let scorer = byTable.get(table);
  if (!scorer) byTable.set(table, (scorer = createFtsScorer(db, table, options)));
  return scorer;
}

export function createFtsScorer(db: Database, table: string, options: FtsScorerOptions = {}): FtsScorer {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new Error(`ftsScorer: not a table name: ${table}`);
  const warmAfter = options.warmAfter ?? 1;
  const maxPostings = options.maxPostings ?? 1_000_000;
  let statements: ReturnType<typeof prepare> | null = null;
  let broken = false;

  // The version of the index the cache holds: its FTS5 structure and averages records. A new version drops it all.
  let version: string | null = null;
  // Queries of this version so far, and of the one before (a version that saw one query at most, as under a watcher
  // with an edit before each search, does not make the next one read every row length in the background).
  let queriesSeen = 0;
  let previousQueries = Number.POSITIVE_INFINITY;
  // Row lengths, row count and average length, of the version named in `lengthsVersion`.
  let lengths: RowLengths | null = null;
  let lengthsVersion: string | null = null;
  let warming: ReturnType<typeof setTimeout> | null = null;
  let rowCount = 0;
  let avgdl = 0;
  const postings = new Map<string, Postings>();
  let cachedEntries = 0;
  let scores = new Float64Array(1024);
  // A query word -> its one FTS5 token (null: not exactly one); the tokenizer never changes, so this outlives versions.
  const stemOf = new Map<string, string | null>();
  // Row -> group (-1: none) of the version in groupsVersion, for the SQL in groupsSql.
  let groups: { of: Int32Array; count: number; lengths: Float64Array; avg: number } | null = null;
  let groupsVersion: string | null = null;
  let groupsSql: string | null = null;
  let groupScratch = new Float64Array(0);
  // fts5vocab's row table: which tokens the index holds, and in how many rows.
  let vocabRow: Statement | null = null;

  function prepare() {
    const vocab = `temp.cp_vocab_${table}`;
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${vocab} USING fts5vocab(main, ${table}, instance)`);
    // The query's words go through FTS5's own tokenizer (porter, unicode61, diacritics) so stems match exactly.
    const tokenize = (db.prepare(`SELECT sql FROM main.sqlite_master WHERE name = ?`).pluck().get(table) as string).match(/tokenize\s*=\s*('(?:[^']|'')*')/i)?.[1] ?? "'unicode61'";
    const terms = `cp_terms_${table}`;
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${terms} USING fts5(x, tokenize = ${tokenize})`);
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${terms}_v USING fts5vocab(temp, ${terms}, instance)`);
    const columns = db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[];
    // Each instance comes back as one integer, row * columns + column: half the cost of a two-value row.
    const columnIndex = `CASE col ${columns.map((c, i) => `WHEN '${c.replaceAll("'", "''")}' THEN ${i}`).join(' ')} END`;
    return {
      columns: columns.length,
      // The structure record (10) and the averages record (1), in one row: together they name a version.
      version: db.prepare(`SELECT hex(block) FROM main.${table}_data WHERE id IN (1, 10) ORDER BY id`).pluck(),
      averages: db.prepare(`SELECT block FROM main.${table}_data WHERE id = 1`).pluck(),
      // Every row's lengths as one string ("id:hex,..."): a Buffer per blob cost more than everything else in loading.
      lengths: db.prepare(`SELECT group_concat(id || ':' || hex(sz)) FROM main.${table}_docsize`).pluck(),
      instances: db.prepare(`SELECT doc * ${columns.length} + ${columnIndex} FROM ${vocab} WHERE term = ?`).pluck(),
      clearTerms: db.prepare(`DELETE FROM temp.${terms}`),
      addTerm: db.prepare(`INSERT INTO temp.${terms} (rowid, x) VALUES (?, ?)`),
      termTokens: db.prepare(`SELECT doc, term FROM temp.${terms}_v`).raw(),
      ln: db.prepare('SELECT ln(?)').pluck(),
    };
  }

  /** A new version of the index (null: unknown): the postings and their idf go; the row lengths are read again. */
  function reset(next: string | null) {
    version = next;
    previousQueries = queriesSeen;
    queriesSeen = 0;
    postings.clear();
    cachedEntries = 0;
  }

  function currentVersion(st: NonNullable<typeof statements>): string | null {
    const parts = st.version.all() as string[];
    return parts.length === 2 ? parts.join(':') : null;
  }

  /** The row lengths of the current version, read unless already read (call inside a read transaction). */
  function loadLengths(st: NonNullable<typeof statements>, current: string): void {
    if (lengthsVersion === current) return;
    [rowCount, avgdl] = averages(st.averages.get() as Buffer);
    lengths = readLengths((st.lengths.get() as string | null) ?? '', rowCount, lengths);
    lengthsVersion = current;
  }

  /**
   * Reads the current version's row lengths (~40 ms for 100,000 chunks) after the current call returns, off the
   * query path. The timer does not keep a process alive, so a one-shot command exits without it.
   */
  function warmSoon(st: NonNullable<typeof statements>) {
    if (warming) return;
    warming = setTimeout(() => {
      warming = null;
      if (!db.open || db.inTransaction) return;
      try {
        db.transaction(() => {
          const current = currentVersion(st);
          if (current !== null) loadLengths(st, current);
        })();
      } catch {
        // The next query reads them itself, or FTS5 answers.
      }
    }, 0);
    warming.unref?.();
  }

  return {
    scoreRows: (terms, weights, rowids, options = {}) => scoreRows(terms, weights, rowids, options),
    groupScores: (terms, weights, sql, options = {}) => groupScores(terms, weights, sql, options),
    indexedPrefixes,
    topK(terms, weights, limit, accept, options = {}) {
      if (broken || db.inTransaction || terms.length === 0 || limit <= 0) return null;
      try {
        statements ??= prepare();
      } catch {
        // A store this code cannot read this way (no fts5vocab, odd schema): FTS5 answers from now on.
        broken = true;
        return null;
      }
      const st = statements;
      try {
        // One read transaction: the structure record, row lengths and postings all come from one version.
        return db.transaction(() => {
          const current = currentVersion(st);
          if (current === null) return null;
          if (version !== current) reset(current);
          // The first query of each version goes to FTS5: right after a write (the watcher's edit, then a search)
          // every term's postings would be read again, which costs about what FTS5's own ranking does.
          if (++queriesSeen <= warmAfter && !options.force) {
            if (lengths === null || previousQueries > warmAfter) warmSoon(st);
            return null;
          }
          loadLengths(st, current);
          if (!lengths || lengths.sparse) return null;
          const stems = tokenizeTerms(st, terms);
          if (!stems) return null;
          return score(stems, weights, limit, accept, st, options);
        })();
      } catch {
        // Busy, locked, or a filter that failed: FTS5 answers this query, and nothing cached is trusted.
        reset(null);
        lengthsVersion = null;
        return null;
      }
    },
  };


  function loadGroups(sql: string, current: string): void {
    if (groupsVersion === current && groupsSql === sql && groups) return;
    const list = (db.prepare(sql).pluck().get() as string | null) ?? '';
    const max = lengths!.sizes.length;
    const of = new Int32Array(max).fill(-1);
    let maxGroup = -1;
    for (const pair of list === '' ? [] : list.split(',')) {
      const at = pair.indexOf(':');
      const row = Number(pair.slice(0, at));
      const g = Number(pair.slice(at + 1));
      if (row < max) of[row] = g;
      if (g > maxGroup) maxGroup = g;
    }
    const len = new Float64Array(maxGroup + 1);
    const seen = new Uint8Array(maxGroup + 1);
    let count = 0;
    let total = 0;
    for (let row = 0; row < max; row++) {
      const g = of[row]!;
      if (g < 0) continue;
      const l = lengths!.sizes[row]!;
      len[g] = len[g]! + l;
      total += l;
      if (!seen[g]) {
        seen[g] = 1;
        count++;
      }
    }
    groups = { of, count, lengths: len, avg: count > 0 ? total / count : 0 };
    groupsVersion = current;
    groupsSql = sql;
  }

  function groupScores(terms: readonly string[], weights: readonly number[], sql: string, options: TopKOptions): Map<number, number> | null {
    if (broken || db.inTransaction || terms.length === 0) return null;
    try {
      statements ??= prepare();
    } catch {
      broken = true;
      return null;
    }
    const st = statements;
    try {
      return db.transaction(() => {
        const current = currentVersion(st);
        if (current === null) return null;
        if (version !== current) reset(current);
        loadLengths(st, current);
        if (!lengths || lengths.sparse) return null;
        loadGroups(sql, current);
        const stems = tokenizeTerms(st, terms);
        if (!stems || !groups || groups.count === 0) return null;
        const g = groups;
        const nCols = st.columns;
        const w = Array.from({ length: nCols }, (_, c) => (c < weights.length ? weights[c]! : 1));
        if (groupScratch.length < g.lengths.length) groupScratch = new Float64Array(g.lengths.length);
        const tf = groupScratch;
        const out = new Map<number, number>();
        for (const [t, stem] of stems.entries()) {
          const p = postingsOf(stem, st);
          const touched: number[] = [];
          for (let j = 0; j < p.rows.length; j++) {
            const group = g.of[p.rows[j]!] ?? -1;
            if (group < 0) continue;
            let freq = 0;
            for (let c = 0; c < nCols; c++) freq += p.counts[j * nCols + c]! * w[c]!;
            if (tf[group] === 0) touched.push(group);
            tf[group] = tf[group]! + freq;
          }
          const df = touched.length;
          if (df === 0) continue;
          const idf = Math.max(Math.log((g.count - df + 0.5) / (df + 0.5)), 1e-6);
          const tw = options.termWeights?.[t] ?? 1;
          for (const group of touched) {
            const f = tf[group]!;
            tf[group] = 0;
            const s = tw * idf * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * g.lengths[group]!) / g.avg)));
            out.set(group, (out.get(group) ?? 0) + s);
          }
        }
        return out;
      })();
    } catch {
      reset(null);
      lengthsVersion = null;
      return null;
    }
  }

  function indexedPrefixes(words: readonly string[], minShare = 0.45, maxShare = 0.2): (string | null)[] | null {
    if (broken || db.inTransaction || words.length === 0) return null;
    try {
      statements ??= prepare();
      if (!vocabRow) {
        db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.cp_vocabrow_${table} USING fts5vocab(main, ${table}, row)`);
        vocabRow = db.prepare(`SELECT doc FROM temp.cp_vocabrow_${table} WHERE term = ?`).pluck();
      }
    } catch {
      broken = true;
      return null;
    }
    const st = statements;
    try {
      return db.transaction(() => {
        const rows = (db.prepare(`SELECT count(*) FROM main.${table}_docsize`).pluck().get() as number) || 1;
        return words.map((w) => {
          const own = tokenizeTerms(st, [w])?.[0] ?? null;
          const min = Math.max(5, Math.ceil(w.length * minShare));
          for (let n = w.length - 1; n >= min; n--) {
            const prefix = w.slice(0, n);
            if (prefix === own) continue;
            const docs = vocabRow!.get(prefix) as number | undefined;
            if (docs !== undefined && docs > 0 && docs <= maxShare * rows && tokenizeTerms(st, [prefix])?.[0] === prefix) return prefix;
          }
          return null;
        });
      })();
    } catch {
      return null;
    }
  }

  function scoreRows(terms: readonly string[], weights: readonly number[], rowids: readonly number[], options: TopKOptions): Map<number, number> | null {
    if (broken || db.inTransaction || !statements || terms.length === 0) return null;
    const st = statements;
    try {
      return db.transaction(() => {
        const current = currentVersion(st);
        // Only a version whose row lengths are loaded: the postings of this query's terms were read by its topK.
        if (current === null || version !== current || lengthsVersion !== current || !lengths || lengths.sparse) return null;
        const stems = tokenizeTerms(st, terms);
        if (!stems) return null;
        const nCols = st.columns;
        const w = Array.from({ length: nCols }, (_, c) => (c < weights.length ? weights[c]! : 1));
        const weightKey = w.join(',');
        const out = new Map<number, number>(rowids.map((r) => [r, 0]));
        for (const [t, stem] of stems.entries()) {
          const p = postingsOf(stem, st);
          const impact = impactsOf(p, w, weightKey, st);
          const tw = options.termWeights?.[t] ?? 1;
          for (const r of rowids) {
            const j = lowerBound(p.rows, r);
            if (j < p.rows.length && p.rows[j] === r) out.set(r, out.get(r)! + (tw === 1 ? impact[j]! : impact[j]! * tw));
          }
        }
        return out;
      })();
    } catch {
      return null;
    }
  }

  function tokenizeTerms(st: NonNullable<typeof statements>, terms: readonly string[]): string[] | null {
    if (stemOf.size > 10_000) stemOf.clear();
    const unknown = terms.filter((t) => !stemOf.has(t));
    if (unknown.length > 0) {
      const out = tokenizeUncached(st, unknown);
      if (out) unknown.forEach((t, i) => stemOf.set(t, out[i]!));
      // Some term is not one token: find which, so the others are known next time.
      else for (const t of unknown) stemOf.set(t, tokenizeUncached(st, [t])?.[0] ?? null);
    }
    const stems = terms.map((t) => stemOf.get(t));
    return stems.every((t) => typeof t === 'string') ? (stems as string[]) : null;
  }

  function tokenizeUncached(st: NonNullable<typeof statements>, terms: readonly string[]): string[] | null {
    st.clearTerms.run();
    terms.forEach((t, i) => st.addTerm.run(i + 1, t));
    const tokens = st.termTokens.all() as [number, string][];
    st.clearTerms.run();
    const out: (string | undefined)[] = new Array(terms.length);
    for (const [doc, token] of tokens) {
      // Two tokens in one term make it a phrase, which postings alone cannot match.
      if (out[doc - 1] !== undefined && out[doc - 1] !== token) return null;
      out[doc - 1] = token;
    }
    return out.every((t) => t !== undefined) && tokens.length === terms.length ? (out as string[]) : null;
  }

  function postingsOf(stem: string, st: NonNullable<typeof statements>): Postings {
    const hit = postings.get(stem);
    if (hit) {
      // Most recently used last, so eviction drops the oldest.
      postings.delete(stem);
      postings.set(stem, hit);
      return hit;
    }
    const nCols = st.columns;
    const instances = st.instances.all(stem) as number[];
    const rows: number[] = [];
    const counts: number[] = [];
    let last = -1;
    for (const packed of instances) {
      const doc = Math.floor(packed / nCols);
      if (doc !== last) {
        rows.push(doc);
        for (let c = 0; c < nCols; c++) counts.push(0);
        last = doc;
      }
      counts[(rows.length - 1) * nCols + (packed % nCols)]!++;
    }
    const p: Postings = { rows: Int32Array.from(rows), counts: Uint32Array.from(counts), impacts: new Map() };
    postings.set(stem, p);
    cachedEntries += rows.length;
    for (const [key, old] of postings) {
      if (cachedEntries <= maxPostings || key === stem) break;
      postings.delete(key);
      cachedEntries -= old.rows.length;
    }
    return p;
  }

  function score(stems: string[], weights: readonly number[], limit: number, accept: ((rowids: number[]) => Set<number>) | undefined, st: NonNullable<typeof statements>, options: TopKOptions): ScoredRow[] {
    const termWeights = options.termWeights;
    const nCols = st.columns;
    const w = Array.from({ length: nCols }, (_, c) => (c < weights.length ? weights[c]! : 1));
    const weightKey = w.join(',');
    const slots = lengths!.slots;
    // Slots are handed out in first-seen order; rowOf maps them back to rows.
    const rowOf: number[] = [];
    const lists = stems.map((stem) => postingsOf(stem, st));
    const total = lists.reduce((sum, p) => sum + p.rows.length, 0);
    if (scores.length < total) scores = new Float64Array(Math.max(total, scores.length * 2));
    const acc = scores;
    // Term at a time, phrases in query order: each row's sum is built in the order fts5Bm25Function adds it.
    for (const [t, p] of lists.entries()) {
      const impact = impactsOf(p, w, weightKey, st);
      const rows = p.rows;
      const tw = termWeights?.[t] ?? 1;
      if (tw !== 1) {
        for (let j = 0; j < rows.length; j++) {
          const row = rows[j]!;
          let slot = slots[row]!;
          if (slot < 0) {
            slot = rowOf.length;
            slots[row] = slot;
            rowOf.push(row);
            acc[slot] = 0.0;
          }
          acc[slot] = acc[slot]! + impact[j]! * tw;
        }
        continue;
      }
      for (let j = 0; j < rows.length; j++) {
        const row = rows[j]!;
        let slot = slots[row]!;
        if (slot < 0) {
          slot = rowOf.length;
          slots[row] = slot;
          rowOf.push(row);
          acc[slot] = 0.0;
        }
        acc[slot] = acc[slot]! + impact[j]!;
      }
    }
    for (const row of rowOf) slots[row] = -1;
    const n = rowOf.length;
    const order = (a: number, b: number) => scores[b]! - scores[a]! || rowOf[a]! - rowOf[b]!;
    const result = (slot: number): ScoredRow => ({ rowid: rowOf[slot]!, score: scores[slot]! });
    if (!accept) return best(scores, n, Math.min(limit, n), order, options.ties ? limit : 0).map(result);
    // Filtered: walk the ranking in pages until enough rows pass.
    const ranked = Array.from({ length: n }, (_, i) => i).sort(order);
    const out: ScoredRow[] = [];
    const page = Math.max(64, limit * ACCEPT_PAGE);
    for (let from = 0; from < n && out.length < limit; from += page) {
      const slice = ranked.slice(from, from + page);
      const ok = accept(slice.map((s) => rowOf[s]!));
      for (const s of slice) if (out.length < limit && ok.has(rowOf[s]!)) out.push(result(s));
    }
    // Rows tied with the last one kept, so the caller's stable key decides among them.
    if (options.ties && out.length === limit) {
      const last = out[out.length - 1]!.score;
      const at = ranked.findIndex((s) => rowOf[s] === out[out.length - 1]!.rowid);
      const tied = ranked.slice(at + 1).filter((s) => scores[s] === last).slice(0, limit);
      if (tied.length > 0) {
        const ok = accept(tied.map((s) => rowOf[s]!));
        for (const s of tied) if (ok.has(rowOf[s]!)) out.push(result(s));
      }
    }
    return out;
  }

  /** Each posting's term score under these weights (kept per weights, since they only change with the index). */
  function impactsOf(p: Postings, w: number[], weightKey: string, st: NonNullable<typeof statements>): Float64Array {
    const kept = p.impacts.get(weightKey);
    if (kept) return kept;
    const nCols = w.length;
    const nHit = p.rows.length;
    // SQLite's ln() is the C library's log(), as FTS5 uses; V8's Math.log differs in the last bit now and then.
    const idf = Math.max(st.ln.get((rowCount - nHit + 0.5) / (nHit + 0.5)) as number, 0) || 1e-6;
    const impact = new Float64Array(nHit);
    for (let j = 0; j < nHit; j++) {
      let freq = 0;
      for (let c = 0; c < nCols; c++) {
        const n = p.counts[j * nCols + c]!;
        // One addition per instance, as FTS5 does: n * w can round differently from w + w + ... for some weights.
        for (let i = 0; i < n; i++) freq += w[c]!;
      }
      const D = lengths!.get(p.rows[j]!);
      impact[j] = idf * ((freq * (K1 + 1.0)) / (freq + K1 * (1 - B + (B * D) / avgdl)));
    }
    if (p.impacts.size > 4) p.impacts.clear();
    p.impacts.set(weightKey, impact);
    return impact;
  }
}

/**
 * The `k` best of the first `n` slots under `order`, without sorting all n: the k-th best score by selection, then a
 * sort of the few at or above it; slots tied with the k-th come too, `ties` at most.
 */
function best(scores: Float64Array, n: number, k: number, order: (a: number, b: number) => number, ties = 0): number[] {
  if (k <= 0) return [];
  const threshold = kthLargest(scores.slice(0, n), k);
  const above: number[] = [];
  for (let s = 0; s < n; s++) if (scores[s]! >= threshold) above.push(s);
  const sorted = above.sort(order);
  let end = k;
  while (end < sorted.length && end < k + ties && scores[sorted[end]!] === scores[sorted[k - 1]!]) end++;
  return sorted.slice(0, end);
}

function lowerBound(a: Int32Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Hoare's quickselect (middle pivot) on a scratch copy: the k-th largest value, k from 1. */
export function kthLargest(a: Float64Array, k: number): number {
  const target = a.length - k;
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return a[target]!;
}
