// npm run bench:embed [-- --model <id>] [--tiny] [--passages 512] [--batch 32] [--rounds 3] [--layers 6] [--dim 384] [--corpus F] [--sweep]
//                     [--variants q4,int8,fp32 [--lanes N] [--threads N] [--opt all|extended|basic|disabled] [--no-spin]]
// --variants: on the first --passages SciFact chunks as the store holds them, each graph (model-variants.ts) run in
// one session, interleaved, then through the embedder itself (worker lanes, each text alone): chunks/s, word pieces/s,
// cosine to the first variant.
// Embedder end to end (tokenize, worker thread, batching, pooling, normalization) against raw onnxruntime-node
// InferenceSession.run on the same tokenized batches of the same model, in the same run. Target: ratio >= 0.9.
// Uses a real model when one is in the models folders (resources/models, CONTEXTPACK_MODELS_DIR); otherwise builds a
// tiny one whose feed-forward layers give it roughly a real small model's cost per token.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ort from 'onnxruntime-node';
import { loadEmbedCore } from '../src/main/core/embed/embed-core.ts';
import type { EncodedBatch } from '../src/main/core/embed/embed-core.ts';
import { defaultLanes, openEmbedder } from '../src/main/core/embed/embedder.ts';
import { defaultModelDirs } from '../src/main/paths.ts';
import { DEFAULT_MODEL_ID, GRAPH_OPTIMIZATION, ONNX_FILE_BY_DTYPE } from '../src/main/core/embed/models.ts';
import { MINILM_SMOOTH_CHANNELS, realModelCacheDir } from '../src/main/core/embed/npm-model.ts';
import { probeModel } from '../src/main/core/embed/probe.ts';
import type { ModelFound } from '../src/main/core/embed/probe.ts';
import { buildTinyModel } from '../src/main/core/embed/testing/tiny-model.ts';
import { writeDerivedVariant, type DerivedVariant } from '../src/main/core/embed/model-variants.ts';
import { meanPool, normalizeRows } from '../src/main/core/embed/pooling.ts';
import { ingestPaths } from '../src/main/core/ingest/index.ts';
import { openStore } from '../src/main/core/store/index.ts';
import { backfillVectors, passageText } from '../src/main/core/vectors/index.ts';

const { values } = parseArgs({
  options: {
    model: { type: 'string', default: DEFAULT_MODEL_ID },
    tiny: { type: 'boolean', default: false },
    passages: { type: 'string', default: '512' },
    batch: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
    layers: { type: 'string', default: '6' },
    dim: { type: 'string', default: '384' },
    corpus: { type: 'string', default: fileURLToPath(new URL('../../shared/bench/beir/scifact/corpus.jsonl', import.meta.url)) },
    // Profile raw inference instead: batch sizes x intra-op threads, length-sorted batches against arrival order,
    // on whole corpus documents (their natural, varied lengths), wall and CPU time. Timing only, and from before the
    // embedder ran each text alone: a derived graph has no padding mask, so its padded rows are not valid vectors.
    sweep: { type: 'boolean', default: false },
    // Compare ways of multiplying the same weights (model-variants.ts) on whole corpus documents: each batch runs
    // through every variant in turn, so load hits all alike; wall and CPU time, and cosine to the first variant.
    variants: { type: 'string' },
    // Lanes of the embedder in --variants (default: defaultLanes()).
    lanes: { type: 'string' },
    threads: { type: 'string' },
    // Graph optimisation level of --variants' sessions; default: what the embedder uses for the variant's dtype.
    opt: { type: 'string' },
    'no-spin': { type: 'boolean', default: false },
  },
});
const passageCount = Number(values.passages);

// Raw onnxruntime's best case for the baselines: length-sorted batches, so padding wastes little. (The embedder runs
// every text alone instead, embed-core.ts embedEach says why.)
function planBatches(lengths: readonly number[], size: number): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  const out: number[][] = [];
  for (let i = 0; i < order.length; i += size) out.push(order.slice(i, i + size));
  return out;
}
const batchSize = Number(values.batch);
const rounds = Number(values.rounds);
const TARGET_TOKENS = 150;

