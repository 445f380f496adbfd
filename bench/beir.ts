// npm run bench:beir -- <beir dataset dir> [--split test] [--keep-db FILE] [--model ID] [--tiny] [--variants] [--embed-cache DIR]
// Fresh DB, ingest corpus.jsonl, run the split's judged queries, print nDCG@10, Recall@100, ingest and query times
// for every mode that can run: bm25 always; vector and hybrid when an embedding model is in the models folders
// (resources/models, CONTEXTPACK_MODELS_DIR), else the reason they could not run. --tiny embeds with the tiny test
// model instead, which exercises the whole path but says nothing about quality.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ingestPaths } from '../src/main/core/ingest/index.ts';
import {
  bestPerDocument, createBm25Retriever, createHybridRetriever, createTextMmrRetriever, createVectorRetriever, DEFAULT_HYBRID,
  type HybridRetrieverOptions, type Retriever,
} from '../src/main/core/search/index.ts';
import { openStore } from '../src/main/core/store/index.ts';
import { defaultLanes, openEmbedder } from '../src/main/core/embed/embedder.ts';
import { defaultModelDirs } from '../src/main/paths.ts';
import { DEFAULT_MODEL_ID } from '../src/main/core/embed/models.ts';
import { realModelCacheDir } from '../src/main/core/embed/npm-model.ts';
import { probeModel } from '../src/main/core/embed/probe.ts';
import { buildTinyModel } from '../src/main/core/embed/testing/tiny-model.ts';
import { backfillVectors, openVectorIndex } from '../src/main/core/vectors/index.ts';
import { evaluate, parseQrels, percentile, type Run } from './lib/trec-eval.ts';
import { rawFts5InsertSeconds } from './lib/raw-fts.ts';
import { lancedbFtsP50 } from './lib/lancedb-fts.ts';
import { cachedEmbedder, embedCachePath } from './lib/embed-cache.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    split: { type: 'string', default: 'test' },
    'keep-db': { type: 'string' },
    model: { type: 'string', default: DEFAULT_MODEL_ID },
    tiny: { type: 'boolean', default: false },
    // Every fusion/MMR variant, not only bm25, vector and the default hybrid.
    variants: { type: 'boolean', default: false },
    // Only what fusion is chosen from: bm25, vector and the hybrid variants (implies --variants).
    fusion: { type: 'boolean', default: false },
    'embed-cache': { type: 'string', default: fileURLToPath(new URL('../.bench/', import.meta.url)) },
  },
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
// Issue #15's floor, measured in the same run: the same chunk texts straight into a bare FTS5 table.
const rawFts = rawFts5InsertSeconds(store.db, join(tmp, 'raw-fts.db'));

// k = 300 chunk hits give Recall@100 over documents; `depth` lower asks as a packet does (~40 hits), where fusion
// normalizes over fewer candidates.
async function runMode(retriever: Retriever, depth = 300) {
  const run: Run = new Map();
  const times: number[] = [];
  // Diversity: distinct documents among the top 10 chunk hits, before collapsing to one hit per document.
  let distinct = 0;
  // Untimed warm-up: JIT, prepared statements and the page cache, as in a running app.
  for (const q of queries.slice(0, 10)) await retriever.search({ text: q.text, k: depth });
  for (const q of queries) {
    const s = performance.now();
    const chunks = await retriever.search({ text: q.text, k: depth });
    const hits = bestPerDocument(chunks, 100);
    times.push(performance.now() - s);
    distinct += new Set(chunks.slice(0, 10).map((h) => h.documentId)).size;
    run.set(q._id, hits.map((h) => ({ docId: h.externalId!, score: h.score })));
  }
  times.sort((a, b) => a - b);
  return { ...evaluate(qrels, run), p50: percentile(times, 50), p95: percentile(times, 95), distinct10: distinct / queries.length };
}

