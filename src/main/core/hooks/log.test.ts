import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testing/tmp.ts';
import { inflight, markInflight } from './inflight.ts';
import { appendHookLog } from './log.ts';
import { hookEventOf, parseHookPayload } from './payload.ts';

const tmp = tempDirs('cp-hooklog-');
afterAll(() => tmp.cleanup());
const rec = (message: string) => ({ ts: '2026-01-01T00:00:00Z', event: 'Stop', session_id: 's', project: 'p', ok: false, message, ms: 1 });

describe('the hooks log', () => {
  it('gates what it writes and moves to hooks.1.jsonl past its size', () => {
    const file = join(tmp.make(), 'logs', 'hooks.jsonl');
    expect(appendHookLog(file, rec('transcript mentions aws_secret_access_key = q9Rk2Vd7Lm4Tz8Wc1Xp6Hs3Jy5Nb0Fg2Ae7Ku9Qo'), 200)).toBe(true);
    expect(readFileSync(file, 'utf8')).not.toContain('q9Rk2Vd7');
    appendHookLog(file, rec('second'), 200);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
    appendHookLog(file, rec('third'), 200);
    expect(readFileSync(file, 'utf8')).toContain('third');
    expect(readFileSync(file, 'utf8')).not.toContain('second');
    expect(readFileSync(file.replace('hooks.jsonl', 'hooks.1.jsonl'), 'utf8')).toContain('second');
  });

  it('an unwritable place returns false instead of throwing', () => {
    const file = join(tmp.make(), 'a-file');
    writeFileSync(file, 'not a folder');
    expect(appendHookLog(join(file, 'logs', 'hooks.jsonl'), rec('x'))).toBe(false);
  });
});

describe('in-flight markers', () => {
  it('count only while their process lives and they are fresh', () => {
    const f = join(tmp.make(), 'hooks', 'PreCompact-x.inflight');
    expect(inflight(f)).toBe(false);
    markInflight(f, process.pid);
    expect(existsSync(f)).toBe(true);
    expect(inflight(f)).toBe(true);
    expect(inflight(f, 60_000, Date.now() + 120_000)).toBe(false);
    markInflight(f, 2 ** 22 + 12345);
    expect(inflight(f)).toBe(false);
  });
});

describe('hook payloads', () => {
  it('event names in any documented spelling; unknown names and wrong types are refused by field', () => {
    expect(['PreCompact', 'precompact', 'pre-compact', 'session_start', 'SessionEnd', 'stop'].map(hookEventOf)).toEqual(['PreCompact', 'PreCompact', 'PreCompact', 'SessionStart', 'SessionEnd', 'Stop']);
    expect(hookEventOf('PostToolUse')).toBeNull();
    expect(() => parseHookPayload('{}', 'PostToolUse')).toThrow('unknown hook event "PostToolUse" (expected PreCompact, SessionStart, SessionEnd, Stop)');
    expect(() => parseHookPayload('[]')).toThrow('hook payload: expected a JSON object');
    expect(() => parseHookPayload('{"hook_event_name": "SessionStart", "cwd": ["a"]}')).toThrow('hook payload: "cwd" must be a string, got array');
    expect(() => parseHookPayload('{}')).toThrow(/no event/);
    expect(() => parseHookPayload(' '.repeat(2 << 20), 'Stop')).toThrow(/larger than/);
    expect(parseHookPayload('{"hook_event_name":"SessionStart","source":"compact","session_id":"s","extra":{"x":1}}')).toEqual({ event: 'SessionStart', session_id: 's', transcript_path: null, cwd: null, trigger: null, source: 'compact', reason: null });
  });
});
