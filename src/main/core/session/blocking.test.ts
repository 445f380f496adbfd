// Issue #33 item 5: SessionEnd saves an issue only for an error that blocked the work and stayed unresolved: not an
// expected probe, not a check meant to fail, not an error a later green run of its suite followed, not one the work
// went past. A real unresolved error still is one.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../store/index.ts';
import { tempDirs } from '../testing/tmp.ts';
import { parseTranscript } from '../transcripts/index.ts';
import { extract, openErrorsOf } from './extract.ts';
import { endSession } from './session-end.ts';

const tmp = tempDirs('cp-blocking-');
afterAll(() => tmp.cleanup());

function transcript(steps: ({ user: string } | { said: string } | { run: string; tool?: string; out: string; error?: boolean })[]): string {
  let n = 0;
  const lines: string[] = [];
  const row = (type: string, content: unknown) => lines.push(JSON.stringify({ type, sessionId: 's-b', uuid: `u${n}`, timestamp: `2026-03-02T09:00:${String(n++).padStart(2, '0')}Z`, message: { role: type, content } }));
  steps.forEach((s, i) => {
    if ('user' in s) row('user', s.user);
    else if ('said' in s) row('assistant', s.said);
    else {
      const tool = s.tool ?? 'Bash';
      row('assistant', [{ type: 'tool_use', id: `t${i}`, name: tool, input: tool === 'Bash' ? { command: s.run } : { file_path: s.run } }]);
      row('user', [{ type: 'tool_result', tool_use_id: `t${i}`, content: s.out, is_error: s.error ?? false }]);
    }
  });
  return lines.join('\n');
}

const issuesOf = (text: string) => {
  const store = openStore(join(tmp.make(), 'p.db'), { loadVec: false });
  try {
    const r = endSession(store.db, parseTranscript(text, 's.jsonl'), { agent: 'a', now: () => new Date('2026-03-02T10:00:00Z') });
    return r.saved.created.filter((c) => c.memory_type === 'issue').map((c) => c.title);
  } finally {
    store.close();
  }
};

describe('only blocking errors become issues', () => {
  it('a finished session with an expected "File does not exist" probe saves no issue', () => {
    const text = transcript([
      { user: 'Add a CONTRIBUTING guide.' },
      { run: '/repo/CONTRIBUTING.md', tool: 'Read', out: '<tool_use_error>File does not exist.</tool_use_error>', error: true },
      { run: 'ls docs/missing', out: 'ls: cannot access docs/missing: No such file or directory', error: true },
      { run: '/repo/CONTRIBUTING.md', tool: 'Write', out: 'File created successfully' },
      { said: 'Done: CONTRIBUTING.md is written.' },
    ]);
    const x = extract(parseTranscript(text, 's.jsonl'));
    const unresolved = x.errors.filter((e) => !e.resolved);
    expect(unresolved.length).toBeGreaterThan(0);
    expect(unresolved.every((e) => /^a probe/.test(e.expected ?? ''))).toBe(true);
    expect(issuesOf(text)).toEqual([]);
  });
  it('a check meant to fail, and a red test followed by a green run of its suite, save no issue', () => {
    const text = transcript([
      { user: 'Add a failing test for the refund bug, then fix it.' },
      { said: 'First the new test; it should fail until the fix is in.' },
      { run: 'npx vitest run test/refund.test.ts', out: 'FAIL test/refund.test.ts > refunds once\nAssertionError: expected 2 to be 1\n 1 failed', error: true },
      { run: 'src/refund.ts', tool: 'Edit', out: 'ok' },
      { run: 'npm run test:e2e -- --grep refund', out: 'Error: refund page timed out\n 1 failed', error: true },
      { run: 'npm run test:e2e', out: '12 passed (31s)' },
      { said: 'Fixed: the refund is idempotent now; all tests pass.' },
    ]);
    expect(issuesOf(text)).toEqual([]);
  });
  it('a real unresolved error that blocked the work is saved', () => {
    const text = transcript([
      { user: 'Deploy the API to staging.' },
      { run: 'npm run deploy:staging', out: 'Error: permission denied for schema public\n    at Migrator.run (node_modules/knex/lib/migrate.js:80:11)', error: true },
      { said: 'The deploy fails: the migration user has no rights on the schema. I could not get past this.' },
    ]);
    const x = extract(parseTranscript(text, 's.jsonl'));
    expect(openErrorsOf(x)).toHaveLength(1);
    expect(issuesOf(text)).toEqual([expect.stringMatching(/^Error: npm run deploy:staging: Error: permission denied for schema public/)]);
  });
});
