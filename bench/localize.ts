// npm run bench:localize -- <git repo dir> [--limit N] [--max-tokens 8000] [--subjects fix|any] [--keep-db FILE] [--model ID]
// Tasks from the repository's own history (fix commits touching 1–3 non-test source files; query = subject without
// its prefix and PR number; gold = those files), the repository's *current HEAD tree* indexed once into a fresh
// store (not the tree at each commit), then for each task: is a gold file in the packet (real assembly, ao-v1,
// --max-tokens), in the top-10 search hits, in the top-10 files of an idf-weighted grep? BM25 only, no model.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ingestPaths } from '../src/main/core/ingest/index.ts';
import { createGrepBaseline, scoreFiles } from '../src/main/core/localize/grep-baseline.ts';
import { buildTasks } from '../src/main/core/localize/tasks.ts';
import { buildPacket } from '../src/main/core/packet/assemble.ts';
import { createStoreSources } from '../src/main/core/packet/store-sources.ts';
import { chooseRetriever, createBm25Retriever, openSemanticSearch } from '../src/main/core/search/index.ts';
import { openEmbedder } from '../src/main/core/embed/embedder.ts';
import { realModelCacheDir } from '../src/main/core/embed/npm-model.ts';
import { probeModel } from '../src/main/core/embed/probe.ts';
import { backfillVectors } from '../src/main/core/vectors/index.ts';
import { defaultModelDirs } from '../src/main/paths.ts';
import { cachedEmbedder, embedCachePath } from './lib/embed-cache.ts';
import { openStore } from '../src/main/core/store/index.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    limit: { type: 'string', default: '100' },
    'max-tokens': { type: 'string', default: '8000' },
    subjects: { type: 'string', default: 'fix' },
    'keep-db': { type: 'string' },
    verbose: { type: 'boolean', default: false },
    // Embed the tree with this model (vectors cached under .bench/) and retrieve with the factory's hybrid choice.
    model: { type: 'string' },
  },
});
if (!positionals[0]) {
  console.error('usage: npm run bench:localize -- <git repo dir> [--limit N] [--max-tokens 8000] [--subjects fix|any]');
  process.exit(2);
}
const repo = resolve(positionals[0]);
const maxTokens = Number(values['max-tokens']);
const subjects = values.subjects === 'any' ? 'any' : 'fix';
const tasks = buildTasks(repo, { limit: Number(values.limit), subjects });
if (tasks.length === 0) {
  console.error(`no tasks in ${repo}: no non-merge ${subjects === 'fix' ? '"fix…" ' : ''}commit touches 1–3 existing non-test source files (try --subjects any)`);
  process.exit(1);
}

const tmp = mkdtempSync(join(tmpdir(), 'cp-localize-'));
const dbPath = values['keep-db'] ?? join(tmp, 'bench.db');
rmSync(dbPath, { force: true });
const store = openStore(dbPath);
const t0 = performance.now();
const report = await ingestPaths(store.db, [repo]);
const ingestS = (performance.now() - t0) / 1000;

// Hits cite stored paths; gold paths are relative to the repository root, so stored ones are made relative too
// (whether the store keeps them absolute or already relative to their root).
const rel = (p: string) => (p.startsWith(repo + sep) ? relative(repo, p) : p).split(sep).join('/');
const pathOfSource = (source: string) => {
  const noLines = source.replace(/:\d+-\d+$/, '');
  const hash = noLines.lastIndexOf('#');
  return rel(hash >= 0 ? noLines.slice(0, hash) : noLines);
};

const indexed = store.db.prepare("SELECT path FROM sources WHERE status = 'indexed'").all() as { path: string }[];
const grep = createGrepBaseline(indexed.map((s) => ({ path: rel(s.path), text: readFileSync(s.path, 'utf8') })));
const bm25 = createBm25Retriever(store.db);
// The packet retrieves as `contextpack pack` does: the retriever factory's choice for packets (a fresh store has
// no vectors, so BM25 with text MMR); search top-10 is the plain BM25 order `contextpack search` gives. With
// --model, the tree is embedded first and both use the factory's hybrid choice.
const modelDirs = [...defaultModelDirs(process.env), realModelCacheDir()];
if (values.model) await embedTree(values.model);
const openSemantic = values.model ? () => openSemanticSearch(store.db, { dirs: modelDirs, inProcess: true }) : async () => ({ ok: false as const, reason: 'bench: BM25 only' });
const choice = await chooseRetriever({ db: store.db, vec: store.vec, bm25, openSemantic }, { purpose: 'packet' });
const retriever = values.model ? (await chooseRetriever({ db: store.db, vec: store.vec, bm25, openSemantic }, { purpose: 'search' })).retriever : bm25;

