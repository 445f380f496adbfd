// npm run bench:localize -- <git repo dir>... [--limit N] [--max-tokens 8000] [--verbose] [--only pack|all] [--model ID]
//   [--fusion rrf|normalized:W]  (with --model: hybrid with that fusion and BM25 weight W, even on a code-heavy store)
// Line-level localization on real fix commits (issue #23): for each fix commit (subject starts with `fix`,
// modifies 1–3 non-test source files), the *parent* tree is extracted, indexed into a fresh store (BM25 only, no
// model unless --model), and the commit subject (without prefix and PR numbers) is the query. Gold: the files the fix modifies and
// its hunks at the parent (deleted lines, or the line just before an insertion). For the packet (real ao-v1
// assembly at --max-tokens), search top-10 chunks and an idf-weighted grep (whole files, top 10 and as many as fit
// the same token budget): file hit / recall, hunk hit / recall, the share of evidence items that are tests, docs,
// changelogs, lock, generated files or images, and tokens. --verbose: per task, the packet's items and each gold hunk
// it missed with what it held of that file instead.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { ingestPaths } from '../src/main/core/ingest/index.ts';
import { createGrepBaseline, scoreFiles } from '../src/main/core/localize/grep-baseline.ts';
import { buildLineTasks, scoreHunks, subjectNamesHunk, type ShownSpan } from '../src/main/core/localize/line-tasks.ts';
import { buildPacket } from '../src/main/core/packet/assemble.ts';
import { createStoreSources } from '../src/main/core/packet/store-sources.ts';
import { isNoiseRole, pathRole } from '../src/main/core/search/code-paths.ts';
import { chooseRetriever, createBm25Retriever, openSemanticSearch, type Retriever } from '../src/main/core/search/index.ts';
import { openEmbedder } from '../src/main/core/embed/embedder.ts';
import { realModelCacheDir } from '../src/main/core/embed/npm-model.ts';
import { probeModel } from '../src/main/core/embed/probe.ts';
import { backfillVectors } from '../src/main/core/vectors/index.ts';
import { defaultModelDirs } from '../src/main/paths.ts';
import { cachedEmbedder, embedCachePath } from './lib/embed-cache.ts';
import { evidenceSpans, spansOf } from './lib/packet-spans.ts';
import { openStore } from '../src/main/core/store/index.ts';
import { createTokenCounter } from '../src/main/core/tokens/index.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    limit: { type: 'string', default: '30' },
    'max-tokens': { type: 'string', default: '8000' },
    verbose: { type: 'boolean', default: false },
    // Embed each tree with this model (vectors cached under .bench/) and retrieve with the factory's hybrid choice.
    model: { type: 'string' },
    // Hybrid forced past the code-heavy rule (best-retriever.ts), to measure it: rrf, or normalized:<bm25 weight>.
    fusion: { type: 'string' },
  },
});
const forcedFusion = values.fusion ? parseFusion(values.fusion) : null;
function parseFusion(spec: string): { fusion: 'rrf' | 'normalized'; weights?: [number, number] } {
  if (spec === 'rrf') return { fusion: 'rrf' };
  const m = /^normalized:(0(?:\.\d+)?|1)$/.exec(spec);
  if (!m) throw new Error(`--fusion: rrf or normalized:<bm25 weight in 0..1>, not ${spec}`);
  return { fusion: 'normalized', weights: [Number(m[1]), 1 - Number(m[1])] };
}
if (positionals.length === 0) {
  console.error('usage: npm run bench:localize -- <git repo dir>... [--limit N] [--max-tokens 8000] [--verbose] [--model ID]');
  process.exit(2);
}
const maxTokens = Number(values['max-tokens']);
const counter = createTokenCounter('o200k_base');

// --model: every parent tree is embedded (vectors cached by text, so the trees' shared chunks are embedded once) and
// the packet and search top-10 use the retriever factory's choice, as `contextpack pack` and `search` do.
const modelDirs = [...defaultModelDirs(process.env), realModelCacheDir()];
const embedder = values.model ? await openModel(values.model) : null;
async function openModel(modelId: string) {
  const found = await probeModel({ modelId, dirs: modelDirs });
  if (!found.ok) throw new Error(`${found.reason}; \`npm run models:real\` fetches the real model`);
  return cachedEmbedder(await openEmbedder(found), embedCachePath(fileURLToPath(new URL('../.bench/', import.meta.url)), found.fingerprint));
}

interface Row { fileHit: number; fileRecall: number; hunkHit: number; hunkRecall: number; noise: number; items: number; tokens: number; over: number }
const METHODS = ['packet', 'search', 'grep10', 'grepBudget'] as const;
type Method = (typeof METHODS)[number];
const LABEL: Record<Method, string> = { packet: `packet (${maxTokens / 1000}k)`, search: 'search top-10 chunks', grep10: 'grep top-10 files', grepBudget: `grep, whole files within ${maxTokens / 1000}k` };

