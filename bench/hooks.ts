// npm run bench:hooks [-- --tokens 150000 --runs 7 [--transcript FILE]]
// Issue #27's target: each hook (`contextpack hook <event>`, whole process: spawn, start-up, stdin payload, store,
// exit) returns in ≤ 1 s p50 on a 150k-token session. Every round starts from a copy of the same store, so each
// PreCompact really stores its handoff and each SessionEnd really records its session. The transcript is generated
// (src/main/core/session/testing/long-transcript.ts), or a real one given with --transcript (read, never copied).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
// @ts-expect-error plain JavaScript module without type declarations
import { freshBundle } from '../src/main/cli/fresh-bundle.mjs';
import { generateLongTranscript } from '../src/main/core/session/testing/long-transcript.ts';
import { inflightPath } from '../src/main/core/hooks/index.ts';
import { openStore } from '../src/main/core/store/index.ts';
import { countTokens } from '../src/main/core/tokens/index.ts';
import { parseTranscript, renderTurn } from '../src/main/core/transcripts/index.ts';

const { values } = parseArgs({ options: { tokens: { type: 'string', default: '150000' }, runs: { type: 'string', default: '7' }, transcript: { type: 'string' } } });
const RUNS = Number(values.runs);
const bin = fileURLToPath(new URL('../src/main/cli/bin.mjs', import.meta.url));
const fmt = (n: number) => n.toLocaleString('en-US');
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const tmp = mkdtempSync(join(tmpdir(), 'cp-bench-hooks-'));
const env = { ...process.env, CONTEXTPACK_HOME: join(tmp, 'home'), CONTEXTPACK_MODELS_DIR: join(tmp, 'models') };
mkdirSync(env.CONTEXTPACK_MODELS_DIR, { recursive: true });

let text: string;
if (values.transcript) text = readFileSync(resolve(values.transcript), 'utf8');
else {
  const target = Number(values.tokens);
  const tokensOf = (t: string) => parseTranscript(t, 'x').turns.reduce((a, turn) => a + countTokens(renderTurn(turn)) + 1, 0);
  text = generateLongTranscript({ tokens: target }).text;
  for (let scale = target / tokensOf(text); tokensOf(text) < target; scale *= 1.05) text = generateLongTranscript({ tokens: Math.ceil(target * scale) }).text;
}
const t = parseTranscript(text, 'bench');
const tokens = t.turns.reduce((a, turn) => a + countTokens(renderTurn(turn)) + 1, 0);
const transcript = join(tmp, 'session.jsonl');
writeFileSync(transcript, text);
const session = t.session_id ?? 'bench-session';
console.log(`transcript: ${fmt(tokens)} tokens (o200k, rendered turns), ${fmt(text.length)} bytes, ${t.turns.length} turns, format ${t.format}`);
console.log(`CLI: ${freshBundle(fileURLToPath(new URL('../', import.meta.url))) && !process.env.CONTEXTPACK_CLI_SOURCES ? 'the bundle in out/cli' : 'the TypeScript sources (run `npm run build:cli` for the bundle)'}`);

// One migrated store, copied before every round.
const pristine = join(tmp, 'pristine.db');
openStore(pristine, { loadVec: false }).close();
const db = join(tmp, 'home', 'contextpack.db');
mkdirSync(join(tmp, 'home'), { recursive: true });

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** The hook's own time (spawn to exit: what the agent waits for) and, for a detached write, until its worker is done. */
function hook(event: string, extra: object, flags: string[] = []): { ms: number; doneMs: number; stdout: string } {
  const payload = JSON.stringify({ session_id: session, transcript_path: transcript, cwd: tmp, hook_event_name: event, ...extra });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, 'hook', event, ...flags], { env, input: payload, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 || /contextpack hook:/.test(r.stderr)) throw new Error(`hook ${event} failed: ${r.stderr}`);
  const marker = inflightPath(db, event as 'PreCompact', session);
  while (existsSync(marker)) sleep(10);
  const log = readFileSync(join(tmp, 'home', 'contextpack-data', 'logs', 'hooks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  if (!log.at(-1).ok) throw new Error(`hook ${event} failed: ${log.at(-1).message}`);
  return { ms, doneMs: Number(process.hrtime.bigint() - t0) / 1e6, stdout: r.stdout };
}

const cases: { name: string; event: string; extra: Record<string, string>; flags?: string[] }[] = [
  { name: 'PreCompact (stores the handoff)', event: 'PreCompact', extra: { trigger: 'auto' } },
  { name: 'SessionStart compact (prints it)', event: 'SessionStart', extra: { source: 'compact' } },
  { name: 'SessionStart startup (rehydration)', event: 'SessionStart', extra: { source: 'startup' } },
  { name: 'SessionEnd (records the session)', event: 'SessionEnd', extra: { reason: 'other' } },
  { name: 'PreCompact again (same transcript)', event: 'PreCompact', extra: { trigger: 'auto' } },
  { name: 'SessionEnd again (same transcript)', event: 'SessionEnd', extra: { reason: 'other' } },
  { name: 'PreCompact --foreground (new trigger: builds)', event: 'PreCompact', extra: { trigger: 'manual' }, flags: ['--foreground'] },
];
const times = cases.map(() => [] as number[]);
const done = cases.map(() => [] as number[]);
let injected = '';
for (let r = 0; r < RUNS; r++) {
  for (const f of ['', '-wal', '-shm']) rmSync(db + f, { force: true });
  copyFileSync(pristine, db);
  cases.forEach((c, i) => {
    const out = hook(c.event, c.extra, c.flags);
    times[i]!.push(out.ms);
    done[i]!.push(out.doneMs);
    if (c.extra.source === 'compact') injected = out.stdout;
  });
}
const node0 = [...Array(RUNS)].map(() => {
  const t0 = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', '0']);
  return Number(process.hrtime.bigint() - t0) / 1e6;
});
console.log(`\n${RUNS} rounds, whole process (spawn to exit); node -e 0 p50 ${p50(node0).toFixed(0)} ms\n`);
console.log(`| hook | returns p50 (min–max) | work done p50 (min–max) | target (returns) |`);
console.log(`|---|---:|---:|---:|`);
const span = (xs: number[]) => `${p50(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
cases.forEach((c, i) => console.log(`| ${c.name} | ${span(times[i]!)} | ${span(done[i]!)} | ≤ 1,000 ms |`));
console.log(`\nSessionStart(compact) printed ${fmt(injected.length)} characters, ${fmt(countTokens(injected))} tokens.`);
rmSync(tmp, { recursive: true, force: true });
