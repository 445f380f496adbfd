// Issue #33 item 7 (seed 002's discard rules): a continuation handoff drops verbose output whatever its budget leaves
// room for: a 60-frame stack trace and a 300-line passing test log go; the error's first lines, its root cause and its
// resolution stay, and the log's summary statistics.
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../transcripts/index.ts';
import { compactTranscript, errorHead } from './compact.ts';
import { buildHandoff } from './handoff.ts';

const j = (o: unknown) => JSON.stringify(o);
function session(): string {
  let n = 0;
  const row = (type: string, content: unknown) => j({ type, sessionId: 's-v', uuid: `u${n}`, timestamp: `2026-03-01T10:00:${String(n++).padStart(2, '0')}Z`, message: { role: type, content } });
  const frames = Array.from({ length: 60 }, (_, i) => `    at Object.<anonymous> (/app/node_modules/pkg${i}/lib/index.js:${100 + i}:${i + 3})`);
  const log = Array.from({ length: 300 }, (_, i) => `  ✓ orders ${i} creates an order (${(i % 9) + 1}ms)`);
  return [
    row('user', 'Fix the failing checkout test and keep the refund flow working.'),
    row('assistant', [{ type: 'text', text: 'Running the tests.' }, { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }]),
    row('user', [{ type: 'tool_result', tool_use_id: 't1', is_error: true, content: ['FAIL test/checkout.test.ts > charges once', "TypeError: Cannot read properties of undefined (reading 'amount')", '  expected: 1 charge', '  received: 2 charges', ...frames, 'Tests: 1 failed, 299 passed'].join('\n') }]),
    row('assistant', [{ type: 'text', text: 'Root cause: the retry wrapper calls charge() again after a timeout, and the second call has no idempotency key.' }, { type: 'tool_use', id: 't2', name: 'Edit', input: { file_path: 'src/checkout.ts', old_string: 'charge()', new_string: 'charge({ idempotencyKey })' } }]),
    row('user', [{ type: 'tool_result', tool_use_id: 't2', content: 'ok' }]),
    row('assistant', [{ type: 'tool_use', id: 't3', name: 'Bash', input: { command: 'npm test' } }]),
    row('user', [{ type: 'tool_result', tool_use_id: 't3', content: [...log, 'Test Files  40 passed (40)', '     Tests  300 passed (300)'].join('\n') }]),
    row('assistant', 'Fixed: charge() now passes an idempotency key; all 300 tests pass.'),
  ].join('\n');
}

describe('verbose output is dropped, errors kept with their first lines, cause and resolution', () => {
  it('continuation handoff', () => {
    const t = parseTranscript(session(), 'verbose.jsonl');
    const cc = buildHandoff({ type: 'continuation', transcript: t }).package.compacted_context;
    expect(cc).not.toMatch(/at Object\.<anonymous>/);
    expect(cc.match(/creates an order/g)?.length ?? 0).toBeLessThanOrEqual(1);
    expect(cc).toContain("TypeError: Cannot read properties of undefined (reading 'amount')");
    expect(cc).toContain('received: 2 charges');
    expect(cc).toMatch(/60 of them stack frames/);
    expect(cc).toContain('Root cause: the retry wrapper calls charge() again after a timeout');
    expect(cc).toMatch(/Resolved: a later run passed \(turn \d+, line \d+\)/);
    expect(cc).toContain('Tests  300 passed (300)');
  });
  it('compaction without a target applies the same rules', () => {
    const r = compactTranscript(parseTranscript(session(), 'verbose.jsonl'));
    expect(r.text).not.toMatch(/at Object\.<anonymous>/);
    expect(r.elements.find((e) => e.reason.startsWith('error output'))).toMatchObject({ action: 'compressed' });
    expect(r.summary.preservation_validation).toBe(true);
  });
  it('errorHead: the first lines that are not frames', () => {
    expect(errorHead('Error: boom\n    at a (x.js:1:1)\n    at b (y.js:2:2)\ncaused by: disk full')).toEqual({ lines: ['Error: boom', 'caused by: disk full'], dropped: 2, frames: 2 });
    expect(errorHead('one line')).toEqual({ lines: ['one line'], dropped: 0, frames: 0 });
  });
});
