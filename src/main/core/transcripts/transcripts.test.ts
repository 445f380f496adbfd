import { describe, expect, it } from 'vitest';
import { createRedactor } from '../redact/index.ts';
import { createRng, fakeJwt } from '../redact/fake-secrets.testkit.ts';
import { detectTranscript, parseTranscript, redactTranscript, TRANSCRIPT_PARSERS, TranscriptError, type TranscriptFormat } from './index.ts';

const j = (o: unknown) => JSON.stringify(o);

// One conversation in every format: a user request, a tool call that fails, a tool call that succeeds, an answer.
const FIXTURES: Record<TranscriptFormat, { text: string; malformed: string; badLine: number }> = {
  'claude-code': {
    text: [
      j({ type: 'summary', summary: 'Auth work', leafUuid: 'x' }),
      j({ type: 'user', sessionId: 's-1', uuid: 'u1', timestamp: '2026-01-05T10:00:00Z', message: { role: 'user', content: 'Fix the login test' } }),
      j({ type: 'assistant', sessionId: 's-1', uuid: 'u2', timestamp: '2026-01-05T10:00:05Z', message: { role: 'assistant', content: [{ type: 'text', text: 'Running the tests.' }, { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }] } }),
      j({ type: 'user', sessionId: 's-1', uuid: 'u3', timestamp: '2026-01-05T10:00:09Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'Error: expected 200, got 401', is_error: true }] } }),
      j({ type: 'assistant', sessionId: 's-1', uuid: 'u4', timestamp: '2026-01-05T10:01:00Z', message: { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'Read', input: { file_path: 'src/auth.ts' } }] } }),
      j({ type: 'user', sessionId: 's-1', uuid: 'u5', timestamp: '2026-01-05T10:01:01Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'export const x = 1;' }] }] } }),
      j({ type: 'assistant', sessionId: 's-1', uuid: 'u6', timestamp: '2026-01-05T10:02:00Z', message: { role: 'assistant', content: 'The cookie was dropped.' } }),
    ].join('\n'),
    malformed: '{"type":"user", "sessionId": broken',
    badLine: 3,
  },
  codex: {
    text: [
      j({ timestamp: '2026-01-05T10:00:00Z', type: 'session_meta', payload: { id: 's-1', cwd: '/p', cli_version: '0.46.0' } }),
      j({ timestamp: '2026-01-05T10:00:00Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>cwd</environment_context>' }] } }),
      j({ timestamp: '2026-01-05T10:00:00Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the login test' }] } }),
      j({ timestamp: '2026-01-05T10:00:05Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Running the tests.' }] } }),
      j({ timestamp: '2026-01-05T10:00:05Z', type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: j({ command: ['npm', 'test'] }), call_id: 'c1' } }),
      j({ timestamp: '2026-01-05T10:00:09Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'c1', output: j({ output: 'Error: expected 200, got 401', metadata: { exit_code: 1 } }) } }),
      j({ timestamp: '2026-01-05T10:00:09Z', type: 'event_msg', payload: { type: 'agent_message', message: 'dup' } }),
      j({ timestamp: '2026-01-05T10:01:00Z', type: 'response_item', payload: { type: 'function_call', name: 'read_file', arguments: j({ path: 'src/auth.ts' }), call_id: 'c2' } }),
      j({ timestamp: '2026-01-05T10:01:01Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'c2', output: j({ output: 'export const x = 1;', metadata: { exit_code: 0 } }) } }),
      j({ timestamp: '2026-01-05T10:02:00Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The cookie was dropped.' }] } }),
    ].join('\n'),
    malformed: 'not json at all',
    badLine: 4,
  },
  'markdown-chat': {
    text: [
      '# Chat export',
      '',
      '## User — 2026-01-05T10:00:00Z',
      'Fix the login test',
      '',
      '## Assistant — 2026-01-05T10:00:05Z',
      'Running the tests.',
      '',
      '## Tool: Bash (error)',
      'Error: expected 200, got 401',
      '',
      '## Tool: Read',
      '```',
      '## User (inside a fence: not a turn)',
      'export const x = 1;',
      '```',
      '',
      '## Assistant',
      'The cookie was dropped.',
    ].join('\n'),
    malformed: '## User — yesterday-ish',
    badLine: 3,
  },
};

