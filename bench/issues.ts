// npm run bench:issues -- <issues.jsonl> [--repos /work/.mirror] [--split dev|check|all] [--repo a/b,c/d] [--limit N]
//   [--budgets 8000,13000,27000] [--k 50] [--task] [--verbose] [--json out.json] [--model ID [--fusion rrf|normalized:W]]
// Packets from the issue an agent is handed (issue #32, part 4): real GitHub issues with the patch that fixed them,
// each taken at the fix's parent commit (the dataset's base_commit; bench/issues-dataset.ts builds one, see
// docs/benchmarks.md). Each tree is extracted from its git directory under --repos (`<owner>+<name>/repo` as the
// `fetch` tool leaves it, `<owner>+<name>`, `<owner>__<name>` or `<name>`), indexed into a fresh store (BM25 only;
// --model: also embedded with that model, vectors cached under .bench/, and search.query and packets.build retrieve
// hybrid with --fusion (rrf, or normalized:<bm25 weight>; default the product's DEFAULT_HYBRID) even on a code-heavy
// store, as bench:localize --fusion does: ApiOptions.retrieval, ignoreCodeShare), and served by the API as
// `contextpack mcp` serves it (createApi, transport mcp, no background work; queries embedded by its worker): the whole
// issue text is the query of `search.query` (k hits, ranked to files) and of `packets.build` at each budget
// (--task: also its task). Gold: the non-test source files the patch modifies and its hunks at the base.
// Reports per repository and overall — packet: file cited (an item of a gold file, a pointer included), file shown
// (lines of a gold file shown), hunk hit and hunk recall (as bench:localize counts them), tokens, packets over
// budget; search: file Acc@1/3/5 (distinct files in hit order); a same-run whole-file BM25 over the indexed non-test
// source files (the SWE-bench paper's retrieval): file Acc@1/3/5 and, filled to each budget with whole files in rank order,
// file shown and hunk hit/recall; p50/p95 of the API calls (a warm-up search first, as a running server has
// served calls before); issues the API refused. --split: `check` runs only CHECK_REPOS (not to be tuned on),
// `dev` the others. --verbose: per issue, the ranks and what the 8k packet held of the gold files. The header and the
// --json output name the retriever (bm25, or hybrid with its fusion and the model's id, dtype and fingerprint).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createApi } from '../src/main/api/index.ts';
import { openEmbedder } from '../src/main/core/embed/embedder.ts';
import { realModelCacheDir } from '../src/main/core/embed/npm-model.ts';
import { probeModel } from '../src/main/core/embed/probe.ts';
import { ingestPaths } from '../src/main/core/ingest/index.ts';
import { distinctInOrder, fileAccAt, isHeldOut, parseIssueSet, patchGold, type IssueInstance } from '../src/main/core/localize/issue-set.ts';
import { scoreHunks, type GoldHunk, type ShownSpan } from '../src/main/core/localize/line-tasks.ts';
import { isSourcePath } from '../src/main/core/localize/tasks.ts';
import { createWholeFileBm25 } from '../src/main/core/localize/whole-file-bm25.ts';
import { DEFAULT_HYBRID, type RetrievalOverrides } from '../src/main/core/search/index.ts';
import { openStore } from '../src/main/core/store/index.ts';
import { createTokenCounter } from '../src/main/core/tokens/index.ts';
import { backfillVectors } from '../src/main/core/vectors/index.ts';
import { defaultModelDirs } from '../src/main/paths.ts';
import type { PacketView, SearchResponse } from '../src/shared/api/index.ts';
import { cachedEmbedder, embedCachePath } from './lib/embed-cache.ts';
import { evidenceSpans, spansOf } from './lib/packet-spans.ts';
import { findGitDir } from './lib/git-dirs.ts';
import { percentile } from './lib/trec-eval.ts';