const DEFAULT_ROW = `hybrid default (${DEFAULT_HYBRID.fusion}, bm25 weight ${DEFAULT_HYBRID.weights[0]}, ${DEFAULT_HYBRID.mmrLambda < 1 ? `MMR ${DEFAULT_HYBRID.mmrLambda}` : 'no MMR'})`;
const rows: { mode: string; ndcg10: number; recall100: number; p50: number; p95: number; distinct10: number }[] = [];
rows.push({ mode: 'bm25', ...(await runMode(createBm25Retriever(store.db))) });
if (!values.fusion) {
  // The same ranking from FTS5's bm25() alone (no postings scorer, core/search/fts-scorer.ts): identical results, slower.
  rows.push({ mode: 'bm25, FTS5 bm25() only', ...(await runMode(createBm25Retriever(store.db, { postings: false }))) });
  // What packets use on a store without vectors (core/search/best-retriever.ts): BM25, then MMR with text similarity.
  rows.push({ mode: 'bm25 + text MMR 0.5', ...(await runMode(createTextMmrRetriever(createBm25Retriever(store.db)))) });
  rows.push({ mode: 'bm25 + text MMR 0.7', ...(await runMode(createTextMmrRetriever(createBm25Retriever(store.db), { mmrLambda: 0.7 }))) });
}

// Vector and hybrid modes: only with a model; the vectors are made by the same backfill job the app runs, through a
// cache under .bench/ keyed by model fingerprint and passage text, so the corpus is embedded once across runs.
let notRun: string | undefined;
let embedInfo = '';
const modelDirs = [...defaultModelDirs(process.env), realModelCacheDir()];
const probe = values.tiny
  ? await (async () => {
      const tiny = await buildTinyModel({ root: join(tmp, 'models'), modelId: 'contextpack/bench-tiny', dim: 384 });
      return probeModel({ modelId: tiny.modelId, dirs: [tiny.root], spec: { pooling: 'mean', maxTokens: 256 } });
    })()
  : await probeModel({ modelId: values.model, dirs: modelDirs });
if (!probe.ok) notRun = `${probe.reason}; \`npm run models:real\` fetches the real model`;
else {
  const embedder = await openEmbedder(probe);
  const cached = cachedEmbedder(embedder, embedCachePath(resolve(values['embed-cache']), probe.fingerprint));
  const te = performance.now();
  const fill = await backfillVectors(store.db, cached, {
    onProgress: (p) => process.stderr.write(`\rembedding ${p.done}/${p.total}`),
  });
  process.stderr.write('\n');
  const embedS = (performance.now() - te) / 1000;
  embedInfo =
    `embed      ${fill.embedded} chunks with ${probe.modelId} (${probe.spec.dtype})${values.tiny ? ' (TINY TEST MODEL: not a quality figure)' : ''} ` +
    `in ${embedS.toFixed(1)} s (${cached.hits()} from the cache)` +
    (cached.hits() === 0 ? ` = ${(fill.embedded / embedS).toFixed(1)} chunks/s, ${defaultLanes()} lanes, load ${loadavg()[0]!.toFixed(2)} after` : '');
  const index = openVectorIndex(store.db, fill.spaceId);
  // Each variant re-embeds every query in its timed loop (p50 includes the query embedding, as in the app).
  const embedQuery = (t: string) => embedder.embedQuery(t);
  rows.push({ mode: 'vector', ...(await runMode(createVectorRetriever(store.db, { index, embedQuery }))) });
  const variants: [string, HybridRetrieverOptions][] = [
    ['hybrid rrf k60', { index, embedQuery, fusion: 'rrf', mmrLambda: 1 }],
    ['hybrid rrf k60 + MMR 0.5 (old default)', { index, embedQuery, fusion: 'rrf', mmrLambda: 0.5 }],
    ['hybrid rrf k60 + MMR 0.9', { index, embedQuery, fusion: 'rrf', mmrLambda: 0.9 }],
    ...[0.3, 0.4, 0.5, 0.6, 0.7].map((w): [string, HybridRetrieverOptions] => [
      `hybrid convex bm25 ${w}`,
      { index, embedQuery, fusion: 'normalized', weights: [w, 1 - w], mmrLambda: 1 },
    ]),
    ...[0.8, 0.9].map((l): [string, HybridRetrieverOptions] => [
      `hybrid convex bm25 ${DEFAULT_HYBRID.weights[0]} + MMR ${l}`,
      { index, embedQuery, fusion: 'normalized', weights: DEFAULT_HYBRID.weights, mmrLambda: l },
    ]),
  ];
  for (const [mode, options] of values.variants || values.fusion ? variants : []) rows.push({ mode, ...(await runMode(createHybridRetriever(store.db, options))) });
  rows.push({ mode: DEFAULT_ROW, ...(await runMode(createHybridRetriever(store.db, { index, embedQuery }))) });
  // Asked as a packet asks (k 40, fusion over fetch_k 50 candidates): nDCG@10 must hold; Recall@100 cannot.
  rows.push({ mode: 'bm25, k 40', ...(await runMode(createBm25Retriever(store.db), 40)) });
  rows.push({ mode: 'hybrid default, k 40', ...(await runMode(createHybridRetriever(store.db, { index, embedQuery }), 40)) });
  await embedder.close();
}

