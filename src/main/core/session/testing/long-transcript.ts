// A long, realistic Claude Code session generated deterministically (tests and `npm run bench:handoff`): many work
// cycles of reads (often of the same files), searches, verbose test runs, edits, a few decisions, failures whose
// root cause is found later, bug and TODO markers, and a task state that is updated (superseding the older ones).

export interface LongTranscriptOptions {
  /** Approximate size in o200k tokens (≈ 4 characters per token for this mix). */
  tokens: number;
  seed?: number;
}

export interface LongTranscript {
  text: string;
  /** Markers that a correct compaction must keep. */
  expected: { decisions: string[]; errors: string[]; rootCauses: string[]; openIssues: string[]; acceptance: string[]; task: string; nextActions: string[] };
}

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const FILES = ['src/api/orders.ts', 'src/api/payments.ts', 'src/db/schema.ts', 'src/services/inventory.ts', 'src/services/email.ts', 'src/lib/retry.ts', 'src/lib/cache.ts', 'test/orders.test.ts'];
const WORDS = 'order payment invoice refund customer inventory warehouse shipment retry backoff cache ttl schema migration index query transaction isolation lock queue worker batch webhook signature tenant region latency throughput'.split(' ');

export function generateLongTranscript(opts: LongTranscriptOptions): LongTranscript {
  const rand = rng(opts.seed ?? 42);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const sentence = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const lines: string[] = [];
  let t = Date.parse('2026-02-02T08:00:00Z');
  let uuid = 0;
  let tool = 0;
  const ts = () => new Date((t += 1000 + Math.floor(rand() * 20_000))).toISOString();
  const row = (type: 'user' | 'assistant', content: unknown) => lines.push(JSON.stringify({ type, sessionId: 'bench-session', uuid: `u${++uuid}`, timestamp: ts(), message: { role: type, content } }));
  const call = (name: string, input: unknown, output: string, isError = false, pre?: string) => {
    const id = `toolu_${++tool}`;
    row('assistant', [...(pre ? [{ type: 'text', text: pre }] : []), { type: 'tool_use', id, name, input }]);
    row('user', [{ type: 'tool_result', tool_use_id: id, content: output, is_error: isError }]);
  };
  const fileBody = (path: string) => Array.from({ length: 60 }, (_, i) => `${String(i + 1).padStart(4)}  export function ${pick(WORDS)}_${i}(${pick(WORDS)}: string) { return ${JSON.stringify(sentence(4))}; } // ${path}`).join('\n');
  const testRun = (n: number) => [...Array.from({ length: 40 }, (_, i) => ` ✓ test/${pick(WORDS)}.test.ts > ${sentence(5)} (${i + 2}ms)`), '', ` Test Files  ${12} passed (12)`, `      Tests  ${n} passed (${n})`, `   Duration  ${(3 + rand()).toFixed(2)}s`].join('\n');

  const expected: LongTranscript['expected'] = { decisions: [], errors: [], rootCauses: [], openIssues: [], acceptance: ['Checkout p95 latency under 300 ms at 200 rps', 'No double charges in the payment retry path', 'npm test stays green'], task: 'Harden the checkout pipeline', nextActions: [] };
  row('user', `Harden the checkout pipeline: retries, idempotency and latency.\n\nAcceptance criteria:\n${expected.acceptance.map((a) => `- ${a}`).join('\n')}`);

  const target = opts.tokens * 4;
  let size = () => lines.reduce((a, l) => a + l.length, 0);
  let cycle = 0;
  let bug = 3100;
  let current = size();
  while (current < target) {
    cycle++;
    const f = pick(FILES);
    call('Read', { file_path: f }, fileBody(f), false, `Cycle ${cycle}: looking at ${f} for the ${pick(WORDS)} path.`);
    call('Grep', { pattern: pick(WORDS), path: 'src' }, Array.from({ length: 25 }, () => `${pick(FILES)}:${Math.floor(rand() * 300)}:  ${sentence(8)}`).join('\n'));
    row('assistant', `${sentence(30)}.\n${sentence(25)}.\n\nPlan:\n1. ${sentence(6)}\n2. ${sentence(6)}\n3. ${sentence(6)}`);
    call('Edit', { file_path: f, old_string: sentence(3), new_string: sentence(4) }, `The file ${f} has been updated.`);
    call('Bash', { command: 'npm test' }, testRun(300 + cycle));
    if (cycle % 9 === 0) {
      const msg = `Error: ${pick(WORDS)} ${pick(WORDS)} timed out after ${1000 + cycle} ms in ${f}`;
      call('Bash', { command: 'npm run test:integration' }, `${msg}\n    at ${pick(WORDS)} (${f}:${cycle}:7)\n    at processTicksAndRejections (node:internal/process/task_queues:95:5)\n    at async run (node_modules/vitest/dist/runner.js:88:3)`, true);
      const cause = `Root cause: the ${pick(WORDS)} pool in ${f} is exhausted because cycle ${cycle} opens a connection per retry.`;
      row('assistant', `${sentence(20)}.\n${cause}\nFixing it by reusing the pooled connection.`);
      expected.errors.push(msg);
      expected.rootCauses.push(cause.replace(/^Root cause: /, ''));
    }
    if (cycle % 25 === 0) {
      const title = `Use ${pick(WORDS)} keys for ${pick(WORDS)} retries (cycle ${cycle})`;
      row('assistant', `DECISION: ${title}\nRationale: ${sentence(12)}\nAlternatives: ${pick(WORDS)} tokens (rejected: ${sentence(5)}), ${pick(WORDS)} locks (rejected: ${sentence(5)})\nImportance: 8`);
      expected.decisions.push(title);
    }
    if (cycle % 30 === 0) {
      bug++;
      row('assistant', `BUG-${bug} [HIGH]: ${sentence(8)} in ${f}\nRepro: ${sentence(8)}\nStatus: investigating`);
      expected.openIssues.push(`BUG-${bug}`);
    }
    if (cycle % 12 === 0) {
      const next = [`Profile the ${pick(WORDS)} handler (cycle ${cycle})`, `Add an idempotency test for ${pick(WORDS)}`, `Re-run the 200 rps load test`];
      row('assistant', `TASK: ${expected.task}\nProgress: ${Math.min(95, 10 + cycle)}% complete\n✓ Retry wrapper with backoff\n⧖ Idempotency keys on payments\n☐ Latency budget checks\nNext actions:\n${next.map((n, i) => `${i + 1}. ${n}`).join('\n')}\nBlockers: staging database is read-only until Thursday`);
      expected.nextActions = next;
    }
    if (cycle % 40 === 0) row('user', `Looks good so far. ${sentence(15)}. Keep going.`);
    current = size();
  }
  row('assistant', `TODO: remove the temporary ${pick(WORDS)} logging before release`);
  expected.openIssues.push('remove the temporary');
  size = () => 0;
  return { text: lines.join('\n') + '\n', expected };
}