/** A third of the development set's repositories, kept to check a change on after it was tuned on the others. */
const CHECK_REPOS = new Set(['sharkdp/bat', 'tokio-rs/tracing', 'killercup/cargo-edit', 'sharkdp/fd', 'pinterest/ktlint']);

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    repos: { type: 'string', default: '/work/.mirror' },
    split: { type: 'string', default: 'all' },
    repo: { type: 'string' },
    limit: { type: 'string' },
    budgets: { type: 'string', default: '8000,13000,27000' },
    k: { type: 'string', default: '50' },
    task: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    json: { type: 'string' },
    report: { type: 'boolean', default: false },
    // Embed each tree with this model (vectors cached under .bench/) and retrieve hybrid, past the code-heavy rule.
    model: { type: 'string' },
    // With --model: rrf, or normalized:<bm25 weight in 0..1>; default DEFAULT_HYBRID (normalized, equal weights).
    fusion: { type: 'string' },
  },
});
const usage =
  'usage: npm run bench:issues -- <issues.jsonl> [--repos dir] [--split dev|check|all] [--repo a/b,c/d] [--limit N] [--budgets 8000,13000,27000] [--k 50] [--task] [--verbose] [--json out.json]\n' +
  '         [--model ID [--fusion rrf|normalized:W]]   (hybrid: BM25 + that model\'s vectors, fused so, even on a code-heavy store)\n' +
  '       npm run bench:issues -- --report <results.json>...   (the tables of runs written with --json, together)';
if ((values.report ? positionals.length < 1 : positionals.length !== 1) || !['dev', 'check', 'all'].includes(values.split!)) {
  console.error(usage);
  process.exit(2);
}
// --report: the rows of earlier runs (one per repository keeps each run short) summed up as one.
const reported = values.report ? positionals.map((f) => JSON.parse(readFileSync(f, 'utf8')) as { dataset: string; budgets: number[]; k: number; task: boolean; retriever?: RetrieverRun; instances: Row[] }) : null;
const datasetPath = reported ? reported[0]!.dataset : positionals[0]!;
const budgets = reported ? reported[0]!.budgets : values.budgets!.split(',').map(Number);
if (budgets.some((b) => !Number.isInteger(b) || b < 500)) {
  console.error(`--budgets: whole numbers of tokens, at least 500 each (got ${values.budgets})`);
  process.exit(2);
}
const K = reported ? reported[0]!.k : Number(values.k);
const counter = createTokenCounter('o200k_base');

/** Which retriever a run measured: BM25 only (the default, and every run written before --model), or hybrid. */
type RetrieverRun =
  | { mode: 'bm25' }
  | { mode: 'hybrid'; fusion: 'rrf' | 'normalized'; weights: [number, number] | null; model: string; dtype: string; fingerprint: string };
function parseFusion(spec: string): RetrievalOverrides {
  if (spec === 'rrf') return { fusion: 'rrf' };
  const m = /^normalized:(0(?:\.\d+)?|1(?:\.0+)?)$/.exec(spec);
  if (!m) throw new Error(`--fusion: rrf or normalized:<bm25 weight in 0..1>, not ${spec}`);
  return { fusion: 'normalized', weights: [Number(m[1]), 1 - Number(m[1])] };
}
if (values.fusion && !values.model) {
  console.error('--fusion needs --model (without a model the bench runs BM25 only)');
  process.exit(2);
}
const fusion: RetrievalOverrides | null = values.model ? (values.fusion ? parseFusion(values.fusion) : { fusion: DEFAULT_HYBRID.fusion, weights: DEFAULT_HYBRID.weights }) : null;
// --model: the query model is found in the same folders (the API's worker embeds each query; passages come from the cache).
const modelDirs = [...defaultModelDirs(process.env), realModelCacheDir()];
const model = values.model && !reported ? await openModel(values.model) : null;
async function openModel(modelId: string) {
  const found = await probeModel({ modelId, dirs: modelDirs });
  if (!found.ok) throw new Error(`${found.reason}; \`npm run models:real\` fetches the real model`);
  const embedder = cachedEmbedder(await openEmbedder(found), embedCachePath(fileURLToPath(new URL('../.bench/', import.meta.url)), found.fingerprint));
  return { embedder, found };
}
const retrieverRun: RetrieverRun =
  model && fusion
    ? { mode: 'hybrid', fusion: fusion.fusion!, weights: fusion.fusion === 'normalized' ? fusion.weights! : null, model: model.found.modelId, dtype: model.found.spec.dtype, fingerprint: model.found.fingerprint }
    : { mode: 'bm25' };
