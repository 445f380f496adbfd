// npm run bench:adk [-- --chunks 3000 --sessions 10 --turns 6 --windows 8000,32000,128000,1048576]
// The ContextPack before-model step inside a real ADK Runner: a synthetic project store (real FTS5, real RE2 gate),
// an LlmAgent with two tools resolving a scripted BaseLlm through ADK's registry, several multi-turn sessions. Times
// the plugin's step per model call (read the request and state, gate the tail, build + store the layered-v1 pack
// through the API, rewrite the request) and, for scale, a whole Runner turn with and without the plugin.
// Target (#36): step p50 ≤ 50 ms on a 3,000-chunk project.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FunctionTool, InMemorySessionService, LlmAgent, Runner, type BasePlugin } from '@google/adk';
import { addMemory, createDecision } from '../src/main/core/memory/index.ts';
import { openStore } from '../src/main/core/store/index.ts';
import { ContextPackPlugin, openContextPack } from '../src/main/adk/index.ts';
import { scriptedModel, text } from '../src/main/adk/testing/scripted-llm.ts';
import { percentile } from './lib/trec-eval.ts';
import { fillStore, syntheticText } from './lib/synthetic.ts';

const { values } = parseArgs({ options: { chunks: { type: 'string', default: '3000' }, sessions: { type: 'string', default: '10' }, turns: { type: 'string', default: '6' }, windows: { type: 'string', default: '8000,32000,128000,1048576' } } });
const CHUNKS = Number(values.chunks);
const SESSIONS = Number(values.sessions);
const TURNS = Number(values.turns);
const WINDOWS = values.windows!.split(',').map(Number);

const tmp = mkdtempSync(join(tmpdir(), 'cp-bench-adk-'));
const dbPath = join(tmp, 'bench.db');
const text0 = syntheticText();
{
  const store = openStore(dbPath, { loadVec: false });
  fillStore(store.db, text0, CHUNKS, 10);
  let n = 0;
  const deps = { now: () => new Date('2026-01-15T00:00:00Z'), newId: () => `bench-${++n}` };
  for (let i = 0; i < 40; i++) {
    createDecision(store.db, { title: `Decision ${i} ${text0.word()}`, decision: `${text0.line()} ${text0.line()}`, rationale: text0.line(), importance: 1 + (i % 10), timestamp: '2026-01-10T00:00:00Z' }, deps);
    addMemory(store.db, { memory_type: 'learning', title: `Learning ${i} ${text0.word()}`, content: { lesson: text0.line(), context: text0.line(), applicability: text0.word(), evidence: text0.word() }, importance: 5 }, deps);
  }
  store.close();
}
const cp = await openContextPack({ db: dbPath });
const chunkCount = (cp.store.db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;

const tools = ['search_docs', 'open_doc'].map(
  (name) => new FunctionTool({ name, description: `${name.replace('_', 's the ')} of the project.`, parameters: { type: 'OBJECT', properties: { q: { type: 'STRING' } }, required: ['q'] } as never, execute: async () => ({ ok: true }) }),
);
// Answers as long as a real model's: a few lines, so the history grows and older turns are summarized.
scriptedModel((_req, n) => text(Array.from({ length: 4 }, () => text0.line()).join('\n') + ` (${n})`));

async function runAll(plugins: BasePlugin[], label: string): Promise<number[]> {
  const agent = new LlmAgent({ name: 'bench_agent', description: 'Answers from the project.', model: 'scripted-bench', instruction: 'Answer from the context pack.', tools });
  const sessionService = new InMemorySessionService();
  const runner = new Runner({ appName: 'bench', agent, sessionService, plugins });
  const turnMs: number[] = [];
  for (let s = 0; s < SESSIONS; s++) {
    const session = await sessionService.createSession({ appName: 'bench', userId: 'u', state: { plan: { goal: `Explain ${text0.term()}`, step: 'Find where it is defined', acceptance: ['cite the source'] }, tools: ['search_docs'] } });
    for (let t = 0; t < TURNS; t++) {
      const ask = `Where is ${text0.term()} used together with ${text0.term()} and ${text0.term()}?`;
      const start = performance.now();
      for await (const e of runner.runAsync({ userId: 'u', sessionId: session.id, newMessage: { role: 'user', parts: [{ text: ask }] } })) {
        if (e.errorMessage) throw new Error(`${label}: ${e.errorMessage}`);
      }
      turnMs.push(performance.now() - start);
    }
  }
  return turnMs;
}

const fmt = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${percentile(s, 50).toFixed(1).padStart(6)} ms   p95 ${percentile(s, 95).toFixed(1).padStart(6)} ms`;
};

console.log(`store: ${chunkCount} chunks, 40 decisions, 40 learnings; ${SESSIONS} sessions × ${TURNS} turns per run`);
// Warm-up: ADK's first run, the tokenizer tables, the RE2 rules, SQLite's caches.
await runAll([new ContextPackPlugin({ contextpack: cp, window: WINDOWS[0] })], 'warm-up');
const bare = await runAll([], 'without plugin');
console.log(`${'Runner turn without the plugin'.padEnd(44)} ${fmt(bare)}   (${bare.length} turns)`);
for (const window of WINDOWS) {
  const step: number[] = [];
  const tokens: number[] = [];
  const turn = await runAll([new ContextPackPlugin({ contextpack: cp, window, keepTurns: 3, onPack: (r) => (step.push(r.elapsed_ms), tokens.push(r.pack_tokens)) })], `window ${window}`);
  console.log(`${`before-model step, window ${window}`.padEnd(44)} ${fmt(step)}   (${step.length} model calls; pack p50 ${percentile([...tokens].sort((a, b) => a - b), 50)} tokens)`);
  console.log(`${`Runner turn with the plugin, window ${window}`.padEnd(44)} ${fmt(turn)}`);
}
await cp.close();
rmSync(tmp, { recursive: true, force: true });
