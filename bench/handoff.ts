// npm run bench:handoff [-- --tokens 150000 --rounds 5] [-- --transcript FILE|DIR]
// With --transcript (any format `contextpack handoff` reads, e.g. the longest file of ../shared/transcripts), only
// that transcript's continuation handoff is timed: read + parse + extraction + compaction + gate + package.
// Seed 002's handoff targets: a continuation handoff of a 150k-token agent transcript within 40,000 tokens, built in
// ≤ 2 s, with preservation_validation true; the reduction per handoff type; and, on the three realistic transcripts in
// src/main/core/session/fixtures/, which preserved elements were found. The long transcript is generated
// deterministically (src/main/core/session/testing/long-transcript.ts), never real data.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HANDOFF_TYPES } from '../src/shared/session.ts';
import { buildHandoff, compactTranscript, createHandoff } from '../src/main/core/session/index.ts';
import { generateLongTranscript } from '../src/main/core/session/testing/long-transcript.ts';
import { openStore } from '../src/main/core/store/index.ts';
import { countTokens, warmTokenizer } from '../src/main/core/tokens/index.ts';
import { parseTranscript, readTranscriptPath, renderTurn } from '../src/main/core/transcripts/index.ts';
import { getDefaultRedactor } from '../src/main/core/redact/index.ts';

const { values } = parseArgs({ options: { tokens: { type: 'string', default: '150000' }, rounds: { type: 'string', default: '5' }, transcript: { type: 'string' } } });
const TARGET = Number(values.tokens);
const ROUNDS = Number(values.rounds);
const fmt = (n: number) => n.toLocaleString('en-US');
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

warmTokenizer();
getDefaultRedactor();

if (values.transcript) {
  const times: number[] = [];
  let built!: ReturnType<typeof buildHandoff>;
  let turns = 0;
  let bytes = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = process.hrtime.bigint();
    const { text, path } = readTranscriptPath(values.transcript);
    const t = parseTranscript(text, path);
    built = buildHandoff({ type: 'continuation', transcript: t, from: 'agent-a', to: 'agent-b' });
    times.push(ms(t0));
    turns = t.turns.length;
    bytes = text.length;
  }
  const p = built.package;
  console.log(`${values.transcript}: ${p.source.format}, ${fmt(bytes)} characters, ${fmt(turns)} turns, ${fmt(p.compaction.tokens_before)} tokens as written`);
  console.log(`continuation handoff: p50 ${p50(times).toFixed(0)} ms (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}, ${ROUNDS} runs), ${fmt(p.budget.package_tokens)} / ${fmt(p.budget.max_tokens)} tokens, reduction ${(p.compaction.reduction_achieved * 100).toFixed(1)} %, preservation_validation ${p.compaction.preservation_validation}`);
  console.log(`  task: ${p.context_summary.current_task_state.task.slice(0, 160)}`);
  process.exit(0);
}

// Generate until the transcript, as the agent saw it (rendered turns, o200k), holds at least TARGET tokens.
let gen = generateLongTranscript({ tokens: TARGET });
const tokensOf = (text: string) => parseTranscript(text, 'x').turns.reduce((a, t) => a + countTokens(renderTurn(t)) + 1, 0);
let have = tokensOf(gen.text);
for (let scale = TARGET / have; have < TARGET; scale *= 1.05) {
  gen = generateLongTranscript({ tokens: Math.ceil(TARGET * scale) });
  have = tokensOf(gen.text);
}
console.log(`transcript: ${fmt(have)} tokens (o200k, rendered turns), ${fmt(gen.text.length)} bytes of Claude Code JSONL, ${gen.text.split('\n').length - 1} lines`);

// Continuation: the whole path from the file's text (parse, redaction of every turn, extraction, compaction, package, hash).
const times: number[] = [];
let last!: ReturnType<typeof buildHandoff>;
for (let i = 0; i < ROUNDS; i++) {
  const t0 = process.hrtime.bigint();
  last = buildHandoff({ type: 'continuation', transcript: parseTranscript(gen.text, 'bench.jsonl'), from: 'agent-a', to: 'agent-b' });
  times.push(ms(t0));
}
const p = last.package;
console.log(`\ncontinuation handoff: ${fmt(p.budget.package_tokens)} / ${fmt(p.budget.max_tokens)} tokens, built p50 ${p50(times).toFixed(0)} ms (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}, ${ROUNDS} runs), preservation_validation ${p.compaction.preservation_validation}`);
console.log(`  compaction: tokens_before ${fmt(p.compaction.tokens_before)} → tokens_after ${fmt(p.compaction.tokens_after)} (${(p.compaction.reduction_achieved * 100).toFixed(1)} %, target ${p.compaction.reduction_target * 100} %), elements_removed ${fmt(p.compaction.elements_removed)}`);
const missing = [...gen.expected.decisions, ...gen.expected.rootCauses, ...gen.expected.acceptance].filter((s) => !p.compacted_context.includes(s));
console.log(`  generator's must-keep strings missing from the package: ${missing.length}`);

// With the store: snapshot write, memory record, ownership step.
const dir = mkdtempSync(join(tmpdir(), 'cp-bench-handoff-'));
const store = openStore(join(dir, 'h.db'), { loadVec: false });
const t0 = process.hrtime.bigint();
const stored = createHandoff(store.db, { type: 'continuation', transcript: parseTranscript(gen.text, 'bench.jsonl'), from: 'agent-a', to: 'agent-b' });
console.log(`  stored (snapshot + memory record) in ${ms(t0).toFixed(0)} ms: ${stored.hash.slice(0, 16)}`);
store.close();
rmSync(dir, { recursive: true, force: true });

console.log('\n| type | budget | package tokens | reduction (target) | preservation_validation | build ms |');
console.log('|---|---:|---:|---:|---|---:|');
for (const type of HANDOFF_TYPES) {
  const t1 = process.hrtime.bigint();
  const b = buildHandoff({ type, transcript: parseTranscript(gen.text, 'bench.jsonl') }).package;
  console.log(`| ${type} | ${fmt(b.budget.max_tokens)} | ${fmt(b.budget.package_tokens)} | ${(b.compaction.reduction_achieved * 100).toFixed(1)} % (${b.compaction.reduction_target * 100} %) | ${b.compaction.preservation_validation} | ${ms(t1).toFixed(0)} |`);
}

console.log('\nThree realistic transcripts (src/main/core/session/fixtures/), continuation handoff; found / extracted:');
console.log('| transcript | decisions | errors + root cause | task state | open issues | acceptance criteria | file modifications | validation |');
console.log('|---|---|---|---|---|---|---|---|');
for (const name of ['decision.claude.jsonl', 'failure.chat.md', 'midtask.codex.jsonl']) {
  const t = parseTranscript(readFileSync(new URL(`../src/main/core/session/fixtures/${name}`, import.meta.url), 'utf8'), name);
  const pkg = buildHandoff({ type: 'continuation', transcript: t }).package;
  const r = compactTranscript(t, { targetTokens: pkg.compaction.tokens_after });
  const cell = (kind: string) => {
    const c = r.preserved.filter((p) => p.kind === kind);
    return c.length === 0 ? '—' : `${c.filter((p) => pkg.compacted_context.includes(p.expect[0]!) && p.expect.every((e) => pkg.compacted_context.includes(e))).length} / ${c.length}`;
  };
  console.log(`| ${name} | ${cell('decision')} | ${cell('error')} | ${cell('task_state')} | ${cell('open_issue')} | ${cell('acceptance')} | ${cell('file_modification')} | ${pkg.compaction.preservation_validation} |`);
}