async function embedTree(modelId: string): Promise<void> {
  const found = await probeModel({ modelId, dirs: modelDirs });
  if (!found.ok) throw new Error(`${found.reason}; \`npm run models:real\` fetches the real model`);
  const embedder = await openEmbedder(found);
  try {
    const cached = cachedEmbedder(embedder, embedCachePath(fileURLToPath(new URL('../.bench/', import.meta.url)), found.fingerprint));
    const t = performance.now();
    const fill = await backfillVectors(store.db, cached, { onProgress: (p) => process.stderr.write(`\rembedding ${p.done}/${p.total}`) });
    process.stderr.write(`\rembedded ${fill.embedded} chunks with ${modelId} in ${((performance.now() - t) / 1000).toFixed(1)} s (${cached.hits()} cached)\n`);
  } finally {
    await embedder.close();
  }
}
const sources = createStoreSources(store.db, { retriever: choice.retriever, retrievalFallback: choice.fallbackReason });

interface Tally { hit: number; recall: number; files: number }
const sum = { packet: { hit: 0, recall: 0, files: 0 }, search: { hit: 0, recall: 0, files: 0 }, grep: { hit: 0, recall: 0, files: 0 }, grepSame: { hit: 0, recall: 0, files: 0 } } satisfies Record<string, Tally>;
let tokensUsed = 0;
let evidenceTokens = 0;
const packetMs: number[] = [];
for (const task of tasks) {
  const s = performance.now();
  const packet = await buildPacket({ query: task.query, maxTokens }, { sources });
  packetMs.push(performance.now() - s);
  const packetFiles = new Set(packet.included.filter((i) => i.kind === 'evidence').map((i) => pathOfSource(i.source)));
  tokensUsed += packet.budgets.total_tokens;
  evidenceTokens += packet.sections.find((x) => x.name === 'INTEL')?.budget.tokens ?? 0;
  const searchFiles = new Set((await retriever.search({ text: task.query, k: 10 })).map((h) => rel(h.path)));
  const grepFiles = grep.top(task.query, 10);
  // The packet shows more files than ten: grep given the same number of files is the fair comparison.
  const grepSame = grep.top(task.query, packetFiles.size);
  const rows: [keyof typeof sum, Iterable<string>, number][] = [
    ['packet', packetFiles, packetFiles.size], ['search', searchFiles, searchFiles.size], ['grep', grepFiles, grepFiles.length], ['grepSame', grepSame, grepSame.length],
  ];
  const line: string[] = [];
  for (const [k, found, n] of rows) {
    const r = scoreFiles(found, task.gold);
    sum[k].hit += r.hit;
    sum[k].recall += r.recall;
    sum[k].files += n;
    line.push(`${k}=${r.hit}`);
  }
  if (values.verbose) console.log(`${task.commit.slice(0, 8)} ${line.join(' ')} ${JSON.stringify(task.query)} → ${task.gold.join(', ')}`);
}
packetMs.sort((a, b) => a - b);
const n = tasks.length;
const f = (x: number) => (x / n).toFixed(2);
console.log(`repo ${repo} · ${n} tasks (${subjects === 'fix' ? 'fix commits' : 'all commits'}) · HEAD tree indexed: ${report.files} files, ${report.chunks} chunks in ${ingestS.toFixed(1)} s · ${values.model ? `search ${retriever.mode}${retriever.params?.fusion ? ` (${retriever.params.fusion.method})` : ''}, ${values.model}` : 'bm25, no embedding model'}`);
console.log(`packet: ao-v1, --max-tokens ${maxTokens}, retriever ${choice.retriever.mode}${choice.retriever.params?.mmr ? ` + ${choice.retriever.params.mmr.similarity} MMR λ ${choice.retriever.params.mmr.lambda}` : ''}: mean ${Math.round(tokensUsed / n)} tokens (${((100 * tokensUsed) / n / maxTokens).toFixed(0)} % of the budget), evidence ${Math.round(evidenceTokens / n)} tokens, p50 ${packetMs[Math.floor(n / 2)]!.toFixed(0)} ms`);
console.log('');
console.log('| | hit rate | file recall | files shown |');
console.log('|---|---:|---:|---:|');
console.log(`| packet (${maxTokens / 1000}k tokens) | ${f(sum.packet.hit)} | ${f(sum.packet.recall)} | ${f(sum.packet.files)} |`);
console.log(`| search top-10 chunks | ${f(sum.search.hit)} | ${f(sum.search.recall)} | ${f(sum.search.files)} |`);
console.log(`| idf-weighted grep, top-10 files | ${f(sum.grep.hit)} | ${f(sum.grep.recall)} | ${f(sum.grep.files)} |`);
console.log(`| idf-weighted grep, as many files as the packet | ${f(sum.grepSame.hit)} | ${f(sum.grepSame.recall)} | ${f(sum.grepSame.files)} |`);
store.close();
if (!values['keep-db']) rmSync(tmp, { recursive: true, force: true });
