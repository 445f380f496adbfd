// npm run bench:vector [-- --chunks 100000 --queries 200 --dims 384 --seed 7 --keep-db FILE]
// Synthetic chunks with text (through the real ingest) and 384-d vectors (no model: the target excludes query
// embedding). In one run: exact KNN as sqlite-vec float32 vec0 and as a plain JS scan, sqlite-vec's own bit[] KNN,
// our bit-sketch + exact-rescore index at several shortlist sizes (recall@10 against exact), BM25, vector and
// hybrid query times (the default fusion, and RRF with and without MMR), and the engine's RSS measured in a separate process (model excluded).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CHUNKER_VERSION, ingestPaths } from '../src/main/core/ingest/index.ts';
import { createBm25Retriever, createHybridRetriever, createVectorRetriever } from '../src/main/core/search/index.ts';
import { openStore } from '../src/main/core/store/index.ts';
import { activateSpace, DEFAULT_MIN_SHORTLIST, ensureSpace, openVectorIndex, signBits, spaceTables, toBlob } from '../src/main/core/vectors/index.ts';
import { seededRandom } from '../src/main/core/embed/testing/tiny-model.ts';
import { percentile } from './lib/trec-eval.ts';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '200' },
    dims: { type: 'string', default: '384' },
    seed: { type: 'string', default: '7' },
    'keep-db': { type: 'string' },
    'rss-child': { type: 'string' },
  },
});

// --- RSS child: only the engine (store, vector index, BM25, hybrid) answering the same queries. ---
if (values['rss-child']) {
  const { db: dbPath, queriesFile } = JSON.parse(values['rss-child']) as { db: string; queriesFile: string };
  const qs = JSON.parse(readFileSync(queriesFile, 'utf8')) as { text: string; vector: number[] }[];
  const baseline = process.memoryUsage().rss;
  const store = openStore(dbPath);
  const spaceId = (store.db.prepare("SELECT id FROM vector_spaces WHERE state = 'active'").get() as { id: number }).id;
  const index = openVectorIndex(store.db, spaceId);
  const vectors = new Map(qs.map((q) => [q.text, Float32Array.from(q.vector)]));
  const hybrid = createHybridRetriever(store.db, { index, embedQuery: async (t) => vectors.get(t)! });
  let peak = 0;
  for (let round = 0; round < 3; round++) {
    for (const q of qs) {
      await hybrid.search({ text: q.text, k: 10 });
      peak = Math.max(peak, process.memoryUsage().rss);
    }
  }
  console.log(JSON.stringify({ baseline, peak, heap: process.memoryUsage().heapUsed }));
  store.close();
  process.exit(0);
}

const N = Number(values.chunks);
const Q = Number(values.queries);
const D = Number(values.dims);

// mulberry32 (shared with the tiny test model) + Box-Muller: deterministic across runs and platforms.
const rand = seededRandom(Number(values.seed));
const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
const gaussVec = (scale = 1) => Float32Array.from({ length: D }, () => gauss() * scale);
function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  const n = Math.sqrt(s);
  return v.map((x) => x / n);
}

// Structure like sentence embeddings: a shared mean direction (anisotropy), each chunk a mix of two of 10,000 topics,
// plus per-chunk noise; queries are built the same way from a random chunk's topics. Nearest neighbours therefore
// form a continuum, not clean clusters the bit pass could find trivially.
const TOPICS = 10000;
const MEAN = 0.35;
const NOISE = 0.8 / Math.sqrt(D);
const mean = normalize(gaussVec());
const topicVecs = Array.from({ length: TOPICS }, () => normalize(gaussVec()));
const VOCAB = 30000;
const word = (i: number) => `w${i.toString(36)}`;
const topicWords = Array.from({ length: TOPICS }, () => Array.from({ length: 25 }, () => Math.floor(rand() * VOCAB)));
const FILLER = 'the index stores project notes and code with their context for the agent while work goes on'.split(' ');

function mix(a: number, b: number, wa: number, wb: number, noise: number): Float32Array {
  const v = new Float32Array(D);
  const ta = topicVecs[a]!;
  const tb = topicVecs[b]!;
  for (let j = 0; j < D; j++) v[j] = MEAN * mean[j]! + wa * ta[j]! + wb * tb[j]! + noise * gauss();
  return normalize(v);
}