let tmp: string | undefined;
let model: ModelFound;
let modelLabel: string;
const modelDirs = [...defaultModelDirs(process.env), realModelCacheDir()];
const real = values.tiny ? undefined : await probeModel({ modelId: values.model, dirs: modelDirs });
if (real?.ok) {
  model = real;
  modelLabel = `${real.modelId} (${real.spec.dtype}) from ${real.dir}`;
} else {
  if (real) console.log(`no real model (${real.reason}); building a tiny one`);
  tmp = await mkdtemp(join(tmpdir(), 'cp-bench-embed-'));
  const tiny = await buildTinyModel({ root: tmp, modelId: 'contextpack/bench-tiny', dim: Number(values.dim), layers: Number(values.layers) });
  const probe = await probeModel({ modelId: tiny.modelId, dirs: [tmp], spec: { pooling: 'mean', maxTokens: 256 } });
  if (!probe.ok) throw new Error(probe.reason);
  model = probe;
  modelLabel = `tiny model: embedding lookup + ${values.layers} residual FFN layers, dim ${values.dim}, MiniLM tokenizer`;
}

// The main thread needs the tokenizer to produce the raw baseline's inputs; this is untimed setup.
const core = await loadEmbedCore({ root: model.root, spec: model.spec });

// ~150-word-piece chunks of SciFact abstracts when the shared corpus is present, else synthetic prose.
function makeChunks(): string[] {
  const words: string[] = [];
  if (existsSync(values.corpus)) {
    for (const line of readFileSync(values.corpus, 'utf8').split('\n')) {
      if (!line) continue;
      const doc = JSON.parse(line) as { title: string; text: string };
      words.push(...`${doc.title}. ${doc.text}`.split(/\s+/).filter(Boolean));
      if (words.length > passageCount * 200) break;
    }
  } else {
    const lexicon = 'the index stores chunks of project files with their vectors and a sqlite table for keyword search while a worker thread computes embeddings in batches so the interface stays responsive'.split(' ');
    for (let i = 0; i < passageCount * 200; i++) words.push(lexicon[(i * 7919) % lexicon.length]!);
  }
  const chunks: string[] = [];
  let at = 0;
  while (chunks.length < passageCount && at < words.length) {
    // Grow a window until it reaches the target in real word pieces (special tokens included).
    let n = 90;
    while (at + n < words.length && core.tokenize([words.slice(at, at + n).join(' ')])[0]!.ids.length < TARGET_TOKENS) n += 5;
    chunks.push(words.slice(at, at + n).join(' '));
    at += n;
  }
  return chunks;
}

if (values.sweep) {
  await sweep();
  process.exit(0);
}
if (values.variants) {
  await compareVariants(values.variants.split(','));
  process.exit(0);
}

const chunks = makeChunks();
// Passages get the passage prefix in the embedder, so the baseline tokenizes the same prefixed text.
const tokenized = core.tokenize(chunks.map((c) => model.spec.passagePrefix + c));
const plan = planBatches(tokenized.map((t) => t.ids.length), batchSize);
const batches: EncodedBatch[] = plan.map((idx) => core.pad(idx.map((i) => tokenized[i]!)));
const meanTokens = tokenized.reduce((s, t) => s + t.ids.length, 0) / tokenized.length;
await core.dispose();

const session = await ort.InferenceSession.create(model.onnxPath);
const feeds = batches.map((b) => feedOf(session, b));
const embedder = await openEmbedder(model, { batchSize });

console.log(`model: ${modelLabel}`);
console.log(
  `passages: ${chunks.length} (mean ${meanTokens.toFixed(1)} word pieces, from ${existsSync(values.corpus) ? values.corpus : 'synthetic text'}), ` +
    `batch ${batchSize}, ${batches.length} batches, ${rounds} rounds`,
);
// Warm both paths once so neither pays one-off allocation costs inside the timing.
await session.run(feeds[0]!);
await embedder.embedPassages(plan[0]!.map((i) => chunks[i]!));