const retrieval: RetrievalOverrides | undefined = model && fusion ? { ...fusion, ignoreCodeShare: true } : undefined;
function describeRetriever(r: RetrieverRun | undefined): string {
  if (!r || r.mode === 'bm25') return 'bm25';
  const how = r.fusion === 'rrf' ? 'rrf' : `normalized, bm25 weight ${r.weights![0]}`;
  return `hybrid (${how}; ${r.model} ${r.dtype}, ${r.fingerprint.slice(0, 12)})`;
}

const all = reported ? [] : parseIssueSet(readFileSync(datasetPath, 'utf8'), datasetPath);
const onlyRepos = values.repo ? new Set(values.repo.split(',').map((r) => r.trim().toLowerCase())) : null;
const groups = new Map<string, IssueInstance[]>();
for (const inst of all) {
  if (isHeldOut(inst.repo)) {
    console.error(`${inst.instance_id}: ${inst.repo} is held out (one of SWE-bench's twelve repositories); not run`);
    continue;
  }
  if (onlyRepos && !onlyRepos.has(inst.repo.toLowerCase())) continue;
  const check = CHECK_REPOS.has(inst.repo);
  if ((values.split === 'check' && !check) || (values.split === 'dev' && check)) continue;
  if (!groups.has(inst.repo)) groups.set(inst.repo, []);
  const list = groups.get(inst.repo)!;
  if (values.limit === undefined || list.length < Number(values.limit)) list.push(inst);
}
if (!reported && groups.size === 0) {
  console.error(`no instance of ${datasetPath} to run (check --split and --repo)`);
  process.exit(1);
}

interface PacketRow { refused: string | null; cited: number; shown: number; hunkHit: number; hunkRecall: number; tokens: number; over: number; ms: number | null }
interface Row {
  id: string;
  repo: string;
  chars: number;
  gold: string[];
  hunks: number;
  ingestS: number;
  /** --model: seconds to embed the tree's chunks (most from the cache after a first run). */
  embedS?: number;
  search: { refused: string | null; acc1: number; acc3: number; acc5: number; ms: number | null; top: string[] };
  packets: Record<number, PacketRow>;
  bm25: { acc1: number; acc3: number; acc5: number; ms: number; top: string[]; filled: Record<number, { shown: number; hunkHit: number; hunkRecall: number; tokens: number; files: number }> };
}

const rows: Row[] = reported ? reported.flatMap((r) => r.instances) : [];
for (const [repo, list] of groups) {
  const gitDir = findGitDir(values.repos!, repo);
  if (!gitDir) {
    console.error(`${repo}: no git directory under ${values.repos} (\`fetch\` github:${repo}, or clone it there); its ${list.length} issues are not run`);
    continue;
  }
  for (const inst of list) {
    const row = await runInstance(inst, gitDir);
    if (row) rows.push(row);
  }
}