const table: string[] = [];
for (const dir of positionals) {
  const repo = resolve(dir);
  const tasks = buildLineTasks(repo, { limit: Number(values.limit) });
  if (tasks.length === 0) {
    console.error(`no tasks in ${repo}: no non-merge "fix…" commit modifies 1–3 non-test source files`);
    continue;
  }
  const sum = Object.fromEntries(METHODS.map((m) => [m, { fileHit: 0, fileRecall: 0, hunkHit: 0, hunkRecall: 0, noise: 0, items: 0, tokens: 0, over: 0 }])) as Record<Method, Row>;
  const packetMs: number[] = [];
  let compressed = 0;
  let excerpts = 0;
  // Tasks whose subject names a hunk's place (subjectNamesHunk), and the packet's hunk hits on them.
  let named = 0;
  let namedHits = 0;
  let ingestS = 0;
  for (const task of tasks) {
    const tmp = mkdtempSync(join(tmpdir(), 'cp-localize-'));
    const tree = join(tmp, basename(repo));
    mkdirSync(tree);
    execFileSync('sh', ['-c', `git -C "$0" archive "$1" | tar -x -C "$2"`, repo, task.parent, tree]);
    const store = openStore(join(tmp, 'bench.db'));
    const t0 = performance.now();
    await ingestPaths(store.db, [tree]);
    ingestS += (performance.now() - t0) / 1000;
    const rel = (p: string) => (p.startsWith(tree + sep) ? relative(tree, p) : p).split(sep).join('/');
    const bm25 = createBm25Retriever(store.db);
    if (embedder) await backfillVectors(store.db, embedder, {});
    const openSemantic = embedder ? () => openSemanticSearch(store.db, { dirs: modelDirs, inProcess: true }) : async () => ({ ok: false as const, reason: 'bench: BM25 only' });
    let choice = await chooseRetriever({ db: store.db, vec: store.vec, bm25, openSemantic }, { purpose: 'packet' });
    let retriever = embedder ? (await chooseRetriever({ db: store.db, vec: store.vec, bm25, openSemantic }, { purpose: 'search' })).retriever : bm25;
    let forcedEngine: { close(): Promise<void> } | null = null;
    if (embedder && forcedFusion) {
      const opened = await openSemanticSearch(store.db, { dirs: modelDirs, inProcess: true });
      if (!opened.ok) throw new Error(opened.reason);
      forcedEngine = opened.engine;
      const hybrid: Retriever = {
        mode: 'hybrid',
        search: (q) => opened.engine.search({ text: q.text, k: q.k, mode: 'hybrid', mmrLambda: 1, fetchK: Math.max(50, q.k), fusion: forcedFusion.fusion, weights: forcedFusion.weights, filters: q.filters }),
      };
      choice = { retriever: hybrid, embedderId: opened.engine.modelId, fallbackReason: null };
      retriever = hybrid;
    }
    const sources = createStoreSources(store.db, { retriever: choice.retriever, retrievalFallback: choice.fallbackReason });

    const s = performance.now();
    const packet = await buildPacket({ query: task.query, maxTokens }, { sources });
    packetMs.push(performance.now() - s);
    // A compressed item (003's compress before drop) does not show the lines its label names: an excerpt counts the
    // lines it shows (`shown`), a pointer or key sentences count as the file cited, with no lines shown.
    const evidence = packet.included.filter((i) => i.kind === 'evidence');
    const packetSpans = evidenceSpans(evidence, rel);
    compressed += evidence.filter((i) => i.compressed).length;
    excerpts += evidence.filter((i) => i.shown).length;
    const searchHits = await retriever.search({ text: task.query, k: 10 });
    const searchSpans = searchHits.map((h) => ({ file: rel(h.path), start: h.lineStart, end: h.lineEnd }));

    const indexed = (store.db.prepare("SELECT path FROM sources WHERE status = 'indexed'").all() as { path: string }[]).map((x) => ({ path: rel(x.path), text: readFileSync(x.path, 'utf8') }));
    const texts = new Map(indexed.map((f) => [f.path, f.text]));
    const grepRanked = createGrepBaseline(indexed).top(task.query, 200);
    const wholeFile = (f: string): ShownSpan => ({ file: f, start: 1, end: Number.MAX_SAFE_INTEGER });
    const grep10 = grepRanked.slice(0, 10);
    const grepBudget: string[] = [];
    let grepTokens = 0;
    for (const f of grepRanked) {
      const t = counter.count(texts.get(f) ?? '');
      if (grepTokens + t > maxTokens) continue;
      grepTokens += t;
      grepBudget.push(f);
    }
    const shown: Record<Method, { spans: ShownSpan[]; items: string[]; tokens: number }> = {
      // One file per item (an excerpt's windows are several spans of one item).
      packet: { spans: packetSpans, items: evidence.map((i) => spansOf(i.source, rel)[0]?.file ?? i.source), tokens: packet.budgets.total_tokens },
      search: { spans: searchSpans, items: searchSpans.map((x) => x.file), tokens: searchHits.reduce((n, h) => n + counter.count(h.text), 0) },
      grep10: { spans: grep10.map(wholeFile), items: grep10, tokens: grep10.reduce((n, f) => n + counter.count(texts.get(f) ?? ''), 0) },
      grepBudget: { spans: grepBudget.map(wholeFile), items: grepBudget, tokens: grepTokens },
    };
    const line: string[] = [];
    const names = subjectNamesHunk(task.query, task.hunks, (f) => texts.get(f));
    if (names) {
      named++;
      namedHits += scoreHunks(packetSpans, task.hunks).hit;
    }
    for (const m of METHODS) {
      const x = shown[m];
      const f = scoreFiles(x.spans.map((sp) => sp.file), task.gold);
      const h = scoreHunks(x.spans, task.hunks);
      const r = sum[m];
      r.fileHit += f.hit;
      r.fileRecall += f.recall;
      r.hunkHit += h.hit;
      r.hunkRecall += h.recall;
      r.noise += x.items.length === 0 ? 0 : x.items.filter((p) => isNoiseRole(pathRole(p))).length / x.items.length;
      r.items += x.items.length;
      r.tokens += x.tokens;
      r.over += x.tokens > maxTokens ? 1 : 0;
      line.push(`${m}=${f.hit}/${h.hit}`);
    }
    if (values.verbose) {
      console.log(`${task.commit.slice(0, 8)} ${line.join(' ')}${names ? ' (names a hunk)' : ''} ${JSON.stringify(task.query)} → ${task.hunks.map((h) => `${h.file}:${h.start}-${h.end}`).join(', ')}`);
      console.log(`   packet: ${packet.included.filter((i) => i.kind === 'evidence').map((i) => `${i.source} ${i.score}${i.shown ? ` (excerpt ${i.shown})` : i.compressed ? " (compressed)" : ""}`).join(' | ')}`);
      // The packet's misses: each gold hunk no span shows, and what the packet held of that file instead.
      for (const h of task.hunks.filter((g) => !packetSpans.some((sp) => sp.file === g.file && sp.start <= g.end && sp.end >= g.start))) {
        const held = packetSpans.filter((sp) => sp.file === h.file).map((sp) => `${sp.start}-${sp.end}`);
        // A compressed item whose lines hold the hunk: the packet found it but did not show it.
        const pointer = evidence.find((i) => i.compressed && spansOf(i.source, rel).some((sp) => sp.file === h.file && sp.start <= h.end && sp.end >= h.start));
        console.log(`   missed ${h.file}:${h.start}-${h.end}; packet held ${held.length > 0 ? held.join(', ') : 'nothing'} of that file${pointer ? `; in pointer ${pointer.source} (score ${pointer.score})` : ''}`);
      }
    }
    await forcedEngine?.close();
    store.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  packetMs.sort((a, b) => a - b);
  const n = tasks.length;
  const f = (x: number) => (x / n).toFixed(2);
  console.log(`\n${repo} @ ${git(repo, ['rev-parse', '--short', 'HEAD'])}: ${n} fix commits, each at its parent tree (mean ingest ${(ingestS / n).toFixed(1)} s), packet p50 ${packetMs[Math.floor(n / 2)]!.toFixed(0)} ms, ${compressed} evidence items compressed (${excerpts} to an excerpt, the rest to a pointer or key sentences)`);
  console.log(`subject names a hunk's place in ${named} of ${n} tasks; packet hunk hit on those ${named === 0 ? '-' : (namedHits / named).toFixed(2)}, on the others ${named === n ? '-' : ((sum.packet.hunkHit - namedHits) / (n - named)).toFixed(2)}`);
  console.log('| method | file hit | file recall | hunk hit | hunk recall | noise share | items | tokens | over budget |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const m of METHODS) {
    const r = sum[m];
    const row = `| ${LABEL[m]} | ${f(r.fileHit)} | ${f(r.fileRecall)} | ${f(r.hunkHit)} | ${f(r.hunkRecall)} | ${f(r.noise)} | ${(r.items / n).toFixed(1)} | ${Math.round(r.tokens / n)} | ${r.over} |`;
    console.log(row);
    if (m === 'packet') table.push(`| ${basename(repo)} (${n}) | ${f(r.fileHit)} | ${f(r.hunkHit)} | ${f(r.hunkRecall)} | ${f(r.noise)} | ${Math.round(r.tokens / n)} | ${r.over} | ${named} | ${named === 0 ? '-' : (namedHits / named).toFixed(2)} |`);
  }
}
await embedder?.close();
if (table.length > 1) {
  console.log('\npacket, all repositories');
  console.log('| repository (tasks) | file hit | hunk hit | hunk recall | noise share | tokens | over budget | subject names a hunk | hunk hit there |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const t of table) console.log(t);
}

function git(repo: string, args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
}