// Paired timing: each batch goes through raw onnxruntime and through the embedder (texts in, vectors out: tokenize,
// post to the worker, infer, pool, normalize, post back) back to back, alternating which goes first. Other load on
// this 2-core machine then hits both sides alike instead of whichever phase it happened to coincide with.
let rawMs = 0;
let embedderMs = 0;
const roundRatios: number[] = [];
for (let r = 0; r < rounds; r++) {
  let roundRaw = 0;
  let roundEmbedder = 0;
  for (let b = 0; b < plan.length; b++) {
    const texts = plan[b]!.map((i) => chunks[i]!);
    const timeRaw = async () => {
      const t0 = performance.now();
      await session.run(feeds[b]!);
      roundRaw += performance.now() - t0;
    };
    const timeEmbedder = async () => {
      const t0 = performance.now();
      const vectors = await embedder.embedPassages(texts);
      roundEmbedder += performance.now() - t0;
      if (vectors.length !== texts.length || vectors.some((v) => v.length !== model.dims)) throw new Error('embedder returned wrong shapes');
    };
    if ((b + r) % 2) {
      await timeRaw();
      await timeEmbedder();
    } else {
      await timeEmbedder();
      await timeRaw();
    }
  }
  rawMs += roundRaw;
  embedderMs += roundEmbedder;
  roundRatios.push(roundRaw / roundEmbedder);
  const rate = (ms: number) => (chunks.length / (ms / 1000)).toFixed(1);
  console.log(`round ${r + 1}: raw onnxruntime ${rate(roundRaw)} passages/s, embedder ${rate(roundEmbedder)} passages/s, ratio ${(roundRaw / roundEmbedder).toFixed(3)}`);
}
// One call with every passage, as ingest makes it: the worker tokenizes all, plans batches, streams them back.
const t0 = performance.now();
await embedder.embedPassages(chunks);
const oneCall = chunks.length / ((performance.now() - t0) / 1000);

// The whole ingest-with-embeddings pipeline on the same passages: read a JSONL file, chunk, index in SQLite, then
// the backfill job (read chunks, embed in the worker, write vectors per batch transaction) into a fresh store.
const pipeDir = await mkdtemp(join(tmpdir(), 'cp-bench-pipeline-'));
writeFileSync(join(pipeDir, 'passages.jsonl'), chunks.map((text, i) => JSON.stringify({ _id: `p${i}`, title: '', text })).join('\n'));
const pipeStore = openStore(join(pipeDir, 'pipeline.db'));
const p0 = performance.now();
const ingested = await ingestPaths(pipeStore.db, [join(pipeDir, 'passages.jsonl')]);
const backfill = await backfillVectors(pipeStore.db, embedder);
const pipelineMs = performance.now() - p0;
pipeStore.close();
await rm(pipeDir, { recursive: true, force: true });
if (backfill.embedded !== ingested.chunks) throw new Error(`pipeline embedded ${backfill.embedded} of ${ingested.chunks} chunks`);

const ratio = rawMs / embedderMs;
const total = chunks.length * rounds;
console.log(
  `total: raw onnxruntime ${(total / (rawMs / 1000)).toFixed(1)} passages/s, embedder ${(total / (embedderMs / 1000)).toFixed(1)} passages/s ` +
    `(single ${chunks.length}-passage call: ${oneCall.toFixed(1)} passages/s)`,
);
console.log(`ratio ${ratio.toFixed(3)} (rounds ${roundRatios.map((x) => x.toFixed(3)).join(', ')}); target >= 0.9: ${ratio >= 0.9 ? 'PASS' : 'FAIL'}`);
const rawRate = total / (rawMs / 1000);
const pipelineRate = ingested.chunks / (pipelineMs / 1000);
console.log(
  `ingest + embed pipeline (JSONL → chunks → SQLite/FTS5 → worker embedding → vectors): ${ingested.chunks} chunks in ${(pipelineMs / 1000).toFixed(2)} s = ` +
    `${pipelineRate.toFixed(1)} passages/s; vs raw onnxruntime ${rawRate.toFixed(1)}: ratio ${(pipelineRate / rawRate).toFixed(3)}`,
);