console.log(`generating ${N} chunks (${D}-d, ${TOPICS} topics) and ${Q} queries…`);
const docTopics: [number, number][] = [];
const docVecs = new Float32Array(N * D);
const lines: string[] = [];
for (let i = 0; i < N; i++) {
  const a = Math.floor(rand() * TOPICS);
  const b = Math.floor(rand() * TOPICS);
  docTopics.push([a, b]);
  docVecs.set(mix(a, b, 0.5 + rand() * 0.5, rand() * 0.6, NOISE), i * D);
  const words: string[] = [];
  for (let w = 0; w < 45; w++) {
    const r = rand();
    if (r < 0.45) words.push(word(topicWords[a]![Math.floor(rand() * 25)]!));
    else if (r < 0.65) words.push(word(topicWords[b]![Math.floor(rand() * 25)]!));
    else if (r < 0.8) words.push(word(Math.floor(rand() * VOCAB)));
    else words.push(FILLER[Math.floor(rand() * FILLER.length)]!);
  }
  lines.push(JSON.stringify({ _id: `c${i}`, title: `${word(topicWords[a]![0]!)} ${word(topicWords[b]![1]!)}`, text: words.join(' ') }));
}
const queries: { text: string; vector: Float32Array }[] = [];
for (let i = 0; i < Q; i++) {
  const [a, b] = docTopics[Math.floor(rand() * N)]!;
  const text = [0, 1, 2].map(() => word(topicWords[a]![Math.floor(rand() * 25)]!)).concat(word(topicWords[b]![Math.floor(rand() * 25)]!)).join(' ');
  queries.push({ text, vector: mix(a, b, 0.9, 0.3, NOISE * 1.2) });
}

