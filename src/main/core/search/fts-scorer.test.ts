import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SearchFilters } from '../../../shared/types.ts';
import { ingestPaths } from '../ingest/index.ts';
import { openStore } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { createBm25Retriever } from './bm25.ts';
import { createFtsScorer, kthLargest } from './fts-scorer.ts';

const tmp = tempDirs('cp-fts-scorer-');
afterEach(() => tmp.cleanup());

const TOKENIZE = "tokenize = 'porter unicode61 remove_diacritics 2'";
const WORDS = ['cell', 'cells', 'protein', 'running', 'runs', 'gene', 'expression', 'naïve', 'café', 'tumour', 'mouse', 'mice', 'signal', 'binding', 'kinase', 'receptor', 'stress', 'insulin', 'the', 'of'];

/** A deterministic pseudo-random corpus in a table shaped like chunks_fts (three columns, contentless, deletable). */
function corpus(db: Db, rows: number, seed = 7, create = true, first = 1): void {
  if (create) db.exec(`CREATE VIRTUAL TABLE f USING fts5(title, headings, body, content = '', contentless_delete = 1, ${TOKENIZE})`);
  let x = seed;
  const rnd = (n: number) => ((x = (x * 1103515245 + 12345) % 2147483648), x % n);
  const text = (n: number) => Array.from({ length: n }, () => WORDS[rnd(WORDS.length)]).join(' ');
  const insert = db.prepare('INSERT INTO f (rowid, title, headings, body) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = first; i < first + rows; i++) insert.run(i, text(1 + rnd(4)), text(rnd(3)), text(5 + rnd(60)));
  })();
}

/** What FTS5 itself says: rows and scores (negated, higher is better), ties by rowid. */
function fts5Top(db: Db, terms: string[], w: number[], limit: number, where = '1'): { rowid: number; score: number }[] {
  const match = terms.map((t) => `"${t}"`).join(' OR ');
  return db
    .prepare(`SELECT rowid, -bm25(f, ?, ?, ?) AS score FROM f WHERE f MATCH ? AND ${where} ORDER BY bm25(f, ?, ?, ?), rowid LIMIT ?`)
    .all(...w, match, ...w, limit) as { rowid: number; score: number }[];
}

const QUERIES = [['cell'], ['cells', 'protein'], ['running', 'gene', 'expression'], ['naïve', 'café', 'kinase'], ['mice', 'mouse', 'stress', 'insulin', 'receptor'], ['the', 'of', 'signal']];
const WEIGHTS = [[1.25, 1.25, 1], [1.1, 0.3, 1.7], [1, 1, 1]];

