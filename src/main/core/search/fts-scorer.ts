import type { Database, Statement } from 'better-sqlite3';

/**
 * BM25 over an FTS5 table's own postings, scored in JS with the exact arithmetic of FTS5's bm25() (fts5_aux.c):
 * the same idf, average length, row lengths and per-instance column weights, added in the same order, so scores
 * and therefore rankings are bit-identical to `bm25(table, ...weights)`.
 *
 * Why: FTS5 evaluates bm25() per matching row, walking that row's position lists; an OR query of ten words matches
 * ~40 % of a corpus, and that walk is most of a query's time. Here each term's postings are read once through
 * fts5vocab, kept, and scored term-at-a-time over typed arrays. The cache is keyed on the FTS5 structure record,
 * which every committed write to the index changes, so a write by any connection invalidates it.
 *
 * It is an accelerator, never the only path: `topK` returns null (the caller runs its SQL) when a query term is
 * not exactly one token, inside an open transaction (FTS5 may hold pending rows in memory), on any SQLite error,
 * and for a connection's first query, so one-shot processes (the CLI) never pay for loading the row lengths.
 * After that the row lengths follow the index: a new version reads only the rows inserted since.
 */
export interface FtsScorer {
  /**
   * The `limit` best rows for the OR of `terms` (each one FTS5 phrase), best first (ties: lower rowid first),
   * with the score FTS5's bm25() would give negated (higher is better); rows for which `accept` is false are
   * skipped. Null: use FTS5 directly.
   */
  topK(terms: readonly string[], weights: readonly number[], limit: number, accept?: (rowids: number[]) => Set<number>): ScoredRow[] | null;
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

  // The version of the index the cache holds (its FTS5 structure record). A new version drops the postings and
  // idf; the row lengths are carried over and brought up to date.
  let structure: Buffer | null = null;
  // Queries of this version so far; the row lengths outlive versions, following the index by origin.
  let queriesSeen = 0;
  let lengths: RowLengths | undefined;
  let warming: ReturnType<typeof setTimeout> | null = null;
  let stale = true;
  let rowCount = 0;
  let avgdl = 0;
  const postings = new Map<string, Postings>();
  let cachedEntries = 0;
  let scores = new Float64Array(1024);
  // A query word -> its one FTS5 token (null: not exactly one); the tokenizer never changes, so this outlives versions.
  const stemOf = new Map<string, string | null>();

