// npm run bench:packet [-- --chunks 100000 --runs 60 --common --keep-db FILE]
// npm run bench:packet -- --issue [--chunks 50000 --runs 40]: issue-length tasks (issue #32: ~3,000 characters with
//   a traceback, a code block and an environment dump) through the API as `contextpack mcp` serves it
//   (packets.build at 8k tokens and search.query, each task new to the process), p50 / p95, and where a pack's time
//   goes (retrieval, the rest of the packet).
// Builds a synthetic store (direct SQL inserts in one transaction, real FTS5 through the triggers), seeds some
// memory, then times packet assembly end to end: retrieval, redaction of every line, budgets, token counts,
// canonical JSON, sha256, snapshot + injection log write. Prints p50 / p95 per template.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { addMemory, createDecision } from '../src/main/core/memory/index.ts';
import { assemble, buildPacket, createStoreSources } from '../src/main/core/packet/index.ts';
import { getDefaultRedactor } from '../src/main/core/redact/index.ts';
import { chooseRetriever, createBm25Retriever } from '../src/main/core/search/index.ts';
import { openStore } from '../src/main/core/store/index.ts';
import { warmTokenizer } from '../src/main/core/tokens/index.ts';
import { percentile } from './lib/trec-eval.ts';
import { fillStore, issueText, syntheticText, VOCAB } from './lib/synthetic.ts';
import { createApi } from '../src/main/api/index.ts';

const { values } = parseArgs({ options: { chunks: { type: 'string' }, runs: { type: 'string' }, 'keep-db': { type: 'string' }, common: { type: 'boolean', default: false }, issue: { type: 'boolean', default: false } } });
const CHUNKS = Number(values.chunks ?? (values.issue ? 50_000 : 100_000));
const RUNS = Number(values.runs ?? (values.issue ? 40 : 60));
const PER_DOC = 10;

const text = syntheticText();
const { rand, word, line, term } = text;

const tmp = mkdtempSync(join(tmpdir(), 'cp-bench-packet-'));
const dbPath = values['keep-db'] ?? join(tmp, 'bench.db');
rmSync(dbPath, { force: true });
const store = openStore(dbPath, { loadVec: false });
const db = store.db;

const t0 = performance.now();
fillStore(db, text, CHUNKS, PER_DOC);
const buildS = (performance.now() - t0) / 1000;

let n = 0;
const deps = { now: () => new Date('2026-01-15T00:00:00Z'), newId: () => `bench-${++n}` };
for (let i = 0; i < 40; i++) {
  createDecision(db, { title: `Decision ${i} ${word()}`, decision: `${line()} ${line()}`, rationale: line(), importance: 1 + (i % 10), timestamp: '2026-01-10T00:00:00Z' }, deps);
  addMemory(db, { memory_type: 'learning', title: `Learning ${i} ${word()}`, content: { lesson: line(), context: line(), applicability: word(), evidence: word() }, importance: 5 }, deps);
  if (i % 4 === 0) addMemory(db, { memory_type: 'issue', title: `Issue ${i} ${word()}`, content: { description: line(), severity: 'high', status: 'open' }, importance: 6 }, deps);
  if (i % 4 === 0) addMemory(db, { memory_type: 'state', title: `State ${i}`, content: { task_description: line(), completion_percentage: i } }, deps);
}

if (values.issue) {
  await issueMode();
  store.close();
  if (!values['keep-db']) rmSync(tmp, { recursive: true, force: true });
  process.exit(0);
}

// The retriever every transport uses for packets: on this store (no vectors) BM25 + text MMR, with the reason.
const choice = await chooseRetriever({ db, vec: store.vec, openSemantic: async () => ({ ok: false, reason: 'no model in this bench' }) }, { purpose: 'packet' });
const sources = createStoreSources(db, { retriever: choice.retriever, retrievalFallback: choice.fallbackReason });
const plainSources = createStoreSources(db);
// Queries are three distinct terms, as a task's keywords are: drawn from below the 100 most frequent words (which
// behave like stopwords: each is in most chunks). `--common` adds one of those to every query, the slow case for BM25.
const queries = Array.from({ length: RUNS }, () => `${term()} ${term()} ${term()}${values.common ? ` ${VOCAB[Math.floor(rand() * 100)]}` : ''}`);
const task = 'Implement the change described below.\n- [ ] tests pass\n- [ ] docs updated\n' + Array.from({ length: 20 }, line).join('\n');

// Startup costs paid once per process, off the packet path: BPE tables and the ~100 RE2 rules.
warmTokenizer();
getDefaultRedactor();
await buildPacket({ query: queries[0], task }, { sources });

