import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assemble, createStoreSources, renderPacket } from '../packet/index.ts';
import { openStore } from '../store/index.ts';
import { tempDirs } from '../testing/tmp.ts';
import { addMemory, createDecision, getMemory, listAudit, openIssues, patchMemory, resolveMemory, ValidationError } from './index.ts';

const tmp = tempDirs('cp-patch-');
afterAll(() => tmp.cleanup());
const at = (iso: string) => () => new Date(iso);

describe('memory update / resolve (#17 item 3)', () => {
  it('patches title, importance, tags and content fields, audited; unknown fields fail per field', () => {
    const store = openStore(join(tmp.make(), 'p.db'), { loadVec: false });
    const db = store.db;
    const s = addMemory(db, { memory_type: 'state', title: 'Importer', content: { task_description: 'Build the importer', completion_percentage: 20, next_actions: ['Parse CSV'] } }, { now: at('2026-01-01T00:00:00Z') });
    const r = patchMemory(db, s.memory_id, { title: 'CSV importer', importance: 8, tags: ['import'], set: { completion_percentage: 60, 'next_actions[]': 'Batch inserts' } }, { actor: 'impl-1', now: at('2026-01-02T00:00:00Z') });
    expect(r.changed).toBe(true);
    expect(r.memory).toMatchObject({ title: 'CSV importer', importance: 8, tags: ['import'], content: { completion_percentage: 60, next_actions: ['Parse CSV', 'Batch inserts'] } });
    expect(listAudit(db, { memoryId: s.memory_id })[0]).toMatchObject({ action: 'UPDATED', actor: 'impl-1' });
    expect(patchMemory(db, s.memory_id, { title: 'CSV importer' }).changed).toBe(false);
    expect(() => patchMemory(db, s.memory_id, { set: { colour: 'red' }, importance: 11 })).toThrow(ValidationError);
    try {
      patchMemory(db, s.memory_id, { set: { colour: 'red' }, importance: 11 });
    } catch (err) {
      expect((err as ValidationError).issues.map((i) => i.field).sort()).toEqual(['content.colour', 'importance']);
    }
    store.close();
  });

  it('applies the lifecycle on update: a decision lowered to importance 5 after 90 days is archived', () => {
    const store = openStore(join(tmp.make(), 'p.db'), { loadVec: false });
    const d = createDecision(store.db, { title: 'Use Redis', decision: 'Redis for cache.', rationale: 'Fast.', importance: 8, timestamp: '2025-01-01T00:00:00Z' });
    const r = patchMemory(store.db, d.decision_id!, { importance: 5 }, { now: at('2025-06-01T00:00:00Z') });
    expect(r.lifecycle).toMatchObject({ rule: 'decision-low-importance' });
    expect(r.memory.is_archived).toBe(true);
    store.close();
  });

  it('resolve: an issue leaves the open issues and the next packet; only issues can be resolved', async () => {
    const store = openStore(join(tmp.make(), 'p.db'), { loadVec: false });
    const db = store.db;
    const i = addMemory(db, { memory_type: 'issue', title: 'Login cookie dropped', content: { description: 'SameSite=Strict drops the cookie on the OAuth callback', severity: 'critical' } }, { now: at('2026-01-01T00:00:00Z') });
    const pack = async () => renderPacket((await assemble({ query: 'login cookie' }, { db: null, sources: createStoreSources(db) }, 'md')).packet, 'x', 'md');
    expect(await pack()).toContain('Login cookie dropped');
    const r = resolveMemory(db, i.memory_id, { resolution: 'SameSite=Lax', actor: 'impl-1', now: at('2026-01-03T00:00:00Z') });
    expect(r.memory.content).toMatchObject({ status: 'resolved', investigation_status: 'Resolved 2026-01-03: SameSite=Lax' });
    expect(r.lifecycle).toBeNull();
    expect(listAudit(db, { memoryId: i.memory_id })[0]).toMatchObject({ action: 'RESOLVED', reason: 'resolved: SameSite=Lax', actor: 'impl-1' });
    expect(openIssues(db)).toEqual([]);
    expect(await pack()).not.toContain('Login cookie dropped');
    expect(resolveMemory(db, i.memory_id).changed).toBe(false);
    const l = addMemory(db, { memory_type: 'learning', title: 'L', content: { lesson: 'x' } });
    expect(() => resolveMemory(db, l.memory_id)).toThrow(/only issues can be resolved/);
    // A resolved issue older than 30 days is archived at once by the lifecycle rule.
    const old = addMemory(db, { memory_type: 'issue', title: 'Old bug', content: { description: 'd', severity: 'low' }, timestamp: '2025-01-01T00:00:00Z' });
    expect(resolveMemory(db, old.memory_id, { now: at('2026-01-03T00:00:00Z') }).lifecycle).toMatchObject({ rule: 'issue-resolved' });
    expect(getMemory(db, old.memory_id, { touch: false })!.is_archived).toBe(true);
    store.close();
  });
});
