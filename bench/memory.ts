// npm run bench:memory [-- --memories 10000 --rounds 50]
// Project memory at scale on a real SQLite file: decision id allocation, ranked search (FTS5 BM25 + the seed's
// relevance formula), the rehydration bundle, a lifecycle pass, and the hierarchy consistency check.
// Prints p50 / p95 per operation. Memories are generated deterministically (seeded PRNG), never real data.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { addSection, checkConsistency, getExecutiveSummary, setExecutiveSummary } from '../src/main/core/hierarchy/index.ts';
import { addMemory, createDecision, rehydrate, runMaintenance, searchMemories } from '../src/main/core/memory/index.ts';
import { MEMORY_MIGRATIONS } from '../src/main/core/memory/testing/store.ts';
import { openStore } from '../src/main/core/store/index.ts';
import { warmTokenizer } from '../src/main/core/tokens/index.ts';

const { values } = parseArgs({ options: { memories: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '50' } } });
const N = Number(values.memories);
const ROUNDS = Number(values.rounds);

let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
// A Zipf-distributed vocabulary (3,000 made-up words) gives FTS5 the skew of real text: a few very common terms,
// a long tail of rare ones.
const SYL = ['ka', 'lo', 'mi', 'ne', 'su', 'ta', 'ri', 'po', 've', 'da', 'gu', 'ze'];
const WORDS = Array.from({ length: 3000 }, (_, i) => SYL[i % 12]! + SYL[Math.floor(i / 12) % 12]! + SYL[Math.floor(i / 144) % 12]! + (i >= 1728 ? 'x' : ''));
const ZIPF = (() => {
  const w = WORDS.map((_, i) => 1 / (i + 1));
  const total = w.reduce((a, b) => a + b, 0);
  let acc = 0;
  return w.map((x) => (acc += x / total));
})();
const zipfWord = () => {
  const r = rand();
  let lo = 0;
  let hi = ZIPF.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ZIPF[mid]! < r) lo = mid + 1;
    else hi = mid;
  }
  return WORDS[lo]!;
};
const sentence = (n: number) => Array.from({ length: n }, zipfWord).join(' ');

const dir = mkdtempSync(join(tmpdir(), 'cp-bench-memory-'));
const store = openStore(join(dir, 'bench.db'), { migrations: MEMORY_MIGRATIONS, loadVec: false });
const db = store.db;
const NOW = Date.parse('2026-01-01T00:00:00Z');
const now = () => new Date(NOW);
warmTokenizer();

function timeIt(label: string, rounds: number, fn: (i: number) => void): void {
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    fn(i);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!;
  console.log(`${label.padEnd(44)} p50 ${q(0.5).toFixed(2).padStart(8)} ms   p95 ${q(0.95).toFixed(2).padStart(8)} ms   (n=${rounds})`);
}

console.log(`memory bench: ${N} memories, ${ROUNDS} rounds per query, Node ${process.version}`);
const t0 = performance.now();
const decisions = Math.round(N * 0.25);
timeIt('createDecision (id allocation + insert)', decisions, (i) => {
  createDecision(db, { title: `Decision ${i}: ${sentence(4)}`, decision: sentence(20), rationale: sentence(30), importance: 1 + Math.floor(rand() * 10), tags: [WORDS[Math.floor(rand() * 50)]!], timestamp: new Date(NOW - rand() * 400 * 86_400_000).toISOString(), alternatives_considered: [{ name: pick(WORDS), reason: sentence(10) }] });
});
const types = ['issue', 'state', 'learning'] as const;
db.transaction(() => {
  for (let i = decisions; i < N; i++) {
    const type = pick(types);
    const ts = new Date(NOW - rand() * 400 * 86_400_000).toISOString();
    const content =
      type === 'issue'
        ? { description: sentence(25), severity: pick(['critical', 'high', 'medium', 'low'] as const), status: rand() < 0.5 ? ('resolved' as const) : ('open' as const) }
        : type === 'state'
          ? { task_description: sentence(12), completion_percentage: Math.floor(rand() * 100) }
          : { lesson: sentence(20), evidence: sentence(15) };
    addMemory(db, { memory_type: type, title: `${type} ${i}: ${sentence(4)}`, content, importance: 1 + Math.floor(rand() * 10), timestamp: ts, tags: [WORDS[Math.floor(rand() * 50)]!] } as never, { now });
  }
})();
db.prepare('UPDATE memories SET access_count = abs(random() % 15)').run();
console.log(`built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const queries = Array.from({ length: ROUNDS }, () => sentence(3));
timeIt('searchMemories (query, relevance, top 10)', ROUNDS, (i) => void searchMemories(db, { query: queries[i]!, limit: 10 }, { now }));
timeIt('searchMemories (type + tags filter, no query)', ROUNDS, (i) => void searchMemories(db, { types: ['decision'], tags: [WORDS[Math.floor(rand() * 50)]!], importanceGte: 7 }, { now }));
timeIt('rehydrate (25k-token budget, no touch)', ROUNDS, () => void rehydrate(db, { summary: getExecutiveSummary(db), now, touch: false }));

setExecutiveSummary(db, { goal: 'Bench', status_pct: 50 }, { now });
for (let s = 1; s <= 20; s++) {
  addSection(db, { level: 2, title: `Section ${s}`, body: sentence(40), status_pct: 50 }, { now });
  addSection(db, { level: 3, parent: `2.${s}`, title: `Details ${s}`, body: `${sentence(80)} DEC-2025-06-01-00${s % 9}` }, { now });
}
timeIt('checkConsistency (40 sections + memory refs)', ROUNDS, () => void checkConsistency(db));

let report = runMaintenance(db, { now, dryRun: true });
timeIt('runMaintenance dry run (whole store)', Math.min(ROUNDS, 10), () => void (report = runMaintenance(db, { now, dryRun: true })));
const t1 = performance.now();
report = runMaintenance(db, { now });
console.log(`runMaintenance (applied)                      ${(performance.now() - t1).toFixed(1)} ms: archived ${report.archived.length}, deleted ${report.deleted.length}`);

store.close();
rmSync(dir, { recursive: true, force: true });