async function runInstance(inst: IssueInstance, gitDir: string): Promise<Row | null> {
  const gold = patchGold(inst.patch);
  if (gold.files.length === 0) {
    console.error(`${inst.instance_id}: its patch modifies no existing non-test source file; not run`);
    return null;
  }
  const tmp = mkdtempSync(join(tmpdir(), 'cp-issues-'));
  try {
    const tree = join(tmp, inst.repo.split('/')[1]!);
    mkdirSync(tree);
    try {
      // pipefail: a snapshot missing a blob makes git stop half-way, and a cut tree must not be scored as a real run.
      execFileSync('bash', ['-o', 'pipefail', '-c', 'git -C "$0" archive "$1" | tar -x -C "$2"', gitDir, inst.base_commit, tree], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (err) {
      console.error(`${inst.instance_id}: cannot extract ${inst.base_commit} from ${gitDir}: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}; not run`);
      return null;
    }
    const store = openStore(join(tmp, 'bench.db'));
    const t0 = performance.now();
    await ingestPaths(store.db, [tree]);
    const ingestS = (performance.now() - t0) / 1000;
    let embedS: number | undefined;
    if (model) {
      const t1 = performance.now();
      await backfillVectors(store.db, model.embedder, {});
      embedS = (performance.now() - t1) / 1000;
    }
    const api = createApi({
      store,
      dataDir: join(tmp, 'data'),
      version: 'bench',
      transport: 'mcp',
      background: false,
      watch: false,
      ...(model ? { modelDirs, retrieval } : {}),
    });
    const rel = (p: string) => (isAbsolute(p) ? relative(tree, p) : p).split(sep).join('/');
    try {
      // A running server has served calls before: the first of a process pays for loading the engine's modules.
      const warm = await api.dispatch('search.query', { query: 'main', k: 5 });
      const warmPacket = await api.dispatch('packets.build', { query: 'main', maxTokens: 1000 });
      // A hybrid run that fell back to BM25 (vectors incomplete, model not found) would report BM25's figures as hybrid's.
      if (model && warm.ok && (warm.value as SearchResponse).mode !== 'hybrid') throw new Error(`${inst.instance_id}: search.query did not run hybrid: ${(warm.value as SearchResponse).retrieval?.fallback_reason ?? 'no reason given'}`);
      if (model && warmPacket.ok && (warmPacket.value as PacketView).manifest.models.retriever !== 'hybrid') throw new Error(`${inst.instance_id}: packets.build did not run hybrid: ${(warmPacket.value as PacketView).manifest.retrieval?.fallback_reason ?? 'no reason given'}`);
      const issue = inst.problem_statement;

      let s = performance.now();
      const sr = await api.dispatch('search.query', { query: issue, k: K });
      const searchMs = performance.now() - s;
      const hitFiles = sr.ok ? (sr.value as SearchResponse).hits.map((h) => rel(h.relPath ?? h.path)) : [];
      const ranked = distinctInOrder(hitFiles);
      const search = {
        refused: sr.ok ? null : `${sr.error.code}: ${sr.error.message}`.slice(0, 200),
        acc1: fileAccAt(ranked, gold.files, 1),
        acc3: fileAccAt(ranked, gold.files, 3),
        acc5: fileAccAt(ranked, gold.files, 5),
        ms: sr.ok ? searchMs : null,
        top: ranked.slice(0, 5),
      };

      const packets: Record<number, PacketRow> = {};
      const held: Record<number, string> = {};
      for (const budget of budgets) {
        s = performance.now();
        const pr = await api.dispatch('packets.build', { query: issue, maxTokens: budget, ...(values.task ? { task: issue } : {}) });
        const ms = performance.now() - s;
        if (!pr.ok) {
          packets[budget] = { refused: `${pr.error.code}: ${pr.error.message}`.slice(0, 200), cited: 0, shown: 0, hunkHit: 0, hunkRecall: 0, tokens: 0, over: 0, ms: null };
          continue;
        }
        const packet = (pr.value as PacketView).manifest;
        const evidence = packet.included.filter((i) => i.kind === 'evidence');
        const spans = evidenceSpans(evidence, rel);
        const citedFiles = new Set(evidence.map((i) => spansOf(i.source, rel)[0]?.file ?? i.source));
        const shownFiles = new Set(spans.filter((sp) => sp.start > 0).map((sp) => sp.file));
        const h = scoreHunks(spans, gold.hunks);
        packets[budget] = {
          refused: null,
          cited: gold.files.some((f) => citedFiles.has(f)) ? 1 : 0,
          shown: gold.files.some((f) => shownFiles.has(f)) ? 1 : 0,
          hunkHit: h.hit,
          hunkRecall: h.recall,
          tokens: packet.budgets.total_tokens,
          over: packet.budgets.total_tokens > budget ? 1 : 0,
          ms,
        };
        held[budget] = describeHeld(evidence.map((i) => ({ source: i.source, shown: i.shown, compressed: i.compressed })), spans, gold.files, gold.hunks, rel);
      }

      // The whole-file BM25 baseline over the non-test source files the store indexed (the same tree), as the
      // SWE-bench paper's retrieval indexes the non-test files of the repository's language.
      const indexed = (store.db.prepare("SELECT path FROM sources WHERE status = 'indexed'").all() as { path: string }[]).map((x) => ({ path: rel(x.path), abs: x.path })).filter((f) => isSourcePath(f.path));
      const texts = new Map<string, string>();
      for (const f of indexed) {
        try {
          texts.set(f.path, readFileSync(f.abs, 'utf8'));
        } catch {
          // A source that vanished from the temporary tree cannot be shown by anyone.
        }
      }
      s = performance.now();
      const bm25 = createWholeFileBm25([...texts].map(([path, text]) => ({ path, text })));
      const bmRanked = bm25.rank(issue, 300);
      const bmMs = performance.now() - s;
      bm25.close();
      const tokensOf = new Map<string, number>();
      const filled: Row['bm25']['filled'] = {};
      for (const budget of budgets) {
        const files: string[] = [];
        let used = 0;
        for (const f of bmRanked) {
          if (budget - used < 100) break;
          let t = tokensOf.get(f);
          if (t === undefined) {
            t = counter.count(texts.get(f) ?? '');
            tokensOf.set(f, t);
          }
          if (used + t > budget) continue;
          used += t;
          files.push(f);
        }
        const spans: ShownSpan[] = files.map((f) => ({ file: f, start: 1, end: Number.MAX_SAFE_INTEGER }));
        const h = scoreHunks(spans, gold.hunks);
        filled[budget] = { shown: gold.files.some((f) => files.includes(f)) ? 1 : 0, hunkHit: h.hit, hunkRecall: h.recall, tokens: used, files: files.length };
      }
      const row: Row = {
        id: inst.instance_id,
        repo: inst.repo,
        chars: issue.length,
        gold: gold.files,
        hunks: gold.hunks.length,
        ingestS,
        ...(embedS !== undefined ? { embedS } : {}),
        search,
        packets,
        bm25: { acc1: fileAccAt(bmRanked, gold.files, 1), acc3: fileAccAt(bmRanked, gold.files, 3), acc5: fileAccAt(bmRanked, gold.files, 5), ms: bmMs, top: bmRanked.slice(0, 5), filled },
      };
      if (values.verbose) {
        const b0 = budgets[0]!;
        const p = packets[b0]!;
        console.log(`${inst.instance_id} (${issue.length} chars, ${indexed.length} files, ingest ${ingestS.toFixed(1)} s) gold ${gold.files.join(', ')}`);
        console.log(`   search${search.refused ? ` REFUSED (${search.refused})` : ''} acc@1/3/5 ${search.acc1}/${search.acc3}/${search.acc5} top ${search.top.join(', ')}`);
        console.log(`   bm25 acc@1/3/5 ${row.bm25.acc1}/${row.bm25.acc3}/${row.bm25.acc5} top ${row.bm25.top.join(', ')}`);
        console.log(`   packet ${b0 / 1000}k${p.refused ? ` REFUSED (${p.refused})` : ''} cited ${p.cited} shown ${p.shown} hunk ${p.hunkHit} (${(p.hunkRecall * 100).toFixed(0)} %) ${p.tokens} tokens${held[b0] ? `; ${held[b0]}` : ''}`);
      }
      return row;
    } finally {
      await api.close();
      store.close();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** For --verbose: what the packet held of each gold file (lines shown, pointers) and which hunks it missed. */
function describeHeld(items: { source: string; shown?: string; compressed?: boolean }[], spans: ShownSpan[], goldFiles: string[], hunks: GoldHunk[], rel: (p: string) => string): string {
  const parts: string[] = [];
  for (const f of goldFiles) {
    const of = items.filter((i) => spansOf(i.source, rel)[0]?.file === f);
    const lines = spans.filter((sp) => sp.file === f && sp.start > 0).map((sp) => `${sp.start}-${sp.end === Number.MAX_SAFE_INTEGER ? 'end' : sp.end}`);
    const pointers = of.filter((i) => i.compressed && !i.shown).length;
    const missed = hunks.filter((h) => h.file === f && !spans.some((sp) => sp.file === f && sp.start <= h.end && sp.end >= h.start)).map((h) => `${h.start}-${h.end}`);
    parts.push(`${f}: ${of.length === 0 ? 'not cited' : `shows ${lines.join(',') || 'no line'}${pointers ? `, ${pointers} pointer(s)` : ''}`}${missed.length ? `; missed ${missed.join(',')}` : ''}`);
  }
  return parts.join(' | ');
}

// ---------------------------------------------------------------------------------------------------------------
const f2 = (x: number) => x.toFixed(2);
const ms = (xs: (number | null)[]) => {
  const sorted = xs.filter((x): x is number => x !== null).sort((a, b) => a - b);
  return sorted.length === 0 ? '-' : `${Math.round(percentile(sorted, 50))} / ${Math.round(percentile(sorted, 95))}`;
};
const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

interface Summary {
  n: number;
  chars: number;
  refusedSearch: number;
  refusedPack: number;
  packet: Record<number, { cited: number; shown: number; hunkHit: number; hunkRecall: number; tokens: number; over: number; p50: number | null; p95: number | null }>;
  search: { acc1: number; acc3: number; acc5: number; p50: number | null; p95: number | null };
  bm25: { acc1: number; acc3: number; acc5: number; filled: Record<number, { shown: number; hunkHit: number; hunkRecall: number; tokens: number }> };
}

function summarize(rs: Row[]): Summary {
  const pct = (xs: (number | null)[], p: number) => {
    const sorted = xs.filter((x): x is number => x !== null).sort((a, b) => a - b);
    return sorted.length === 0 ? null : Math.round(percentile(sorted, p));
  };
  const packet: Summary['packet'] = {};
  for (const b of budgets) {
    const ps = rs.map((r) => r.packets[b]!);
    const accepted = ps.filter((p) => !p.refused);
    packet[b] = {
      cited: mean(ps.map((p) => p.cited)),
      shown: mean(ps.map((p) => p.shown)),
      hunkHit: mean(ps.map((p) => p.hunkHit)),
      hunkRecall: mean(ps.map((p) => p.hunkRecall)),
      tokens: mean(accepted.map((p) => p.tokens)),
      over: ps.filter((p) => p.over).length,
      p50: pct(ps.map((p) => p.ms), 50),
      p95: pct(ps.map((p) => p.ms), 95),
    };
  }
  const filled: Summary['bm25']['filled'] = {};
  for (const b of budgets) {
    const fs = rs.map((r) => r.bm25.filled[b]!);
    filled[b] = { shown: mean(fs.map((x) => x.shown)), hunkHit: mean(fs.map((x) => x.hunkHit)), hunkRecall: mean(fs.map((x) => x.hunkRecall)), tokens: mean(fs.map((x) => x.tokens)) };
  }
  return {
    n: rs.length,
    chars: Math.round(mean(rs.map((r) => r.chars))),
    refusedSearch: rs.filter((r) => r.search.refused).length,
    refusedPack: rs.filter((r) => budgets.some((b) => r.packets[b]!.refused)).length,
    packet,
    search: { acc1: mean(rs.map((r) => r.search.acc1)), acc3: mean(rs.map((r) => r.search.acc3)), acc5: mean(rs.map((r) => r.search.acc5)), p50: pct(rs.map((r) => r.search.ms), 50), p95: pct(rs.map((r) => r.search.ms), 95) },
    bm25: { acc1: mean(rs.map((r) => r.bm25.acc1)), acc3: mean(rs.map((r) => r.bm25.acc3)), acc5: mean(rs.map((r) => r.bm25.acc5)), filled },
  };
}

await model?.embedder.close();

const byRepo = new Map<string, Row[]>();
for (const r of rows) {
  if (!byRepo.has(r.repo)) byRepo.set(r.repo, []);
  byRepo.get(r.repo)!.push(r);
}
const summaries: [string, Summary, Row[]][] = [...byRepo].map(([repo, rs]) => [repo, summarize(rs), rs]);
if (rows.length > 0 && byRepo.size > 1) summaries.push(['overall', summarize(rows), rows]);
// While the API refuses some issues, the figures on the others tell ranking apart from the cap.
const accepted = rows.filter((r) => !r.search.refused && budgets.every((b) => !r.packets[b]!.refused));
if (accepted.length > 0 && accepted.length < rows.length) summaries.push(['overall, issues not refused', summarize(accepted), accepted]);

const datasetNames = reported ? [...new Set(reported.map((r) => basename(r.dataset)))].join(', ') : basename(datasetPath);
const retrievers = reported ? [...new Set(reported.map((r) => describeRetriever(r.retriever)))] : [describeRetriever(retrieverRun)];
if (retrievers.length > 1) console.error(`warning: these runs used different retrievers (${retrievers.join('; ')}); their rows are summed together`);
console.log(`\n${datasetNames}: ${rows.length} issues in ${byRepo.size} repositories (${reported ? `${reported.length} runs` : `split ${values.split}`}), search k ${K}${(reported ? reported[0]!.task : values.task) ? ', the issue also as task' : ''}; failures count as misses`);
console.log(`retriever (search.query and packets.build): ${retrievers.join('; ')}`);
for (const b of budgets) {
  console.log(`\npacket at ${b / 1000}k tokens`);
  console.log('| repository (issues) | file cited | file shown | hunk hit | hunk recall | tokens | over budget | refused | pack p50 / p95 ms |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name, s, rs] of summaries) {
    const p = s.packet[b]!;
    console.log(`| ${name} (${s.n}) | ${f2(p.cited)} | ${f2(p.shown)} | ${f2(p.hunkHit)} | ${f2(p.hunkRecall)} | ${Math.round(p.tokens)} | ${p.over} | ${rs.filter((r) => r.packets[b]!.refused).length} | ${ms(rs.map((r) => r.packets[b]!.ms))} |`);
  }
}
console.log('\nfile ranking: search (distinct files of the top k chunks) and whole-file BM25');
console.log('| repository (issues) | mean chars | search Acc@1 | Acc@3 | Acc@5 | refused | search p50 / p95 ms | BM25 Acc@1 | Acc@3 | Acc@5 |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const [name, s, rs] of summaries) {
  console.log(`| ${name} (${s.n}) | ${s.chars} | ${f2(s.search.acc1)} | ${f2(s.search.acc3)} | ${f2(s.search.acc5)} | ${s.refusedSearch} | ${ms(rs.map((r) => r.search.ms))} | ${f2(s.bm25.acc1)} | ${f2(s.bm25.acc3)} | ${f2(s.bm25.acc5)} |`);
}
console.log('\nwhole-file BM25 filled to the budget (whole files in rank order): file shown / hunk hit / hunk recall');
console.log(`| repository (issues) | ${budgets.map((b) => `${b / 1000}k`).join(' | ')} |`);
console.log(`|---|${budgets.map(() => '---:').join('|')}|`);
for (const [name, s] of summaries) console.log(`| ${name} (${s.n}) | ${budgets.map((b) => `${f2(s.bm25.filled[b]!.shown)} / ${f2(s.bm25.filled[b]!.hunkHit)} / ${f2(s.bm25.filled[b]!.hunkRecall)}`).join(' | ')} |`);
const ingest = rows.map((r) => r.ingestS).sort((a, b) => a - b);
if (ingest.length > 0) console.log(`\ningest (not measured as the API's): median ${percentile(ingest, 50).toFixed(1)} s per tree`);
const embedTimes = rows.flatMap((r) => (r.embedS === undefined ? [] : [r.embedS])).sort((a, b) => a - b);
if (embedTimes.length > 0) console.log(`embedding (through the cache under .bench/): median ${percentile(embedTimes, 50).toFixed(1)} s per tree`);

if (values.json) {
  writeFileSync(
    values.json,
    JSON.stringify(
      { dataset: datasetPath, split: values.split, budgets, k: K, task: values.task, retriever: reported ? (reported[0]!.retriever ?? { mode: 'bm25' }) : retrieverRun, commit: gitHead(), at: new Date().toISOString(), summaries: Object.fromEntries(summaries.map(([n, s]) => [n, s])), instances: rows },
      null,
      1,
    ) + '\n',
  );
  console.log(`results written to ${values.json}`);
}

function gitHead(): string | null {
  try {
    return execFileSync('git', ['-C', new URL('..', import.meta.url).pathname, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

