// Issue #33 item 5: what SessionStart injects is worth its tokens. The task as the user last stated it, in whole
// sentences; what remains beyond restating the task (the failing check, the open question); the finished state said
// as such, never "0 %"; the agent's last report quoted; within 1,500 tokens by default.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildHandoff, createHandoff, endSession, QUOTE_BEGIN, QUOTE_END } from '../session/index.ts';
import { generateLongTranscript } from '../session/testing/long-transcript.ts';
import { openStore } from '../store/index.ts';
import { tempDirs } from '../testing/tmp.ts';
import { countTokens } from '../tokens/index.ts';
import { parseTranscript } from '../transcripts/index.ts';
import { DEFAULT_INJECT_TOKENS, renderHandoffContext, startupContext } from './inject.ts';

const tmp = tempDirs('cp-start-');
afterAll(() => tmp.cleanup());

type Step = { user: string } | { said: string } | { run: string; tool?: string; out: string; error?: boolean };
function transcript(steps: Step[]): string {
  let n = 0;
  const lines: string[] = [];
  const row = (type: string, content: unknown) => lines.push(JSON.stringify({ type, sessionId: 's-start', uuid: `u${n}`, timestamp: `2026-03-03T09:00:${String(n++).padStart(2, '0')}Z`, message: { role: type, content } }));
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
const start = (text: string, maxTokens?: number) => {
  const b = buildHandoff({ type: 'continuation', transcript: parseTranscript(text, 's.jsonl') }, { now: () => new Date('2026-03-03T10:00:00Z') });
  return renderHandoffContext({ hash: b.hash, created_at: '2026-03-03T10:00:00Z', package: b.package }, 'session', maxTokens);
};
const section = (out: string, name: string) => (out.includes(`## ${name}`) ? out.slice(out.indexOf(`## ${name}`)).split('\n## ')[0]! : '');

const FINISHED: Step[] = [
  { user: 'Add a CONTRIBUTING guide with the test and release steps.' },
  { run: '/repo/CONTRIBUTING.md', tool: 'Read', out: '<tool_use_error>File does not exist.</tool_use_error>', error: true },
  { run: '/repo/CONTRIBUTING.md', tool: 'Write', out: 'File created successfully' },
  { run: 'npm test', out: 'Tests  42 passed (42)' },
  { said: 'Done: CONTRIBUTING.md describes the test and release steps, and all tests pass.' },
];

describe('SessionStart after a compaction', () => {
  it('a finished session says so, with no percentage, no failing check for the probe, and the last report quoted', () => {
    const out = start(transcript(FINISHED));
    expect(section(out, 'Task')).toContain('> Add a CONTRIBUTING guide with the test and release steps.');
    expect(section(out, 'Status')).toContain('The work looks finished');
    expect(out).not.toMatch(/\b0 ?% complete/);
    expect(out).not.toContain('Failing:');
    expect(section(out, "The agent's last report")).toContain(`${QUOTE_BEGIN}\nDone: CONTRIBUTING.md describes the test and release steps, and all tests pass.\n${QUOTE_END}`);
  });
  it('a session whose own task list is all done is finished, whatever language its last report is in', () => {
    let n = 0;
    const row = (type: string, content: unknown) => JSON.stringify({ type, sessionId: 's-todo', uuid: `v${n}`, timestamp: `2026-03-03T11:00:${String(n++).padStart(2, '0')}Z`, message: { role: type, content } });
    const todos = (status: string) => ({ todos: [{ content: 'Analyze the project', status, activeForm: 'Analyzing' }, { content: 'Update CLAUDE.md', status, activeForm: 'Updating' }] });
    const text = [
      row('user', 'CLAUDE.md を最新の状態にアップデートしてください'),
      row('assistant', [{ type: 'tool_use', id: 'a', name: 'TodoWrite', input: todos('pending') }]),
      row('user', [{ type: 'tool_result', tool_use_id: 'a', content: 'Todos have been modified successfully' }]),
      row('assistant', [{ type: 'tool_use', id: 'b', name: 'TodoWrite', input: todos('completed') }]),
      row('user', [{ type: 'tool_result', tool_use_id: 'b', content: 'Todos have been modified successfully' }]),
      row('assistant', 'CLAUDE.mdファイルを最新の状態にアップデートしました。'),
    ].join('\n');
    const out = start(text);
    expect(section(out, 'Status')).toContain('The work looks finished: every step of the transcript');
    expect(out).not.toContain('continue the task above');
  });
  it('an unresolved error that blocked the work is what remains; the task is not restated as a next action', () => {
    const out = start(
      transcript([
        { user: 'Deploy the API to staging.' },
        { run: 'npm run deploy:staging', out: 'Error: permission denied for schema public\n    at Migrator.run (node_modules/knex/lib/migrate.js:80:11)', error: true },
        { said: 'The deploy fails: the migration user has no rights on the schema. Should I ask the DBA for a grant, or use the owner role?' },
      ]),
    );
    const remains = section(out, 'What remains');
    expect(remains).toContain('Failing: npm run deploy:staging: Error: permission denied for schema public');
    expect(remains).toContain('Open question to the user: Should I ask the DBA for a grant, or use the owner role?');
    expect(remains).not.toContain('Deploy the API to staging');
    expect(out).not.toContain('The work looks finished');
  });
  it('a long request is named in whole sentences, never cut inside a word', () => {
    const request = Array.from({ length: 14 }, (_, i) => `Step ${i + 1} of the migration moves the ${['orders', 'payments', 'refunds'][i % 3]} table to the new schema and checks the row counts.`).join(' ');
    const out = start(transcript([{ user: request }, { said: 'Starting with step 1.' }]));
    const task = section(out, 'Task').split('\n')[1]!;
    expect(task.length).toBeLessThan(request.length);
    expect(task).toMatch(/^> Step 1 of the migration .*row counts\. …$/);
  });
  it('stays within the default 1,500 tokens on a long session, and within a smaller budget when given one', () => {
    const long = generateLongTranscript({ tokens: 60_000, seed: 3 }).text;
    expect(DEFAULT_INJECT_TOKENS).toBe(1_500);
    // Counted as the agent's context counts them (o200k), not 4 characters a token.
    expect(countTokens(start(long))).toBeLessThanOrEqual(1_500);
    expect(countTokens(start(long))).toBeGreaterThan(1_000);
    expect(countTokens(start(long, 600))).toBeLessThanOrEqual(600);
    // Text that tokenizes densely (hashes, non-Latin words) still fits the budget in real tokens.
    const dense = transcript([{ user: `${'해시 검증을 추가하고 결과를 기록해 주세요. '.repeat(30)}` }, { said: `${Array.from({ length: 400 }, (_, i) => `sha=${(i * 2654435761 >>> 0).toString(16)}`).join(' ')}` }]);
    expect(countTokens(start(dense))).toBeLessThanOrEqual(1_500);
  });
  it('the startup bundle after a finished session never says "0 % complete"', () => {
    const store = openStore(join(tmp.make(), 'p.db'), { loadVec: false });
    try {
      const t = parseTranscript(transcript(FINISHED), 's.jsonl');
      createHandoff(store.db, { type: 'continuation', transcript: t }, { now: () => new Date('2026-03-03T10:00:00Z') });
      const ended = endSession(store.db, t, { agent: 'a', now: () => new Date('2026-03-03T10:05:00Z') });
      expect(ended.saved.created.filter((c) => c.memory_type === 'issue')).toEqual([]);
      const bundle = startupContext(store.db, 'default');
      expect(bundle).not.toMatch(/\b0 ?% complete/);
    } finally {
      store.close();
    }
  });
});