async function time(label: string, fn: (q: string) => Promise<unknown>) {
  const ms: number[] = [];
  for (const q of queries) {
    const s = performance.now();
    await fn(q);
    ms.push(performance.now() - s);
  }
  ms.sort((a, b) => a - b);
  console.log(`${label.padEnd(38)} p50 ${percentile(ms, 50).toFixed(1).padStart(6)} ms   p95 ${percentile(ms, 95).toFixed(1).padStart(6)} ms   (${ms.length} runs)`);
  return ms;
}

const chunkRows = (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
console.log(`store: ${chunkRows} chunks in ${chunkRows / PER_DOC} documents (built in ${buildS.toFixed(1)} s), 40 decisions, 40 learnings, 10 issues, 10 states`);
const sample = await buildPacket({ query: queries[1], task }, { sources });
console.log(`packet: ${sample.budgets.total_chars} chars, ${sample.budgets.total_tokens} tokens, ${sample.included.length} items, ${sample.dropped.length} dropped`);
await time('ao-v1 assemble + store (md)', (q) => assemble({ query: q, task }, { db, sources }, 'md'));
await time('ao-v1 assemble + store (json)', (q) => assemble({ query: q, task }, { db, sources }, 'json'));
await time('layered-v1 assemble + store (md)', (q) => assemble({ query: q, task, template: 'layered-v1' }, { db, sources }, 'md'));
await time('ao-v1 assemble + store, plain bm25', (q) => assemble({ query: q, task }, { db, sources: plainSources }, 'md'));
await time('retrieval only (bm25 + text MMR, k=20)', (q) => sources.retriever.search({ text: q, k: 20 }));
await time('retrieval only (plain bm25, k=20)', (q) => plainSources.retriever.search({ text: q, k: 20 }));

store.close();
if (!values['keep-db']) rmSync(tmp, { recursive: true, force: true });

/** Issue-length tasks through the API (createApi, transport mcp), each task new to the process. */
async function issueMode() {
  const api = createApi({ store, dataDir: join(tmp, 'data'), version: 'bench', transport: 'mcp', background: false, watch: false });
  const issues = Array.from({ length: RUNS + 2 }, () => issueText(text));
  warmTokenizer();
  getDefaultRedactor();
  // A running server has served calls before (modules loaded, the index's row lengths read).
  await api.dispatch('search.query', { query: issues[0]!, k: 20 });
  await api.dispatch('packets.build', { query: issues[1]!, maxTokens: 8000 });
  const chunkRows = (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
  const chars = issues.map((q) => q.length).sort((a, b) => a - b);
  console.log(`store: ${chunkRows} chunks (built in ${buildS.toFixed(1)} s); ${RUNS} issue-length tasks, ${percentile(chars, 50)} characters (p50), each new to the process`);
  const packMs: number[] = [];
  const searchMs: number[] = [];
  const retrievalMs: number[] = [];
  const bm25 = createBm25Retriever(db);
  for (const q of issues.slice(2)) {
    const s = performance.now();
    const p = await api.dispatch('packets.build', { query: q, maxTokens: 8000 });
    packMs.push(performance.now() - s);
    if (!p.ok) throw new Error(`packets.build refused: ${p.error.message}`);
  }
  // Code-aware BM25 alone on other new tasks: the retrieval part of a pack (the packet's k, 40 at 8k tokens).
  for (const q of Array.from({ length: RUNS }, () => issueText(text))) {
    const s = performance.now();
    await bm25.search({ text: q, k: 40 });
    retrievalMs.push(performance.now() - s);
  }
  const fresh = Array.from({ length: RUNS }, () => issueText(text));
  for (const q of fresh) {
    const s = performance.now();
    const r = await api.dispatch('search.query', { query: q, k: 20 });
    searchMs.push(performance.now() - s);
    if (!r.ok) throw new Error(`search.query refused: ${r.error.message}`);
  }
  const line = (label: string, ms: number[]) => {
    const sorted = [...ms].sort((a, b) => a - b);
    console.log(`${label.padEnd(44)} p50 ${percentile(sorted, 50).toFixed(1).padStart(7)} ms   p95 ${percentile(sorted, 95).toFixed(1).padStart(7)} ms`);
  };
  line('API packets.build, 8k tokens (target p50 500, p95 1000)', packMs);
  line('API search.query, k 20 (target p50 200)', searchMs);
  line('BM25 retrieval alone, k 40 (a pack\'s first step)', retrievalMs);
}
