// #26: the task as it stands now, plain-language state, errors that resolve, counts as written, one session's state
// per handoff. Each fault the issue reports is reproduced with a fixture of our own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../redact/index.ts';
import { openStore } from '../store/index.ts';
import { countTokens } from '../tokens/index.ts';
import { parseTranscript, renderTurn } from '../transcripts/index.ts';
import { compactTranscript } from './compact.ts';
import { extract } from './extract.ts';
import { buildHandoff, createHandoff } from './handoff.ts';
import { endSession } from './session-end.ts';
import { quoteTurns } from './quote.ts';

const j = (o: unknown) => JSON.stringify(o);
const NOW = () => new Date('2026-03-01T12:00:00Z');
const cc = (uuid: string, o: Record<string, unknown>) => j({ sessionId: 's-plain', uuid, timestamp: `2026-02-10T10:${uuid.padStart(2, '0')}:00Z`, ...o });
const user = (uuid: string, content: unknown, extra: Record<string, unknown> = {}) => cc(uuid, { type: 'user', message: { role: 'user', content }, ...extra });
const said = (uuid: string, text: string) => cc(uuid, { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] } });
const call = (uuid: string, id: string, name: string, input: unknown) => cc(uuid, { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] } });
const result = (uuid: string, id: string, content: string, isError = false) => user(uuid, [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }]);

/** A session whose state is written in plain words, the way agents write it. */
const PLAIN = [
  user('1', '<command-message>retry is running…</command-message>\n<command-name>/retry</command-name>'),
  user('2', 'Make the worker retry failed jobs with exponential backoff. Acceptance: retries stop after 5 attempts; the wait-for-db step runs before the first job.'),
  said('3', 'We keep BullMQ instead of a hand-written loop because it already persists attempts.\nAlternative rejected: Redis SETNX (no fencing token)'),
  call('4', 't1', 'Bash', { command: 'npm test' }),
  result('5', 't1', 'FAIL test/retry.test.ts > retries 5 times\nAssertionError: expected 3 to be 5\nExit code 1', true),
  said('6', 'The failure is because of the attempts option: retries.test.ts counts attempts from 0.'),
  call('7', 't2', 'Bash', { command: 'npx tsc --noEmit' }),
  result('8', 't2', 'Exit code 1', true),
  call('9', 't3', 'Bash', { command: 'npm test' }),
  result('10', 't3', 'Tests  93 passed (93)'),
  said('11', 'Status: backoff implemented, tests green (about 60 %). Remaining: add full jitter to the backoff, wire the wait-for-db step.\nNext I\'ll add the jitter to src/retry.ts.\nBlocked by: the staging Redis is down'),
].join('\n');