// LanceDB's full-text search on the same chunk texts, same queries, same k (optional: CONTEXTPACK_LANCEDB_DIR).
const lance = values.fusion ? null : await lancedbFtsP50(store.db, queries.map((q) => q.text), process.env.CONTEXTPACK_LANCEDB_DIR, tmp, 300).catch((err: Error) => err);

console.log(`dataset    ${dataset} (${values.split}: ${queries.length} queries, ${report.chunks} chunks from ${report.files} file)`);
console.log(`ingest     ${ingestS.toFixed(2)} s   rescan (unchanged) ${rescanS.toFixed(3)} s`);
console.log(`raw FTS5   ${rawFts.seconds.toFixed(2)} s   (${rawFts.rows} chunk texts, one transaction)   ingest / raw = ${(ingestS / rawFts.seconds).toFixed(2)}× (target <= 3)`);
if (embedInfo) console.log(embedInfo);
const width = Math.max(8, ...rows.map((r) => r.mode.length));
console.log(`${'mode'.padEnd(width)} nDCG@10  Recall@100  p50 ms  p95 ms  docs in top 10 chunks`);
for (const r of rows) {
  console.log(`${r.mode.padEnd(width)} ${r.ndcg10.toFixed(4)}   ${r.recall100.toFixed(4)}     ${r.p50.toFixed(2).padStart(6)}  ${r.p95.toFixed(2).padStart(6)}  ${r.distinct10.toFixed(2)}`);
}
const bm25Row = rows.find((r) => r.mode === 'bm25')!;
if (lance === null) console.log('lancedb FTS: not run (set CONTEXTPACK_LANCEDB_DIR to a folder with @lancedb/lancedb installed)');
else if (lance instanceof Error) console.log(`lancedb FTS: not run (${lance.message.split('\n')[0]})`);
else
  console.log(
    `lancedb FTS ${lance.version}: p50 ${lance.p50.toFixed(2)} ms, p95 ${lance.p95.toFixed(2)} ms (k 300, index ${lance.indexS.toFixed(2)} s)   bm25 / lancedb p50 = ${(bm25Row.p50 / lance.p50).toFixed(2)} (target <= 1)`,
  );
if (notRun) console.log(`vector, hybrid: not run (${notRun})`);
else {
  const of = (mode: string) => rows.find((r) => r.mode === mode)!.ndcg10;
  const gain = of(DEFAULT_ROW) - Math.max(of('bm25'), of('vector'));
  console.log(`default hybrid - max(bm25, vector) nDCG@10: ${gain >= 0 ? '+' : ''}${gain.toFixed(4)} (target >= +0.02${values.tiny ? '; tiny model, not meaningful' : `: ${gain >= 0.02 ? 'PASS' : 'FAIL'}`})`);
}
store.close();
if (!values['keep-db']) rmSync(tmp, { recursive: true, force: true });
