import { afterAll, describe, expect, it, vi } from 'vitest';
import type { MemoryInput } from '../../../shared/memory.ts';
import { getMeta } from '../store/index.ts';
import { addMemory, archiveMemory, createDecision, deleteMemory, getMemory, listAudit, restoreMemory, runMaintenance, startMaintenanceTimer } from './index.ts';
import { fixedClock, memoryStores } from './testing/store.ts';

const stores = memoryStores('cp-life-');
afterAll(() => stores.cleanup());

const T0 = '2025-01-01T00:00:00.000Z';
const HOUR = 3_600_000;
const at = (days: number, hours = 0) => new Date(Date.parse(T0) + days * 86_400_000 + hours * HOUR);

function setup() {
  const { db } = stores.open();
  const clock = fixedClock(T0);
  const mem = (input: Omit<MemoryInput, 'timestamp'>) => addMemory(db, { ...input, timestamp: T0 } as MemoryInput, clock).memory_id;
  const dec = (importance: number) => createDecision(db, { title: `Decision ${importance}`, decision: 'x', rationale: 'y', importance, timestamp: T0 }, clock).memory_id;
  const archived = (id: string) => getMemory(db, id, { touch: false })?.is_archived ?? 'deleted';
  const run = (d: number, h = 0) => runMaintenance(db, { now: () => at(d, h) });
  return { db, clock, mem, dec, archived, run };
}

describe('archive rules at their boundaries', () => {
  it('decision: importance ≤ 5 and older than 90 whole days', () => {
    const { dec, archived, run } = setup();
    const low = dec(5);
    const high = dec(6);
    expect(run(90, 23).archived).toEqual([]);
    expect(archived(low)).toBe(false);
    const r = run(91);
    expect(r.archived).toEqual([{ memory_id: low, memory_type: 'decision', title: 'Decision 5', rule: 'decision-low-importance', reason: 'importance ≤ 5 AND age > 90 days' }]);
    expect([archived(low), archived(high)]).toEqual([true, false]);
    expect(run(5000).archived).toEqual([]);
    expect(archived(high)).toBe(false);
  });

  it('issue: resolved and older than 30 days', () => {
    const { mem, archived, run } = setup();
    const resolved = mem({ memory_type: 'issue', title: 'Fixed', content: { description: 'x', severity: 'high', status: 'resolved' } });
    const open = mem({ memory_type: 'issue', title: 'Open', content: { description: 'x', severity: 'high' } });
    run(30, 23);
    expect(archived(resolved)).toBe(false);
    run(31);
    expect([archived(resolved), archived(open)]).toEqual([true, false]);
  });

  it('state: archived once a newer state exists', () => {
    const { db, clock, mem, archived, run } = setup();
    const s1 = mem({ memory_type: 'state', title: 'S1', content: { task_description: 'a', completion_percentage: 1 } });
    run(1);
    expect(archived(s1)).toBe(false);
    const s2 = addMemory(db, { memory_type: 'state', title: 'S2', content: { task_description: 'b', completion_percentage: 2 }, timestamp: at(2).toISOString() }, clock).memory_id;
    expect(run(2).archived.map((a) => [a.memory_id, a.rule])).toEqual([[s1, 'state-superseded']]);
    expect(archived(s2)).toBe(false);
  });

  it('learning: never accessed and older than 180 days', () => {
    const { db, mem, archived, run } = setup();
    const unused = mem({ memory_type: 'learning', title: 'Unused', content: { lesson: 'x' } });
    const used = mem({ memory_type: 'learning', title: 'Used', content: { lesson: 'x' } });
    getMemory(db, used);
    run(180, 23);
    expect(archived(unused)).toBe(false);
    run(181);
    expect([archived(unused), archived(used)]).toEqual([true, false]);
  });

  it('any memory past expires_at', () => {
    const { db, clock, archived, run } = setup();
    const m = addMemory(db, { memory_type: 'learning', title: 'Temp', content: { lesson: 'x' }, timestamp: T0, expires_at: at(3).toISOString() }, clock).memory_id;
    run(2, 23);
    expect(archived(m)).toBe(false);
    expect(run(3).archived[0]!.rule).toBe('expired');
  });
});