  function prepare() {
    const vocab = `temp.cp_vocab_${table}`;
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${vocab} USING fts5vocab(main, ${table}, instance)`);
    // The query's words go through FTS5's own tokenizer (porter, unicode61, diacritics) so stems match exactly.
    const tokenize = (db.prepare(`SELECT sql FROM main.sqlite_master WHERE name = ?`).pluck().get(table) as string).match(/tokenize\s*=\s*('(?:[^']|'')*')/i)?.[1] ?? "'unicode61'";
    const terms = `cp_terms_${table}`;
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${terms} USING fts5(x, tokenize = ${tokenize})`);
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${terms}_v USING fts5vocab(temp, ${terms}, instance)`);
    const columns = db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[];
    const hasOrigin = (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(`${table}_docsize`) as string[]).includes('origin');
    // Each instance comes back as one integer, row * columns + column: half the cost of a two-value row.
    const columnIndex = `CASE col ${columns.map((c, i) => `WHEN '${c.replaceAll("'", "''")}' THEN ${i}`).join(' ')} END`;
    return {
      columns: columns.length,
      structure: db.prepare(`SELECT block FROM main.${table}_data WHERE id = 10`).pluck(),
      averages: db.prepare(`SELECT block FROM main.${table}_data WHERE id = 1`).pluck(),
      // Tables with contentless_delete number every insert (origin), so later versions read only the new rows.
      // One string for all of them ("id:hex,..."): a Buffer per blob cost more than everything else in loading.
      lengthsSince: db.prepare(
        hasOrigin
          ? `SELECT group_concat(id || ':' || hex(sz)), max(origin) FROM main.${table}_docsize WHERE origin > ?`
          : `SELECT group_concat(id || ':' || hex(sz)), 0 FROM main.${table}_docsize WHERE ? IS NOT NULL`,
      ).raw(),
      instances: db.prepare(`SELECT doc * ${columns.length} + ${columnIndex} FROM ${vocab} WHERE term = ?`).pluck(),
      clearTerms: db.prepare(`DELETE FROM temp.${terms}`),
      addTerm: db.prepare(`INSERT INTO temp.${terms} (rowid, x) VALUES (?, ?)`),
      termTokens: db.prepare(`SELECT doc, term FROM temp.${terms}_v`).raw(),
      ln: db.prepare('SELECT ln(?)').pluck(),
    };
  }

  /** A new version of the index: postings and idf change; row lengths are brought up to date when next needed. */
  function reset(next: Buffer | null) {
    structure = next;
    queriesSeen = 0;
    stale = true;
    postings.clear();
    cachedEntries = 0;
    if (next === null) lengths = undefined;
  }

  /**
   * Reads the rows new since the last read into the row lengths (all of them the first time: ~40 ms for 100,000
   * chunks) after the current call returns, off the query path. The timer does not keep a process alive, so a
   * one-shot command exits without it.
   */
  function warmSoon(st: NonNullable<typeof statements>) {
    if (warming) return;
    warming = setTimeout(() => {
      warming = null;
      if (!db.open || db.inTransaction) return;
      try {
        db.transaction(() => {
          lengths ??= new RowLengths();
          lengths.update(st.lengthsSince as Statement, averages(st.averages.get() as Buffer)[0]);
        })();
      } catch {
        // The next query reads them itself, or FTS5 answers.
      }
    }, 0);
    warming.unref?.();
  }

  return {
    topK(terms, weights, limit, accept) {
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
          const current = st.structure.get() as Buffer | undefined;
          if (!current) return null;
          if (!structure || !structure.equals(current)) reset(Buffer.from(current));
          // The first query of each version goes to FTS5: right after a write (the watcher's edit, then a search)
          // every term's postings would be read again, which costs about what FTS5's own ranking does.
          if (++queriesSeen <= warmAfter) {
            warmSoon(st);
            return null;
          }
          lengths ??= new RowLengths();
          if (stale) {
            [rowCount, avgdl] = averages(st.averages.get() as Buffer);
            lengths.update(st.lengthsSince as Statement, rowCount);
            stale = false;
          }
          if (!lengths.usable()) return null;
          const stems = tokenizeTerms(st, terms);
          if (!stems) return null;
          return score(stems, weights, limit, accept, st);
        })();
      } catch {
        // Busy, locked, or a filter that failed: FTS5 answers this query, and nothing cached is trusted.
        reset(null);
        return null;
      }
    },
  };

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

  function score(stems: string[], weights: readonly number[], limit: number, accept: ((rowids: number[]) => Set<number>) | undefined, st: NonNullable<typeof statements>): ScoredRow[] {
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
    for (const p of lists) {
      const impact = impactsOf(p, w, weightKey, st);
      const rows = p.rows;
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
    if (!accept) return best(scores, n, Math.min(limit, n), order).map(result);
    // Filtered: walk the ranking in pages until enough rows pass.
    const ranked = Array.from({ length: n }, (_, i) => i).sort(order);
    const out: ScoredRow[] = [];
    const page = Math.max(64, limit * ACCEPT_PAGE);
    for (let from = 0; from < n && out.length < limit; from += page) {
      const slice = ranked.slice(from, from + page);
      const ok = accept(slice.map((s) => rowOf[s]!));
      for (const s of slice) if (out.length < limit && ok.has(rowOf[s]!)) out.push(result(s));
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

/** The `k` best of the first `n` slots under `order`, without sorting all n: the k-th best score by selection, then a sort of the few at or above it. */
function best(scores: Float64Array, n: number, k: number, order: (a: number, b: number) => number): number[] {
  if (k <= 0) return [];
  const threshold = kthLargest(scores.slice(0, n), k);
  const above: number[] = [];
  for (let s = 0; s < n; s++) if (scores[s]! >= threshold) above.push(s);
  return above.sort(order).slice(0, k);
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

/**
 * Each row's token count over all columns (FTS5's xColumnSize(-1)), from the docsize table's varints, in an array
 * indexed by row id, with the slot array queries share. Kept across versions of the index: only rows inserted since
 * (by origin) are read again; a deleted row's entry is never asked for, and a reused id comes back as a new origin.
 */
class RowLengths {
  private sizes = new Uint32Array(0);
  slots = new Int32Array(0);
  private maxRow = 0;
  private lastOrigin = 0;
  private sparse = false;

  get(row: number): number {
    return this.sizes[row]!;
  }

  /** False when row ids were too sparse for arrays (most chunks deleted since): FTS5 answers then. */
  usable(): boolean {
    return !this.sparse;
  }

  update(since: Statement, rowCount: number): void {
    const limit = rowCount * 4 + 65_536;
    this.sparse = this.maxRow > limit;
    const [list, maxOrigin] = since.get(this.lastOrigin) as [string | null, number | null];
    if (maxOrigin !== null && maxOrigin > this.lastOrigin) this.lastOrigin = maxOrigin;
    if (!list) return;
    // "id:hex,id:hex,...": the id in decimal, then the docsize blob's bytes, varints of each column's token count.
    for (let at = 0; at < list.length; ) {
      let id = 0;
      let c = list.charCodeAt(at);
      for (; c !== 58; c = list.charCodeAt(++at)) id = id * 10 + (c - 48);
      at++;
      let total = 0;
      let v = 0;
      for (; at < list.length && list.charCodeAt(at) !== 44; at += 2) {
        const byte = (hexDigit(list.charCodeAt(at)) << 4) | hexDigit(list.charCodeAt(at + 1));
        v = v * 128 + (byte & 0x7f);
        if ((byte & 0x80) === 0) {
          total += v;
          v = 0;
        }
      }
      at++;
      if (id > limit) {
        this.sparse = true;
        continue;
      }
      if (id >= this.sizes.length) this.grow(id, limit);
      this.sizes[id] = total;
      if (id > this.maxRow) this.maxRow = id;
    }
  }

  private grow(id: number, limit: number): void {
    const length = Math.min(limit + 1, Math.max(id + 1, Math.ceil(this.sizes.length * 1.5), 1024));
    const sizes = new Uint32Array(length);
    sizes.set(this.sizes);
    this.sizes = sizes;
    const slots = new Int32Array(length).fill(-1);
    slots.set(this.slots);
    this.slots = slots;
  }
}

const hexDigit = (c: number) => (c <= 57 ? c - 48 : c - 55);

/** The averages record: the row count, then each column's token total; returns [rows, average row length]. */
function averages(block: Buffer): [number, number] {
  let [rows, at] = readVarint(block, 0);
  let tokens = 0;
  while (at < block.length) {
    const [v, next] = readVarint(block, at);
    tokens += v;
    at = next;
  }
  return [rows, tokens / rows];
}

/** SQLite's varint: big-endian 7-bit groups with a continuation bit; the ninth byte carries 8 bits. */
function readVarint(buf: Buffer, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 9; i++) {
    const byte = buf[at + i]!;
    if (i === 8) return [v * 256 + byte, at + 9];
    v = v * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [v, at + i + 1];
  }
  return [v, at + 9];
}