describe('FTS5 postings scorer', () => {
  it('gives exactly the rows and scores of FTS5 bm25(), for several queries and column weights', () => {
    const db = new Database(':memory:');
    corpus(db, 600);
    const scorer = createFtsScorer(db, 'f', { warmAfter: 0 });
    for (const w of WEIGHTS) {
      for (const terms of QUERIES) {
        for (const limit of [1, 10, 200, 1000]) expect(scorer.topK(terms, w, limit), `${terms} ${w} ${limit}`).toEqual(fts5Top(db, terms, w, limit));
      }
    }
  });

  it('follows writes by this or another connection: inserts, deletes (tombstones) and updates', () => {
    const file = join(tmp.make(), 'f.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    corpus(db, 300);
    const scorer = createFtsScorer(db, 'f', { warmAfter: 0 });
    const check = () => {
      for (const terms of QUERIES) expect(scorer.topK(terms, [1.25, 1.25, 1], 50)).toEqual(fts5Top(db, terms, [1.25, 1.25, 1], 50));
    };
    check();
    db.prepare('DELETE FROM f WHERE rowid % 3 = 0').run();
    check();
    const other = new Database(file);
    other.prepare('INSERT INTO f (rowid, title, headings, body) VALUES (1000, ?, ?, ?)').run('cell cell cell', 'protein', 'gene expression running');
    other.prepare('DELETE FROM f WHERE rowid = 1').run();
    other.close();
    check();
    const cell = scorer.topK(['cell'], [1.25, 1.25, 1], 1000)!.map((r) => r.rowid);
    expect(cell).toContain(1000);
    expect(cell).not.toContain(1);
    db.close();
  });

  it('loads the row lengths in the background after the first query, and keeps them current across writes', async () => {
    const db = new Database(':memory:');
    corpus(db, 300);
    const scorer = createFtsScorer(db, 'f', { warmAfter: 1 });
    expect(scorer.topK(['cell'], [1, 1, 1], 10)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 20));
    db.prepare("INSERT INTO f (rowid, title, body) VALUES (301, 'cell protein', 'cell cell')").run();
    db.prepare('DELETE FROM f WHERE rowid = 5').run();
    expect(scorer.topK(['cell', 'protein'], [1, 1, 1], 400)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(scorer.topK(['cell', 'protein'], [1.25, 1.25, 1], 400)).toEqual(fts5Top(db, ['cell', 'protein'], [1.25, 1.25, 1], 400));
    db.close();
  });

  it('reads a reused row id again: the highest row deleted, its id given to a new row of another length', () => {
    const db = new Database(':memory:');
    corpus(db, 200);
    const scorer = createFtsScorer(db, 'f', { warmAfter: 0 });
    expect(scorer.topK(['cell', 'gene'], [1, 1, 1], 300)).toEqual(fts5Top(db, ['cell', 'gene'], [1, 1, 1], 300));
    db.prepare('DELETE FROM f WHERE rowid = 200').run();
    db.prepare("INSERT INTO f (rowid, title, headings, body) VALUES (200, 'cell', '', ?)").run('gene '.repeat(90));
    expect(scorer.topK(['cell', 'gene'], [1, 1, 1], 300)).toEqual(fts5Top(db, ['cell', 'gene'], [1, 1, 1], 300));
  });

  it('notices rows of no tokens (no segment is written, the row count changes) and a delete-all', () => {
    const db = new Database(':memory:');
    corpus(db, 300);
    const scorer = createFtsScorer(db, 'f', { warmAfter: 0 });
    const q = ['cell', 'protein', 'kinase'];
    const check = () => expect(scorer.topK(q, [1.25, 1.25, 1], 1000)).toEqual(fts5Top(db, q, [1.25, 1.25, 1], 1000));
    check();
    const structure = () => db.prepare('SELECT block FROM f_data WHERE id = 10').pluck().get();
    const before = structure();
    for (let i = 0; i < 20; i++) db.prepare("INSERT INTO f (rowid, title, headings, body) VALUES (?, '', '', '}}} ---')").run(1000 + i);
    expect(structure()).toEqual(before);
    check();
    db.prepare("INSERT INTO f (rowid, title, body) VALUES (1100, 'cell', ?)").run('kinase '.repeat(40));
    check();
    db.exec("INSERT INTO f (f) VALUES ('delete-all')");
    corpus(db, 300, 99, false);
    check();
  });

  it('answers again, exactly, when sparse row ids become dense (rows skipped while sparse are read)', () => {
    const db = new Database(':memory:');
    corpus(db, 10);
    corpus(db, 1000, 13, false, 100_001);
    const scorer = createFtsScorer(db, 'f', { warmAfter: 0 });
    const q = ['cell', 'protein', 'kinase'];
    expect(scorer.topK(q, [1.25, 1.25, 1], 50)).toBeNull();
    corpus(db, 11_000, 17, false, 101_001);
    expect(scorer.topK(q, [1.25, 1.25, 1], 100_000)).toEqual(fts5Top(db, q, [1.25, 1.25, 1], 100_000));
  });

  it('skips rows the filter refuses, walking the ranking until enough pass', () => {
    const db = new Database(':memory:');
    corpus(db, 800);
    const scorer = createFtsScorer(db, 'f', { warmAfter: 0 });
    const pages: number[] = [];
    const odd = (ids: number[]) => (pages.push(ids.length), new Set(ids.filter((id) => id % 7 === 0)));
    expect(scorer.topK(['cells', 'protein', 'stress'], [1, 1, 1], 30, odd)).toEqual(fts5Top(db, ['cells', 'protein', 'stress'], [1, 1, 1], 30, 'rowid % 7 = 0'));
    expect(pages.length).toBeGreaterThan(1);
  });

  it('gives the same answers with a postings cache too small to keep anything', () => {
    const db = new Database(':memory:');
    corpus(db, 400);
    const scorer = createFtsScorer(db, 'f', { warmAfter: 0, maxPostings: 10 });
    for (let round = 0; round < 2; round++) for (const terms of QUERIES) expect(scorer.topK(terms, [1.25, 1.25, 1], 20)).toEqual(fts5Top(db, terms, [1.25, 1.25, 1], 20));
  });

  it('leaves the query to FTS5 when it cannot answer exactly', () => {
    const db = new Database(':memory:');
    corpus(db, 50);
    const scorer = createFtsScorer(db, 'f', { warmAfter: 1 });
    // The first query of each version of the index: FTS5 (a one-shot process never loads row lengths, and right
    // after a write every term's postings would be read again); the next ones: the postings.
    expect(scorer.topK(['cell'], [1, 1, 1], 5)).toBeNull();
    expect(scorer.topK(['cell'], [1, 1, 1], 5)).not.toBeNull();
    db.prepare("INSERT INTO f (rowid, body) VALUES (999, 'cell')").run();
    expect(scorer.topK(['cell'], [1, 1, 1], 100)).toBeNull();
    expect(scorer.topK(['cell'], [1, 1, 1], 100)).toEqual(fts5Top(db, ['cell'], [1, 1, 1], 100));
    // A term that the tokenizer splits in two is a phrase, which postings cannot match.
    expect(scorer.topK(['cell', 'gene expression'], [1, 1, 1], 5)).toBeNull();
    expect(scorer.topK(['cell'], [1, 1, 1], 5)).not.toBeNull();
    // Inside a transaction FTS5 may hold rows not yet in its index.
    db.transaction(() => expect(scorer.topK(['cell'], [1, 1, 1], 5)).toBeNull())();
    expect(scorer.topK([], [1, 1, 1], 5)).toBeNull();
    expect(() => createFtsScorer(db, 'f; DROP TABLE f')).toThrow(/not a table name/);
  });

  it('leaves the query to FTS5 when row ids are too sparse for an array', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE f USING fts5(title, headings, body, content = '', contentless_delete = 1, ${TOKENIZE})`);
    db.prepare("INSERT INTO f (rowid, body) VALUES (1, 'cell'), (50000000, 'cell')").run();
    const scorer = createFtsScorer(db, 'f', { warmAfter: 0 });
    expect(scorer.topK(['cell'], [1, 1, 1], 5)).toBeNull();
  });

  it('selects the k-th largest value like a sort does, duplicates included', () => {
    let x = 3;
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + (trial % 37) * 3;
      const values = Float64Array.from({ length: n }, () => ((x = (x * 69069 + 1) % 4294967296), Math.floor(x / 2 ** 28)));
      const sorted = [...values].sort((a, b) => b - a);
      for (const k of [1, Math.ceil(n / 2), n]) expect(kthLargest(values.slice(), k)).toBe(sorted[k - 1]);
    }
  });
});

describe('bm25 retriever: postings scorer and FTS5 agree', () => {
  it('returns the same hits from FTS5 (first query after a change) and from the postings (the next)', async () => {
    const root = tmp.make();
    writeTree(root, {
      'src/cache.ts': 'export class LruCache {\n  // evicts the least recently used entry when capacity is reached\n  evict(): void {}\n  get(key: string) { return key; }\n}\n',
      'src/cache.test.ts': 'import { LruCache } from "./cache";\ntest("evicts", () => new LruCache().evict());\n',
      'docs/cache.md': '# Cache\n\nThe cache evicts entries when capacity is reached.\n\n## Capacity\n\nCapacity is a number of entries.\n',
      'notes.txt': 'Nothing about caching here, only capacity planning for the garden.\n',
    });
    const store = openStore(':memory:');
    await ingestPaths(store.db, [root]);
    const viaPostings = createBm25Retriever(store.db);
    const viaFts5 = createBm25Retriever(store.db, { postings: false });
    await viaPostings.search({ text: 'warm up', k: 1 });
    for (const text of ['cache capacity evicts', 'LruCache evict', 'capacity garden']) {
      const filterSets: (SearchFilters | undefined)[] = [undefined, { exclude: ['**/*.test.ts'] }, { types: ['markdown'] }];
      for (const filters of filterSets) {
        const a = await viaPostings.search({ text, k: 10, filters });
        const b = await viaFts5.search({ text, k: 10, filters });
        expect(a.length, text).toBeGreaterThan(0);
        // Same hits, same scores, same key order (packets hash what they cite).
        expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      }
    }
    store.close();
  });

  it('breaks ties at the cut-off the same way (by chunk id), so a packet does not depend on which path answered', async () => {
    const root = tmp.make();
    // Twelve files with the same text: twelve chunks with one score, more than k.
    writeTree(root, Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`notes/copy-${String(i).padStart(2, '0')}.txt`, 'The retry loop backs off exponentially.\n'])));
    const store = openStore(':memory:');
    await ingestPaths(store.db, [root]);
    const viaPostings = createBm25Retriever(store.db, { signals: false });
    const viaFts5 = createBm25Retriever(store.db, { signals: false, postings: false });
    await viaPostings.search({ text: 'warm up', k: 1 });
    for (const k of [1, 5, 11]) {
      const a = await viaPostings.search({ text: 'retry backs off', k });
      const b = await viaFts5.search({ text: 'retry backs off', k });
      expect(a.map((h) => h.chunkId)).toEqual(b.map((h) => h.chunkId));
      expect(a.map((h) => h.chunkId)).toEqual([...a.map((h) => h.chunkId)].sort((x, y) => x - y));
    }
    store.close();
  });
});