await embedder.close();
await session.release();
if (tmp) await rm(tmp, { recursive: true, force: true });
process.exitCode = ratio >= 0.9 ? 0 : 1;

// Whole documents (title + text), truncated by the tokenizer at the model's limit, as chunks of prose arrive.
function corpusPassages(): string[] {
  if (!existsSync(values.corpus)) throw new Error(`--sweep needs --corpus <BEIR corpus.jsonl> (no ${values.corpus})`);
  const out: string[] = [];
  for (const line of readFileSync(values.corpus, 'utf8').split('\n')) {
    if (!line) continue;
    const doc = JSON.parse(line) as { title: string; text: string };
    out.push(`${doc.title}\n${doc.text}`);
    if (out.length === passageCount) break;
  }
  return out;
}

async function sweep(): Promise<void> {
  const texts = corpusPassages();
  const tok = core.tokenize(texts.map((t) => model.spec.passagePrefix + t));
  await core.dispose();
  const lengths = tok.map((t) => t.ids.length).sort((a, b) => a - b);
  console.log(`model: ${modelLabel}`);
  console.log(
    `sweep: ${tok.length} passages from ${values.corpus}, word pieces p10/p50/p90/max ${[0.1, 0.5, 0.9].map((q) => lengths[Math.floor(q * (lengths.length - 1))]).join('/')}/${lengths.at(-1)}`,
  );
  console.log('batch  threads  order     padding  passages/s  passages per CPU-s  10k chunks');
  const arrival = (n: number, size: number) => Array.from({ length: Math.ceil(n / size) }, (_, b) => Array.from({ length: Math.min(size, n - b * size) }, (_, i) => b * size + i));
  const configs: [number, number, 'sorted' | 'arrival', number][] = [];
  for (const threads of [2, 1]) for (const batch of [8, 16, 32, 64]) configs.push([batch, threads, 'sorted', 1]);
  configs.push([32, 2, 'arrival', 1]);
  // Two sessions of one thread each, batches handed out alternately and run at the same time (data parallel).
  for (const batch of [16, 32]) configs.push([batch, 1, 'sorted', 2]);
  for (const [batch, threads, order, sessionCount] of configs) {
    const sessions = await Promise.all(
      Array.from({ length: sessionCount }, () => ort.InferenceSession.create(model.onnxPath, { intraOpNumThreads: threads, interOpNumThreads: 1 })),
    );
    const session = sessions[0]!;
    const plan = order === 'sorted' ? planBatches(tok.map((t) => t.ids.length), batch) : arrival(tok.length, batch);
    const padded = plan.map((idx) => core.pad(idx.map((i) => tok[i]!)));
    const real = tok.reduce((s, t) => s + t.ids.length, 0);
    const slots = padded.reduce((s, b) => s + b.size * b.seqLen, 0);
    const feed = (b: EncodedBatch) => feedOf(session, b);
    for (const x of sessions) await x.run(feed(padded[0]!));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(
      sessions.map(async (x, si) => {
        for (let b = si; b < padded.length; b += sessions.length) await x.run(feed(padded[b]!));
      }),
    );
    const wall = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const cpuS = (cpu.user + cpu.system) / 1e6;
    const rate = tok.length / wall;
    console.log(
      `${String(batch).padStart(5)}  ${`${sessionCount > 1 ? `${sessionCount}x` : ''}${threads}`.padStart(7)}  ${order.padEnd(8)}  ${((100 * (slots - real)) / slots).toFixed(0).padStart(5)} %  ${rate.toFixed(1).padStart(10)}  ${(tok.length / cpuS).toFixed(1).padStart(18)}  ${(10000 / rate).toFixed(0).padStart(8)} s`,
    );
    for (const x of sessions) await x.release();
  }
}