describe('plain-language state', () => {
  const x = extract(parseTranscript(PLAIN, 'plain.jsonl'));
  it('status, progress, remaining work, next steps, blockers and acceptance criteria, each with its provenance', () => {
    expect(x.state).toMatchObject({
      task: 'Make the worker retry failed jobs with exponential backoff. Acceptance: retries stop after 5 attempts; the wait-for-db step runs before the first job.',
      status: 'backoff implemented, tests green.',
      completion_percentage: 60,
      not_started: ['add full jitter to the backoff', 'wire the wait-for-db step'],
      next_actions: ['add the jitter to src/retry.ts'],
      blockers: ['the staging Redis is down'],
    });
    expect(x.acceptance.map((a) => a.text)).toEqual(['retries stop after 5 attempts', 'the wait-for-db step runs before the first job']);
    const src = x.state.sources.find((s) => s.field === 'not_started')!;
    expect(src.at).toMatchObject({ turn: 10, line: 11 });
  });
  it('a decision without markers, with the alternative the text rejects', () => {
    expect(x.decisions).toHaveLength(1);
    expect(x.decisions[0]).toMatchObject({ title: 'Keep BullMQ', rationale: 'it already persists attempts' });
    expect(x.decisions[0]!.alternatives.map((a) => a.name)).toEqual(['a hand-written loop', 'Redis SETNX']);
    expect(x.decisions[0]!.alternatives[1]!.reason).toBe('no fencing token');
  });
  it('errors: grouped by command, never a bare exit code; a later green run of the same command resolves one', () => {
    expect(x.errors.map((e) => [e.command, e.resolved])).toEqual([
      ['npm test', true],
      ['npx tsc --noEmit', false],
    ]);
    expect(x.errors[0]!.message).toContain('AssertionError: expected 3 to be 5');
    expect(x.errors[0]!.root_cause).toContain('because of the attempts option');
    // The type check's failure has no text about it: no borrowed root cause, and a message that names the command.
    expect(x.errors[1]!.root_cause).toBeNull();
    expect(x.errors[1]!.message).toBe('npx tsc --noEmit failed (exit code 1) with no other output');
  });
  it('a shell redirect writing the file resolves a failed write; a well-formed call resolves a refused one; a declined plan is no error', () => {
    const t = parseTranscript(
      [
        user('1', 'Add an env sample'),
        call('2', 'w1', 'Write', { file_path: '/p/.env.sample', content: 'A=1' }),
        result('3', 'w1', '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>', true),
        call('4', 'b1', 'Bash', { command: "cat > .env.sample << 'EOF'\nA=1\nEOF" }),
        result('5', 'b1', ''),
        call('5a', 't9', 'Task', { description: 'Survey the repo' }),
        result('5b', 't9', '<tool_use_error>InputValidationError: Task failed due to the following issue:\nThe required parameter `prompt` is missing</tool_use_error>', true),
        call('5c', 't10', 'Task', { description: 'Survey the repo again', prompt: 'List the packages' }),
        result('5d', 't10', 'Two packages: api, web.'),
        call('6', 'p1', 'ExitPlanMode', { plan: '1. Do it' }),
        result('7', 'p1', 'The agent proposed a plan that was rejected by the user. The user chose to stay in plan mode.', true),
      ].join('\n'),
      'w.jsonl',
    );
    expect(extract(t).errors.map((e) => [e.command, e.resolved])).toEqual([
      ['/p/.env.sample', true],
      ['Survey the repo', true],
    ]);
  });
  it('a TODO in a code comment of a proposed snippet is not an open issue; one in prose is', () => {
    const t = parseTranscript([user('1', 'Plan the service'), said('2', 'Add deps.py:\n  def call_llm(prompt):\n      # TODO: replace with real LLM invocation\n      raise NotImplementedError\nTODO: decide on the LLM vendor')].join('\n'), 't.jsonl');
    expect(extract(t).issues.map((i) => i.title)).toEqual(['decide on the LLM vendor']);
  });
  it('the handoff lists only the unresolved error as a pitfall and names the user request in its summary', () => {
    const p = buildHandoff({ type: 'continuation', transcript: parseTranscript(PLAIN, 'plain.jsonl') }, { now: NOW }).package;
    expect(p.agent_specific_notes.known_pitfalls).toEqual(['npx tsc --noEmit: npx tsc --noEmit failed (exit code 1) with no other output']);
    expect(p.context_summary.executive_summary).toContain("Task (the user's latest request, turn 1, line 2): Make the worker retry failed jobs");
    expect(p.next_actions.immediate).toEqual(['add the jitter to src/retry.ts']);
    expect(p.context_summary.executive_summary).toContain("Agent's last report (turn 10, line 11): Status: backoff implemented, tests green (about 60 %). Remaining: add full jitter");
    // Not finished: it says what remains.
    expect(p.context_summary.executive_summary).not.toContain('Finished:');
    expect(p.next_actions.success_criteria).toEqual(['retries stop after 5 attempts', 'the wait-for-db step runs before the first job']);
    expect(p.context_summary.critical_decisions[0]!.alternatives.map((a) => a.name)).toContain('Redis SETNX');
  });
});

