// npm run bench:beir -- <beir dataset dir> [--split test] [--keep-db FILE]
// Fresh DB, ingest corpus.jsonl, run the split's judged queries, print nDCG@10, Recall@100, ingest and query times.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ingestPaths } from '../src/main/core/ingest/index.ts';
import { bestPerDocument, createBm25Retriever, type Retriever } from '../src/main/core/search/index.ts';
import { openStore } from '../src/main/core/store/index.ts';
import { evaluate, parseQrels, percentile, type Run } from './lib/trec-eval.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { split: { type: 'string', default: 'test' }, 'keep-db': { type: 'string' } },
});
const dataset = resolve(positionals[0] ?? '../shared/bench/beir/scifact');
const qrels = parseQrels(readFileSync(join(dataset, 'qrels', `${values.split}.tsv`), 'utf8'));
const queries = readFileSync(join(dataset, 'queries.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { _id: string; text: string })
  .filter((q) => qrels.has(q._id));

const tmp = mkdtempSync(join(tmpdir(), 'cp-beir-'));
const dbPath = values['keep-db'] ?? join(tmp, 'bench.db');
rmSync(dbPath, { force: true });
const store = openStore(dbPath);
const t0 = performance.now();
const report = await ingestPaths(store.db, [join(dataset, 'corpus.jsonl')]);
const ingestS = (performance.now() - t0) / 1000;
const t1 = performance.now();
await ingestPaths(store.db, [join(dataset, 'corpus.jsonl')]);
const rescanS = (performance.now() - t1) / 1000;

async function runMode(retriever: Retriever) {
  const run: Run = new Map();
  const times: number[] = [];
  for (const q of queries) {
    const s = performance.now();
    const hits = bestPerDocument(await retriever.search({ text: q.text, k: 300 }), 100);
    times.push(performance.now() - s);
    run.set(q._id, hits.map((h) => ({ docId: h.externalId!, score: h.score })));
  }
  times.sort((a, b) => a - b);
  return { ...evaluate(qrels, run), p50: percentile(times, 50), p95: percentile(times, 95) };
}

const rows: { mode: string; ndcg10: number; recall100: number; p50: number; p95: number }[] = [];
rows.push({ mode: 'bm25', ...(await runMode(createBm25Retriever(store.db))) });

console.log(`dataset    ${dataset} (${values.split}: ${queries.length} queries, ${report.chunks} chunks from ${report.files} file)`);
console.log(`ingest     ${ingestS.toFixed(2)} s   rescan (unchanged) ${rescanS.toFixed(3)} s`);
console.log('mode     nDCG@10  Recall@100  p50 ms  p95 ms');
for (const r of rows) {
  console.log(`${r.mode.padEnd(8)} ${r.ndcg10.toFixed(4)}   ${r.recall100.toFixed(4)}     ${r.p50.toFixed(2).padStart(6)}  ${r.p95.toFixed(2).padStart(6)}`);
}
store.close();
if (!values['keep-db']) rmSync(tmp, { recursive: true, force: true });