/** The first `passageCount` chunks of the corpus as the store holds them and the backfill embeds them. */
async function storeChunks(): Promise<string[]> {
  if (!existsSync(values.corpus)) throw new Error(`--variants needs --corpus <BEIR corpus.jsonl> (no ${values.corpus})`);
  const dir = await mkdtemp(join(tmpdir(), 'cp-bench-chunks-'));
  const store = openStore(join(dir, 'chunks.db'));
  try {
    await ingestPaths(store.db, [values.corpus]);
    const rows = store.db
      .prepare('SELECT c.text, c.heading_path AS headingPath, d.title FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY c.id LIMIT ?')
      .all(passageCount) as { text: string; headingPath: string; title: string }[];
    return rows.map((r) => passageText(r.title, r.headingPath, r.text));
  } finally {
    store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The product path for one graph: the worker embedder (lanes of one-thread sessions, each text alone) on a model
 * folder whose `dtype` file is that graph. Returns chunks/s over the texts, after one warm-up call.
 */
async function embedderRate(graph: string, dtype: 'q4' | 'int8' | 'fp32', texts: string[], dir: string): Promise<{ rate: number; cpu: number }> {
  if (!real?.ok) throw new Error('needs the real model');
  const root = join(dir, `root-${dtype}-${Math.random().toString(36).slice(2)}`);
  const modelDir = join(root, real.modelId);
  await mkdir(join(modelDir, 'onnx'), { recursive: true });
  for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) await symlink(join(real.dir, f), join(modelDir, f));
  if (dtype === 'q4') {
    for (const f of ['model_q4.onnx', 'model_q4.onnx_data']) await symlink(join(real.dir, 'onnx', f), join(modelDir, 'onnx', f));
  } else await symlink(graph, join(modelDir, 'onnx', ONNX_FILE_BY_DTYPE[dtype]));
  const found: ModelFound = { ...real, root, dir: modelDir, onnxPath: join(modelDir, 'onnx', ONNX_FILE_BY_DTYPE[dtype]), spec: { ...real.spec, dtype }, externalData: dtype === 'q4' ? ['onnx/model_q4.onnx_data'] : [] };
  const embedder = await openEmbedder(found, { ...(values.lanes ? { lanes: Number(values.lanes) } : {}) });
  try {
    await embedder.embedPassages(texts.slice(0, 8));
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < texts.length; i += 256) await embedder.embedPassages(texts.slice(i, i + 256));
    const wall = (performance.now() - t0) / 1000;
    // Worker threads count in this process's CPU time.
    const c = process.cpuUsage(c0);
    return { rate: texts.length / wall, cpu: (c.user + c.system) / 1e6 / wall };
  } finally {
    await embedder.close();
  }
}

