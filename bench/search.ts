// npm run bench:search -- [--chunks 100000] [--queries 200]
// BM25 search latency on a synthetic store (bench:packet's corpus), ranked from FTS5's postings in JS
// (core/search/fts-scorer.ts) against FTS5's own bm25() on the same store and queries: a connection's first query,
// the second (which loads the row lengths), steady state, and the first query after each small write (an edit
// re-indexed, as the watcher does), plus the process's heap. Results are identical by construction; this prints
// what the postings path costs and saves.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createBm25Retriever } from '../src/main/core/search/index.ts';
import { openStore } from '../src/main/core/store/index.ts';
import { fillStore, syntheticText } from './lib/synthetic.ts';
import { percentile } from './lib/trec-eval.ts';

const { values } = parseArgs({ options: { chunks: { type: 'string', default: '100000' }, queries: { type: 'string', default: '200' } } });
const chunks = Number(values.chunks);
const text = syntheticText(7);
const queries = Array.from({ length: Number(values.queries) }, () => Array.from({ length: 6 }, () => text.term()).join(' '));
const dir = mkdtempSync(join(tmpdir(), 'cp-bench-search-'));
const dbPath = join(dir, 'search.db');
{
  const store = openStore(dbPath);
  fillStore(store.db, text, chunks);
  store.close();
}

// Each query timed alone, after an event-loop turn, as requests reach a server (background work runs between).
const ms = async (f: () => Promise<unknown>) => {
  await new Promise((resolve) => setImmediate(resolve));
  const t = performance.now();
  await f();
  return performance.now() - t;
};
const p = (times: number[], q: number) => percentile([...times].sort((a, b) => a - b), q).toFixed(2);

async function measure(postings: boolean) {
  const store = openStore(dbPath);
  const retriever = createBm25Retriever(store.db, { postings });
  const search = (q: string) => retriever.search({ text: q, k: 50 });
  const first = await ms(() => search(queries[0]!));
  const second = await ms(() => search(queries[1]!));
  for (const q of queries.slice(2, 22)) await search(q);
  const steady: number[] = [];
  for (const q of queries) steady.push(await ms(() => search(q)));
  // A small write, then the next query: what an edit under the watcher costs the first search after it.
  const insert = store.db.prepare('INSERT INTO chunks (document_id, ordinal, text, heading_path, anchor, line_start, line_end, token_count, chunker_version) VALUES (1, ?, ?, \'\', \'\', 1, 1, 10, 1)');
  const afterWrite: number[] = [];
  for (let i = 0; i < 20; i++) {
    insert.run((postings ? 2000 : 1000) + i, text.chunkText());
    afterWrite.push(await ms(() => search(queries[(i * 7) % queries.length]!)));
  }
  const heapMb = process.memoryUsage().heapUsed / 1e6;
  store.close();
  return { first, second, steady, afterWrite, heapMb };
}

// FTS5 first, so the postings run cannot borrow a warm page cache the other did not have.
const fts5 = await measure(false);
const fast = await measure(true);
console.log(`store      ${chunks} chunks (synthetic), ${queries.length} queries of 6 words, k 50`);
console.log('path                first query  second  p50 steady  p95 steady  p50 after a write');
for (const [name, r] of [['FTS5 bm25()', fts5], ['postings (JS)', fast]] as const) {
  console.log(`${name.padEnd(19)} ${r.first.toFixed(2).padStart(8)} ms ${r.second.toFixed(2).padStart(7)} ${p(r.steady, 50).padStart(11)} ${p(r.steady, 95).padStart(11)} ${p(r.afterWrite, 50).padStart(18)}`);
}
console.log(`steady p50 postings / FTS5 = ${(percentile([...fast.steady].sort((a, b) => a - b), 50) / percentile([...fts5.steady].sort((a, b) => a - b), 50)).toFixed(2)}; heap after the postings run ${fast.heapMb.toFixed(0)} MB`);
rmSync(dir, { recursive: true, force: true });
