// The Sessions view's list of captured sessions: handoffs with the capacity at capture, findings with their lines.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiFixture } from '../../api/testing/api-fixture.ts';
import { tempDirs } from '../testing/tmp.ts';
import { parseHookPayload } from './payload.ts';
import { runHook } from './run.ts';
import { clearFailedCaptures, spoolCapture, spooledCaptures, spoolNotice } from './spool.ts';

const fx = apiFixture('cp-captures-', { loadVec: false });
const tmp = tempDirs('cp-captures-t-');
const SESSION = '3b1f6c0e-9d2a-4e57-8a41-5f0c2d7e9b13';
const AWS_ID = 'AKIAZ4QW7TRB2XN5PLMK';

describe('sessions.captures', () => {
  it('lists each captured session with its handoff, capacity at capture and the findings its end recorded', async () => {
    expect(await fx.ok('sessions.captures', {})).toEqual([]);
    const transcript = join(tmp.make(), 'session.jsonl');
    copyFileSync(new URL('./fixtures/ratelimit.claude.jsonl', import.meta.url), transcript);
    const payload = (event: string) => parseHookPayload(JSON.stringify({ session_id: SESSION, transcript_path: transcript, hook_event_name: event, trigger: 'auto' }));
    const pre = runHook(fx.store.db, payload('PreCompact'), { project: 'default' });
    runHook(fx.store.db, payload('SessionEnd'), { project: 'default' });

    const [s, ...rest] = await fx.ok('sessions.captures', { window: 10_000 });
    expect(rest).toEqual([]);
    expect(s.session_id).toBe(SESSION);
    expect(s.transcript).toBe(transcript);
    expect(s.handoffs).toHaveLength(1);
    const h = s.handoffs[0];
    expect(h).toMatchObject({ hash: pre.hash, type: 'continuation', window: 10_000 });
    // The fixture is a few thousand tokens: against a 10,000-token window that is a level the view colours.
    expect(h.tokens).toBeGreaterThan(1_000);
    expect(h.usage_pct).toBeCloseTo((h.tokens / 10_000) * 100, 5);
    expect(s.ended.agent).toBe('claude-code');
    const decision = s.ended.findings.find((f: { kind: string }) => f.kind === 'decision');
    expect(decision.title).toBe('Use express-rate-limit with a Redis store for the login limiter');
    // The line of the transcript the decision was read from.
    expect(decision.source).toBe(`${transcript}:8`);
    expect(s.ended.findings.map((f: { kind: string }) => f.kind).sort()).toEqual(['decision', 'learning', 'todo']);
    expect(JSON.stringify(s)).not.toContain(AWS_ID);
    tmp.cleanup();
  });
  it('lists the captures that wait in the spool or failed, with why (issue #33)', async () => {
    const dbPath = fx.store.db.name;
    const p = (id: string) => parseHookPayload(JSON.stringify({ session_id: id, transcript_path: '/nowhere/t.jsonl', hook_event_name: 'PreCompact' }));
    spoolCapture(dbPath, { payload: p('waits'), project: 'default', captured_at: '2026-03-04T10:00:00.000Z', transcript: Buffer.from('{}'), error: 'the store stayed busy for 60000 ms' });
    spoolCapture(dbPath, { payload: p('broke'), project: 'default', captured_at: '2026-03-04T10:01:00.000Z', transcript: null, error: 'transcript t.jsonl: a FIFO, not a regular file (refused)', failed: true });
    const all = (await fx.ok('sessions.captures', {})) as { session_id: string; pending?: unknown[] }[];
    expect(all.find((c) => c.session_id === 'waits')!.pending).toEqual([{ event: 'PreCompact', state: 'waiting', captured_at: '2026-03-04T10:00:00.000Z', error: 'the store stayed busy for 60000 ms' }]);
    expect(all.find((c) => c.session_id === 'broke')!.pending).toEqual([{ event: 'PreCompact', state: 'failed', captured_at: '2026-03-04T10:01:00.000Z', error: 'transcript t.jsonl: a FIFO, not a regular file (refused)' }]);
    expect(spoolNotice(dbPath)).toMatch(/^hook captures: 1 waiting to be stored .*; 1 failed \(latest: PreCompact: transcript t\.jsonl: a FIFO/);
    expect(clearFailedCaptures(dbPath)).toBe(1);
    expect(spooledCaptures(dbPath).map((c) => c.state)).toEqual(['waiting']);
  });
});