describe('the task as it stands now', () => {
  const compacted = [
    user('1', 'Build the CSV importer'),
    said('2', 'Starting with the parser.'),
    user('3', 'This session is being continued from a previous conversation that ran out of context.\nSummary:\n7. Pending Tasks:\n   - Validate rows against the schema\n   - Batch inserts\n\n8. Current Work:\n   Writing the row validator in src/validate.ts. It rejects empty ids.\n\n9. Optional Next Step:\n   Finish the row validator and run the importer tests.', { isCompactSummary: true }),
    user('4', '<system-reminder>The TodoWrite tool hasn\'t been used recently.</system-reminder>'),
    user('5', 'Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages.'),
    user('6', 'also make the importer skip a header row'),
    user('7', 'yes'),
  ].join('\n');
  it('the latest request is the task; the compaction summary gives pending work, current work and the next step', () => {
    const x = extract(parseTranscript(compacted, 'c.jsonl'));
    expect(x.state.task).toBe('also make the importer skip a header row');
    expect(x.state.goal).toBe('Build the CSV importer');
    expect(x.state.last_ack?.text).toBe('yes');
    expect(x.state.not_started).toEqual(['Validate rows against the schema', 'Batch inserts']);
    expect(x.state.in_progress).toEqual(['Writing the row validator in src/validate.ts.']);
    expect(x.state.next_actions).toEqual(['Finish the row validator and run the importer tests.']);
    expect(x.state.sources.find((s) => s.field === 'not_started')!.from).toBe('compact_summary');
  });
  it('the handoff puts a request newer than the state first', () => {
    const p = buildHandoff({ type: 'continuation', transcript: parseTranscript(compacted, 'c.jsonl') }, { now: NOW }).package;
    expect(p.next_actions.immediate[0]).toBe("Answer the user's latest request: also make the importer skip a header row");
    expect(p.context_summary.executive_summary).toContain('Goal (first request): Build the CSV importer');
  });
  it('TodoWrite lists and approved plans are the state; harness text never is', () => {
    const t = parseTranscript(
      [
        user('1', '# AGENTS.md instructions for /p\n\nUse pnpm.'),
        user('2', 'Add rate limiting to the API'),
        call('3', 'pl', 'ExitPlanMode', { plan: '1. Add a token bucket\n2. Wire it into the router' }),
        result('4', 'pl', 'User has approved your plan. You can now start coding.'),
        call('5', 'td', 'TodoWrite', { todos: [{ content: 'Add a token bucket', status: 'completed' }, { content: 'Wire it into the router', status: 'in_progress' }, { content: 'Document the limits', status: 'pending' }] }),
        cc('6', { type: 'system', content: '\u001b[1mPostToolUse\u001b[0m hook: formatted 2 files' }),
      ].join('\n'),
      't.jsonl',
    );
    const x = extract(t);
    expect(x.state).toMatchObject({ task: 'Add rate limiting to the API', completed: ['Add a token bucket'], in_progress: ['Wire it into the router'], not_started: ['Document the limits'], completion_percentage: 33 });
    expect(x.plan?.text).toContain('Add a token bucket');
  });
  it('a redacted request is never the task', () => {
    const t = parseTranscript([user('1', '[REDACTED_TEXT len=3021 sha=dc9e82a0]'), user('2', 'session_token = eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX29mX3RoZV90b2tlbg'), said('3', 'ok')].join('\n'), 'r.jsonl');
    const p = buildHandoff({ type: 'continuation', transcript: t }, { now: NOW }).package;
    expect(p.context_summary.current_task_state.task).toBe('');
    expect(JSON.stringify(p)).not.toContain('eyJzdWIiOiIxIn0');
  });
});

describe('one store, many sessions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cp-state-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it('each handoff states its own session, never the task a previous handoff recorded', () => {
    const store = openStore(join(dir, 's.db'), { loadVec: false });
    try {
      const tasks = ['Fix AOJ-100: the login redirect loops', 'Add dark mode to the settings page', 'Speed up the nightly export'];
      for (const task of tasks) {
        const t = parseTranscript([user('1', task), said('2', 'Looking into it.')].join('\n'), `${task.slice(0, 8)}.jsonl`);
        const r = createHandoff(store.db, { type: 'continuation', transcript: t, from: 'a', to: 'b' }, { now: NOW });
        expect(r.package.context_summary.current_task_state.task).toBe(task);
      }
    } finally {
      store.close();
    }
  });
  it('session end saves unresolved errors as issues, not the resolved ones', () => {
    const store = openStore(join(dir, 'e.db'), { loadVec: false });
    try {
      const r = endSession(store.db, parseTranscript(PLAIN, 'plain.jsonl'), { agent: 'impl-1', now: NOW });
      const errors = r.saved.created.filter((c) => c.title.startsWith('Error:'));
      expect(errors.map((e) => e.title)).toEqual(['Error: npx tsc --noEmit: npx tsc --noEmit failed (exit code 1) with no other output']);
      expect(r.summary.issues_encountered.filter((i) => i.kind === 'error')).toHaveLength(1);
    } finally {
      store.close();
    }
  });
});

describe('counts as written', () => {
  it('compaction measures the transcript as written; only its output is redacted', () => {
    const secret = `password = "${'Zq7'.repeat(12)}"`;
    const t = parseTranscript([user('1', 'Deploy the app'), said('2', `Using ${secret} from the vault.\n${'The deploy log says the rollout is progressing normally. '.repeat(40)}`)].join('\n'), 'd.jsonl');
    const asWritten = t.turns.reduce((a, turn) => a + countTokens(renderTurn(turn)) + 1, 0);
    const p = buildHandoff({ type: 'continuation', transcript: t }, { now: NOW, redactor: createRedactor() }).package;
    expect(p.compaction.tokens_before).toBe(asWritten);
    expect(JSON.stringify(p)).not.toContain('Zq7Zq7');
  });
  it('compaction of a small transcript never makes it larger than its quoted form', () => {
    for (const text of [PLAIN, [user('1', 'hi'), said('2', 'Hello!')].join('\n')]) {
      const t = parseTranscript(text, 'x.jsonl');
      const r = compactTranscript(t);
      // As written, quoted (quote.ts): the header, the markers and a ">" a line are all it adds.
      const quoted = countTokens(`# CONVERSATION (as written: ${t.turns.length} turns)\n\n${quoteTurns(t.turns.map((turn) => renderTurn(turn)))}\n`);
      expect(r.summary.tokens_after).toBeLessThanOrEqual(Math.max(quoted, r.summary.tokens_before));
    }
  });
});