describe.each(Object.keys(FIXTURES) as TranscriptFormat[])('transcript parser: %s', (format) => {
  const fx = FIXTURES[format];
  it('is recognized by content alone', () => {
    expect(detectTranscript(fx.text)?.format).toBe(format);
  });
  it('keeps role, time, tool name and the tool error flag per turn', () => {
    const t = parseTranscript(fx.text, 'fixture');
    expect(t.format).toBe(format);
    expect(t.problems).toEqual([]);
    const texts = t.turns.map((x) => x.text);
    expect(texts[0]).toBe('Fix the login test');
    expect(t.turns[0]!.role).toBe('user');
    expect(t.turns[0]!.ts).toBe('2026-01-05T10:00:00.000Z');
    const failed = t.turns.find((x) => x.kind === 'tool_result' && x.text.includes('expected 200'))!;
    expect(failed.is_error).toBe(true);
    expect(failed.tool_name).toMatch(/^(Bash|shell)$/);
    const ok = t.turns.find((x) => x.kind === 'tool_result' && x.text.includes('export const x'))!;
    expect(ok.is_error).toBe(false);
    expect(ok.tool_name).toMatch(/^(Read|read_file)$/);
    expect(t.turns.at(-1)!.text).toBe('The cookie was dropped.');
    expect(t.turns.at(-1)!.role).toBe('assistant');
    t.turns.forEach((x, i) => expect(x.index).toBe(i));
  });
  it('reports a malformed line by number and keeps every other turn', () => {
    const lines = fx.text.split('\n');
    lines.splice(fx.badLine - 1, 0, fx.malformed);
    const good = parseTranscript(fx.text, 'fixture');
    const t = parseTranscript(lines.join('\n'), 'fixture', format);
    expect(t.problems.length).toBe(1);
    expect(t.problems[0]!.line).toBe(fx.badLine);
    const kept = t.turns.map((x) => x.text);
    for (const turn of good.turns) expect(kept).toContain(turn.text);
  });
});

describe('transcripts', () => {
  it('every parser refuses the other formats', () => {
    for (const p of TRANSCRIPT_PARSERS)
      for (const [format, fx] of Object.entries(FIXTURES)) if (format !== p.format) expect(p.detect(fx.text), `${p.format} on ${format}`).toBe(false);
  });
  it('a resumed Claude Code session that opens with many summary lines is still recognized', () => {
    const summaries = Array.from({ length: 25 }, (_, i) => j({ type: 'summary', summary: `part ${i}`, leafUuid: `l${i}` })).join('\n');
    expect(detectTranscript(`${summaries}\n${FIXTURES['claude-code'].text}`)?.format).toBe('claude-code');
  });
  it("reads Codex's older direct form (a header line, then response items)", () => {
    const text = [
      j({ id: 'old-1', timestamp: '2025-06-01T10:00:00Z', instructions: null }),
      j({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files' }] }),
      j({ type: 'function_call', name: 'shell', arguments: j({ command: ['ls'] }), call_id: 'c1' }),
      j({ type: 'function_call_output', call_id: 'c1', output: j({ output: 'ls: cannot access x', metadata: { exit_code: 2 } }) }),
      j({ record_type: 'state' }),
    ].join('\n');
    const t = parseTranscript(text, 'rollout.jsonl');
    expect(t).toMatchObject({ format: 'codex', session_id: 'old-1', problems: [] });
    expect(t.turns.map((x) => [x.role, x.kind, x.tool_name, x.is_error])).toEqual([
      ['user', 'text', null, false],
      ['assistant', 'tool_use', 'shell', false],
      ['tool', 'tool_result', 'shell', true],
    ]);
  });
  it('plain notes and BEIR-style JSONL are not transcripts', () => {
    expect(detectTranscript('# Notes\n\nJust some text.\n')).toBeNull();
    expect(detectTranscript('{"_id":"1","title":"t","text":"x"}\n{"_id":"2","title":"t","text":"y"}\n')).toBeNull();
    expect(() => parseTranscript('hello', 'notes.txt')).toThrow(TranscriptError);
    expect(() => parseTranscript('hello', 'notes.txt')).toThrow(/notes\.txt/);
  });
  it('passes every turn through the redaction gate', () => {
    const secret = fakeJwt(createRng(77));
    const text = FIXTURES['markdown-chat'].text.replace('Fix the login test', `Fix it, session_token = ${secret}`);
    const { transcript, redactions } = redactTranscript(parseTranscript(text, 'x.md'), createRedactor());
    expect(redactions).toBeGreaterThan(0);
    expect(JSON.stringify(transcript)).not.toContain(secret);
    expect(transcript.turns[0]!.text).toMatch(/\[REDACTED: /);
  });
});