describe('delete rules at their boundaries (only archived memories)', () => {
  it('decision: importance ≤ 3 and archived more than 365 days', () => {
    const { dec, archived, run } = setup();
    const three = dec(3);
    const four = dec(4);
    run(91); // archives both (importance ≤ 5)
    expect([archived(three), archived(four)]).toEqual([true, true]);
    run(91 + 365, 23);
    expect(archived(three)).toBe(true);
    const r = run(91 + 366);
    expect(r.deleted.map((d) => [d.memory_id, d.rule])).toEqual([[three, 'decision-very-low-importance']]);
    expect([archived(three), archived(four)]).toEqual(['deleted', true]);
  });

  it('issue: resolved and archived more than 180 days', () => {
    const { mem, archived, run } = setup();
    const i = mem({ memory_type: 'issue', title: 'Fixed', content: { description: 'x', severity: 'low', status: 'resolved' } });
    run(31);
    run(31 + 180, 23);
    expect(archived(i)).toBe(true);
    run(31 + 181);
    expect(archived(i)).toBe('deleted');
  });

  it('state: superseded and archived more than 90 days', () => {
    const { db, clock, mem, archived, run } = setup();
    const s1 = mem({ memory_type: 'state', title: 'S1', content: { task_description: 'a', completion_percentage: 1 } });
    addMemory(db, { memory_type: 'state', title: 'S2', content: { task_description: 'b', completion_percentage: 2 }, timestamp: at(1).toISOString() }, clock);
    run(1);
    run(91, 23);
    expect(archived(s1)).toBe(true);
    run(92);
    expect(archived(s1)).toBe('deleted');
  });

  it('learning: never accessed and older than 365 days', () => {
    const { mem, archived, run } = setup();
    const l = mem({ memory_type: 'learning', title: 'Unused', content: { lesson: 'x' } });
    run(181);
    run(365, 23);
    expect(archived(l)).toBe(true);
    run(366);
    expect(archived(l)).toBe('deleted');
  });

  it('never deletes an active memory, however old', () => {
    const { dec, mem, archived, run } = setup();
    const d = dec(9);
    const i = mem({ memory_type: 'issue', title: 'Open', content: { description: 'x', severity: 'critical' } });
    const r = run(10_000);
    expect(r.deleted).toEqual([]);
    expect([archived(d), archived(i)]).toEqual([false, false]);
  });
});

describe('manual archive, restore, delete, audit, dry run and timer', () => {
  it('archive is reversible and a restored memory is left alone by the archive rules', () => {
    const { db, dec, archived, run } = setup();
    const d = dec(2);
    run(91);
    expect(archived(d)).toBe(true);
    restoreMemory(db, d, { now: () => at(100) });
    expect(archived(d)).toBe(false);
    expect(run(1000)).toMatchObject({ archived: [], deleted: [] });
    archiveMemory(db, d, { now: () => at(1001) });
    expect(run(1001 + 365).deleted).toEqual([]);
    expect(run(1001 + 366).deleted.map((x) => x.memory_id)).toEqual([d]);
    expect(listAudit(db, { memoryId: d }).map((e) => [e.action, e.rule, e.actor])).toEqual([
      ['DELETED', 'decision-very-low-importance', 'lifecycle'],
      ['ARCHIVED', null, 'user'],
      ['RESTORED', null, 'user'],
      ['ARCHIVED', 'decision-low-importance', 'lifecycle'],
      ['CREATED', null, 'user'],
    ]);
    expect(listAudit(db, { memoryId: d })[0]).toMatchObject({ ts: at(1001 + 366).toISOString(), title: 'Decision 2', memory_type: 'decision' });
  });

  it('deletes explicitly on user request, with an audit entry', () => {
    const { db, dec, archived } = setup();
    const d = dec(9);
    deleteMemory(db, d, { now: () => at(1), reason: 'entered by mistake' });
    expect(archived(d)).toBe('deleted');
    expect(listAudit(db, { memoryId: d })[0]).toMatchObject({ action: 'DELETED', rule: 'user-delete', reason: 'entered by mistake' });
    expect(() => deleteMemory(db, d)).toThrow(/not found/);
  });

  it('a dry run reports without changing anything', () => {
    const { db, dec, archived } = setup();
    const d = dec(1);
    const r = runMaintenance(db, { now: () => at(200), dryRun: true });
    expect(r.archived.map((x) => x.memory_id)).toEqual([d]);
    expect(archived(d)).toBe(false);
    expect(getMeta(db, 'memory.maintenance.last_run')).toBeUndefined();
  });

  it('the timer runs now when due, then every interval, and stops', async () => {
    const { db, dec, archived } = setup();
    const d = dec(1);
    let clockNow = at(200);
    const reports: string[] = [];
    const stop = startMaintenanceTimer({ db, now: () => clockNow, intervalMs: 50, onReport: (r) => reports.push(r.ran_at) });
    await vi.waitFor(() => expect(reports).toEqual([at(200).toISOString()]));
    expect(archived(d)).toBe(true);
    // Ticks while the clock has not moved a whole interval are skipped, so the wait below cannot double-count.
    clockNow = at(201);
    await vi.waitFor(() => expect(reports).toEqual([at(200).toISOString(), at(201).toISOString()]));
    stop();
    clockNow = at(202);
    await new Promise((r) => setTimeout(r, 150));
    expect(reports).toHaveLength(2);
    // A restart within the interval does not run again.
    const again: string[] = [];
    const stop2 = startMaintenanceTimer({ db, now: () => at(201), intervalMs: 86_400_000, onReport: (r) => again.push(r.ran_at) });
    await new Promise((r) => setTimeout(r, 20));
    stop2();
    expect(again).toEqual([]);
  });
});