async function compareVariants(names: string[]): Promise<void> {
  if (!real?.ok) throw new Error('--variants needs the real model (`npm run models:real`)');
  const texts = await storeChunks();
  const tok = core.tokenize(texts.map((t) => model.spec.passagePrefix + t));
  await core.dispose();
  // Each text alone, as the embedder runs them: the derived graphs have no padding mask (model-variants.ts).
  const plan = planBatches(tok.map((t) => t.ids.length), 1);
  const padded = plan.map((idx) => core.pad(idx.map((i) => tok[i]!)));
  const tokens = tok.reduce((s, t) => s + t.ids.length, 0);
  const q4Path = join(model.dir, 'onnx', 'model_q4.onnx');
  const dir = await mkdtemp(join(tmpdir(), 'cp-bench-variants-'));
  const paths: string[] = [];
  for (const name of names) {
    if (name === 'q4') paths.push(q4Path);
    else {
      const out = join(dir, `${name}.onnx`);
      // int8 as shipped: with the pinned model's smoothing (npm-model.ts).
      await writeDerivedVariant(q4Path, name as DerivedVariant, out, name === 'int8' ? { smoothChannels: MINILM_SMOOTH_CHANNELS } : {});
      paths.push(out);
    }
  }
  const threads = values.threads ? Number(values.threads) : undefined;
  const dtypeOf = (name: string) => (name === 'q4' ? 'q4' : name === 'fp32' ? 'fp32' : 'int8');
  const options = (name: string): ort.InferenceSession.SessionOptions => ({
    ...(threads ? { intraOpNumThreads: threads, interOpNumThreads: 1 } : {}),
    graphOptimizationLevel: (values.opt ?? GRAPH_OPTIMIZATION[dtypeOf(name)] ?? 'all') as 'all',
    ...(values['no-spin'] ? { extra: { session: { intra_op: { allow_spinning: '0' } } } } : {}),
  });
  const sessions = await Promise.all(paths.map((p, v) => ort.InferenceSession.create(p, options(names[v]!))));
  for (const x of sessions) await x.run(feedOf(x, padded[0]!));
  const wall = names.map(() => 0);
  const cpu = names.map(() => 0);
  const vectors = names.map(() => new Array<Float32Array>(tok.length));
  for (let b = 0; b < padded.length; b++) {
    for (let j = 0; j < names.length; j++) {
      const v = (b + j) % names.length;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const out = await sessions[v]!.run(feedOf(sessions[v]!, padded[b]!));
      wall[v] += performance.now() - t0;
      const c = process.cpuUsage(c0);
      cpu[v] += (c.user + c.system) / 1000;
      const h = out.last_hidden_state!.data as Float32Array;
      const pooled = normalizeRows(meanPool(h, padded[b]!.size, padded[b]!.seqLen, model.dims, padded[b]!.lengths), model.dims);
      plan[b]!.forEach((i, r) => (vectors[v]![i] = pooled.slice(r * model.dims, (r + 1) * model.dims)));
    }
  }
  console.log(`model: ${modelLabel}`);
  console.log(
    `variants: ${tok.length} passages from ${values.corpus} (mean ${(tokens / tok.length).toFixed(1)} word pieces), each alone, ` +
      `threads ${threads ?? 'onnxruntime default'}, graph optimisation ${values.opt ?? 'as the embedder'}${values['no-spin'] ? ', no spinning' : ''}`,
  );
  console.log('one session, interleaved:');
  console.log('variant       chunks/s  word pieces/s  chunks per CPU-s  cosine to first (mean / min)');
  names.forEach((name, v) => {
    const sims = vectors[v]!.map((x, i) => x.reduce((s, y, d) => s + y * vectors[0]![i]![d]!, 0));
    console.log(
      `${name.padEnd(12)} ${(tok.length / (wall[v]! / 1000)).toFixed(1).padStart(9)}  ${(tokens / (wall[v]! / 1000)).toFixed(0).padStart(13)}  ${(tok.length / (cpu[v]! / 1000)).toFixed(1).padStart(16)}  ${(sims.reduce((a, b) => a + b, 0) / sims.length).toFixed(5)} / ${Math.min(...sims).toFixed(5)}`,
    );
  });
  for (const x of sessions) await x.release();
  // The product path, one variant after another (so not interleaved: compare runs at the same load).
  const lanes = values.lanes ? Number(values.lanes) : defaultLanes();
  console.log(`the embedder (${lanes} lanes of ${Math.max(1, Math.floor(availableParallelism() / lanes))} thread(s), each text alone), load ${loadavg()[0]!.toFixed(2)} before:`);
  console.log('variant       chunks/s  word pieces/s  cores busy');
  for (const [v, name] of names.entries()) {
    const dtype = dtypeOf(name);
    const { rate, cpu: cores } = await embedderRate(paths[v]!, dtype, texts, dir);
    console.log(`${name.padEnd(12)} ${rate.toFixed(1).padStart(9)}  ${((rate * tokens) / tok.length).toFixed(0).padStart(13)}  ${cores.toFixed(2).padStart(10)}`);
  }
  console.log(`load ${loadavg()[0]!.toFixed(2)} after`);
  await rm(dir, { recursive: true, force: true });
}

/** One padded batch as the session's inputs (a model without token_type_ids simply does not ask for them). */
function feedOf(session: ort.InferenceSession, b: EncodedBatch): Record<string, ort.Tensor> {
  const shape = [b.size, b.seqLen];
  const all: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor('int64', b.inputIds, shape),
    attention_mask: new ort.Tensor('int64', b.attentionMask, shape),
    token_type_ids: new ort.Tensor('int64', b.tokenTypeIds, shape),
  };
  return Object.fromEntries(session.inputNames.map((n) => [n, all[n]!]));
}
