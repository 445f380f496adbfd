import { describe, expect, it } from 'vitest';
import { createRedactor } from '../redact/index.ts';
import { createRng, fakeJwt } from '../redact/fake-secrets.testkit.ts';
import { detectTranscript, parseTranscript, redactTranscript, TRANSCRIPT_FORMATS, TRANSCRIPT_PARSERS, TranscriptError, type Transcript, type TranscriptFormat } from './index.ts';
import { READER_FIXTURES } from './fixtures.testkit.ts';

const j = (o: unknown) => JSON.stringify(o);
const FIXTURES = READER_FIXTURES;
/** The user's own words and the agent's answers: what the shared suite compares across formats. */
const own = (t: Transcript) => t.turns.filter((x) => x.origin === undefined);

describe.each(TRANSCRIPT_FORMATS as TranscriptFormat[])('transcript parser: %s', (format) => {
  const fx = FIXTURES[format];
  it('is recognized by content alone', () => {
    expect(detectTranscript(fx.text)?.format).toBe(format);
  });
  it('keeps role, time, tool name and the tool error flag per turn', () => {
    const t = parseTranscript(fx.text, 'fixture');
    expect(t.format).toBe(format);
    expect(t.problems).toEqual([]);
    const first = own(t).find((x) => x.role === 'user')!;
    expect(first.text).toBe('Fix the login test');
    expect(first.ts).toBe('2026-01-05T10:00:00.000Z');
    // Nothing the harness injected is taken for the user's words.
    for (const x of t.turns) if (x.origin === 'injected') expect(x.text).not.toContain('Fix the login test');
    const failed = t.turns.find((x) => x.kind === 'tool_result' && x.text.includes('expected 200'))!;
    expect(failed.is_error).toBe(true);
    expect(failed.tool_name).toBe(fx.failingTool);
    const ok = t.turns.find((x) => x.kind === 'tool_result' && x.text.includes('export const x'))!;
    expect(ok.is_error).toBe(false);
    expect(ok.tool_name).toBe(fx.okTool);
    expect(t.turns.at(-1)!.text).toBe('The cookie was dropped.');
    expect(t.turns.at(-1)!.role).toBe('assistant');
    t.turns.forEach((x, i) => expect(x.index).toBe(i));
  });
  it.skipIf(!fx.malformed)('reports a malformed line by number and keeps every other turn', () => {
    const lines = fx.text.split('\n');
    lines.splice(fx.malformed!.line - 1, 0, fx.malformed!.text);
    const good = parseTranscript(fx.text, 'fixture');
    const t = parseTranscript(lines.join('\n'), 'fixture', format);
    expect(t.problems.length).toBe(1);
    expect(t.problems[0]!.line).toBe(fx.malformed!.line);
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
    // The error names every format read, so a user knows what would have worked.
    let message = '';
    try {
      parseTranscript('hello', 'notes.txt');
    } catch (err) {
      message = (err as Error).message;
    }
    for (const f of TRANSCRIPT_FORMATS) expect(message).toContain(`${f}:`);
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