const tmp = mkdtempSync(join(tmpdir(), 'cp-bench-vector-'));
const dbPath = values['keep-db'] ?? join(tmp, 'vector.db');
rmSync(dbPath, { force: true });
writeFileSync(join(tmp, 'corpus.jsonl'), lines.join('\n') + '\n');
const store = openStore(dbPath);
const db = store.db;
let t0 = performance.now();
const ingest = await ingestPaths(db, [join(tmp, 'corpus.jsonl')], { maxFileBytes: 1 << 30 });
console.log(`ingest     ${ingest.chunks} chunks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

// Vectors go in through the index's own write path, as the backfill job writes them.
const chunkRows = db.prepare('SELECT c.id, d.external_id AS ext FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY c.id').all() as { id: number; ext: string }[];
if (chunkRows.length !== N) throw new Error(`expected one chunk per document, got ${chunkRows.length} chunks for ${N} documents`);
const chunkIds = new Int32Array(N);
const docOfChunk = new Map<number, number>();
for (const r of chunkRows) {
  const doc = Number(r.ext.slice(1));
  chunkIds[doc] = r.id;
  docOfChunk.set(r.id, doc);
}
const space = ensureSpace(db, { modelId: 'bench/synthetic', fingerprint: 'synthetic', dims: D, chunkerVersion: CHUNKER_VERSION });
const writer = openVectorIndex(db, space.id);
t0 = performance.now();
for (let start = 0; start < N; start += 1000) {
  const batch = [];
  for (let i = start; i < Math.min(N, start + 1000); i++) batch.push({ chunkId: chunkIds[i]!, vector: docVecs.subarray(i * D, (i + 1) * D) });
  writer.write(batch);
}
activateSpace(db, space.id);
console.log(`vectors    ${N} written in ${((performance.now() - t0) / 1000).toFixed(1)} s (float32 + bit[${D}] per chunk)`);
const t = spaceTables(space);

function timeIt<T>(fn: () => T): { value: T; ms: number } {
  const s = performance.now();
  const value = fn();
  return { value, ms: performance.now() - s };
}
async function timeAsync<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const s = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - s };
}
const p50 = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
const p95 = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 95);

// Plain JS scan: exact top-10 (the ground truth) and its time.
const profile = { top1: 0, top10: 0, random: 0 };
function jsScan(q: Float32Array, k: number): number[] {
  const best: { i: number; s: number }[] = [];
  for (let i = 0; i < N; i++) {
    let s = 0;
    const o = i * D;
    for (let j = 0; j < D; j++) s += docVecs[o + j]! * q[j]!;
    if (best.length < k || s > best[best.length - 1]!.s) {
      best.push({ i, s });
      best.sort((x, y) => y.s - x.s);
      if (best.length > k) best.pop();
    }
  }
  profile.top1 += best[0]!.s / Q;
  profile.top10 += best[Math.min(9, best.length - 1)]!.s / Q;
  for (let r = 0; r < 100; r++) {
    const i = (r * 7919 + Math.floor(Math.abs(q[0]!) * 1e6)) % N;
    let s = 0;
    for (let j = 0; j < D; j++) s += docVecs[i * D + j]! * q[j]!;
    profile.random += s / (Q * 100);
  }
  return best.map((b) => chunkIds[b.i]!);
}
const truth: Set<number>[] = [];
const jsTimes: number[] = [];
for (const q of queries) {
  const r = timeIt(() => jsScan(q.vector, 10));
  truth.push(new Set(r.value));
  jsTimes.push(r.ms);
}
const recall = (got: number[][]) => got.reduce((s, ids, i) => s + ids.slice(0, 10).filter((id) => truth[i]!.has(id)).length / 10, 0) / got.length;

const rows: { name: string; p50: number; p95: number; recall?: number }[] = [];
rows.push({ name: 'plain JS scan, float32, exact', p50: p50(jsTimes), p95: p95(jsTimes), recall: 1 });

// sqlite-vec float32 vec0, exact KNN (a table built here only for comparison).
db.exec(`CREATE VIRTUAL TABLE bench_f32 USING vec0(chunk_id INTEGER PRIMARY KEY, embedding float[${D}] distance_metric=cosine)`);
db.transaction(() => {
  const ins = db.prepare('INSERT INTO bench_f32 (chunk_id, embedding) VALUES (?, ?)');
  for (let i = 0; i < N; i++) ins.run(BigInt(chunkIds[i]!), toBlob(docVecs.subarray(i * D, (i + 1) * D)));
})();
for (const k of [10, 50]) {
  const stmt = db.prepare('SELECT chunk_id FROM bench_f32 WHERE embedding MATCH ? AND k = ?').pluck();
  const times: number[] = [];
  const got: number[][] = [];
  for (const q of queries) {
    const r = timeIt(() => stmt.all(toBlob(q.vector), k) as number[]);
    times.push(r.ms);
    got.push(r.value);
  }
  rows.push({ name: `sqlite-vec float32 vec0 KNN, k=${k}`, p50: p50(times), p95: p95(times), recall: recall(got) });
}
db.exec('DROP TABLE bench_f32');

// sqlite-vec's own bit[] KNN over the space's bit table, shortlist then exact rescore.
for (const shortlist of [50, 100, 200]) {
  const knn = db.prepare(`SELECT chunk_id FROM ${t.bits} WHERE bits MATCH vec_bit(?) AND k = ?`).pluck();
  const rescore = db.prepare(`SELECT chunk_id FROM ${t.f32} WHERE chunk_id IN (SELECT value FROM json_each(?)) ORDER BY vec_distance_cosine(embedding, ?) LIMIT 10`).pluck();
  const times: number[] = [];
  const got: number[][] = [];
  for (const q of queries) {
    const r = timeIt(() => rescore.all(JSON.stringify(knn.all(Buffer.from(signBits(q.vector)), shortlist)), toBlob(q.vector)) as number[]);
    times.push(r.ms);
    got.push(r.value);
  }
  rows.push({ name: `sqlite-vec bit[] KNN k=${shortlist} + rescore`, p50: p50(times), p95: p95(times), recall: recall(got) });
}

// Our index: bit sketch scan in JS + exact rescoring in sqlite-vec, at several shortlist sizes; the last is the default.
for (const minShortlist of [250, 500, 1000, 2000]) {
  const index = openVectorIndex(db, space.id, { minShortlist, shortlistFactor: 1 });
  index.knn(queries[0]!.vector, 10); // loads the sketch
  const times: number[] = [];
  const got: number[][] = [];
  for (const q of queries) {
    const r = timeIt(() => index.knn(q.vector, 10).map((h) => h.chunkId));
    times.push(r.ms);
    got.push(r.value);
  }
  rows.push({ name: `index: bit sketch shortlist ${minShortlist} + rescore${minShortlist === DEFAULT_MIN_SHORTLIST ? ' (default)' : ''}`, p50: p50(times), p95: p95(times), recall: recall(got) });
}
const sketchLoad = timeIt(() => openVectorIndex(db, space.id).knn(queries[0]!.vector, 10)).ms;

// End to end through the Retriever interface, query vectors precomputed (query embedding excluded by the target).
const index = openVectorIndex(db, space.id);
const qv = new Map(queries.map((q) => [q.text, q.vector]));
const embedQuery = async (text: string) => qv.get(text)!;
const retrievers = {
  bm25: createBm25Retriever(db),
  vector: createVectorRetriever(db, { index, embedQuery }),
  'hybrid (default: normalized 0.5/0.5, no MMR)': createHybridRetriever(db, { index, embedQuery }),
  'hybrid (RRF, MMR 0.5, fetch_k 50)': createHybridRetriever(db, { index, embedQuery, fusion: 'rrf', mmrLambda: 0.5 }),
  'hybrid (RRF, no MMR)': createHybridRetriever(db, { index, embedQuery, fusion: 'rrf', mmrLambda: 1 }),
};
const e2e: { name: string; p50: number; p95: number; recall?: number }[] = [];
for (const [name, r] of Object.entries(retrievers)) {
  await r.search({ text: queries[0]!.text, k: 10 });
  const times: number[] = [];
  const got: number[][] = [];
  for (const q of queries) {
    const res = await timeAsync(() => r.search({ text: q.text, k: 10 }));
    times.push(res.ms);
    got.push(res.value.map((h) => h.chunkId));
  }
  e2e.push({ name, p50: p50(times), p95: p95(times), ...(name === 'vector' ? { recall: recall(got) } : {}) });
}
store.close();

// Engine RSS in a fresh process: store + vector index + hybrid retriever answering the queries three times.
const queriesFile = join(tmp, 'queries.json');
writeFileSync(queriesFile, JSON.stringify(queries.map((q) => ({ text: q.text, vector: Array.from(q.vector) }))));
const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--rss-child', JSON.stringify({ db: dbPath, queriesFile })], { encoding: 'utf8' });
if (child.status !== 0) throw new Error(`rss child failed: ${child.stderr}`);
const rss = JSON.parse(child.stdout.trim().split('\n').pop()!) as { baseline: number; peak: number };
const MB = 1024 * 1024;

const fmt = (r: { name: string; p50: number; p95: number; recall?: number }) =>
  `${r.name.padEnd(46)} ${r.p50.toFixed(2).padStart(7)}  ${r.p95.toFixed(2).padStart(7)}  ${r.recall === undefined ? '' : r.recall.toFixed(4)}`;
console.log(`similarity profile (mean cosine of a query to its 1st / 10th nearest chunk / a random chunk): ${profile.top1.toFixed(3)} / ${profile.top10.toFixed(3)} / ${profile.random.toFixed(3)}`);
console.log(`\nKNN, ${N} x ${D}-d, top 10, ${Q} queries          p50 ms   p95 ms  recall@10 vs exact`);
for (const r of rows) console.log(fmt(r));
console.log(`(bit sketch load: ${sketchLoad.toFixed(0)} ms once per process and after writes; ${((N * Math.ceil(D / 32) * 4) / MB).toFixed(1)} MB)`);
console.log(`\nsearch through the Retriever, k=10 (query embedding excluded) p50 ms   p95 ms`);
for (const r of e2e) console.log(fmt(r));
const hybridP50 = e2e.find((r) => r.name.startsWith('hybrid (default'))!.p50;
const defaultRecall = rows.find((r) => r.name.includes('(default)'))!.recall!;
console.log(`\nengine RSS (fresh process, store + index + hybrid, ${Q * 3} queries): peak ${(rss.peak / MB).toFixed(0)} MB (node baseline ${(rss.baseline / MB).toFixed(0)} MB)`);
console.log(`targets: hybrid p50 ${hybridP50.toFixed(2)} ms <= 20: ${hybridP50 <= 20 ? 'PASS' : 'FAIL'}; ` +
  `default index recall@10 ${defaultRecall.toFixed(4)} >= 0.98: ${defaultRecall >= 0.98 ? 'PASS' : 'FAIL'}; ` +
  `RSS ${(rss.peak / MB).toFixed(0)} MB <= 300: ${rss.peak / MB <= 300 ? 'PASS' : 'FAIL'}`);
if (!values['keep-db']) rmSync(tmp, { recursive: true, force: true });
