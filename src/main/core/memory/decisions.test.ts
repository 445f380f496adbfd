import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { DecisionInput } from '../../../shared/memory.ts';
import { archiveMemory, createDecision, decisionChain, deleteMemory, getMemory, listAudit, listDecisions, supersedeDecision, updateDecision, ValidationError } from './index.ts';
import { fixedClock, memoryStores } from './testing/store.ts';

const stores = memoryStores('cp-dec-');
afterAll(() => stores.cleanup());
const writer = fileURLToPath(new URL('./testing/decision-writer.ts', import.meta.url));

const base = (over: Partial<DecisionInput> = {}): DecisionInput => ({ title: 'Adopt PostgreSQL', decision: 'Use PostgreSQL.', rationale: 'ACID.', importance: 8, ...over });

function validationIssues(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).issues;
  }
  throw new Error('expected a ValidationError');
}

describe('decision ids', () => {
  it('allocates DEC-YYYY-MM-DD-NNN per UTC day of the timestamp, never reusing a deleted number', () => {
    const { db } = stores.open();
    const clock = fixedClock('2025-11-04T23:30:00Z');
    const a = createDecision(db, base(), clock);
    const b = createDecision(db, base({ title: 'Second' }), clock);
    const c = createDecision(db, base({ title: 'Next day', timestamp: '2025-11-05T00:10:00+00:00' }), clock);
    // 01:00 at +02:00 is 23:00 UTC on the 4th.
    const d = createDecision(db, base({ title: 'Offset', timestamp: '2025-11-05T01:00:00+02:00' }), clock);
    expect([a.decision_id, b.decision_id, c.decision_id, d.decision_id]).toEqual(['DEC-2025-11-04-001', 'DEC-2025-11-04-002', 'DEC-2025-11-05-001', 'DEC-2025-11-04-003']);
    deleteMemory(db, 'DEC-2025-11-04-003', clock);
    expect(createDecision(db, base({ title: 'After delete' }), clock).decision_id).toBe('DEC-2025-11-04-004');
  });

  it('keeps a given id, refuses a taken or malformed one, and continues numbering after it', () => {
    const { db } = stores.open();
    const clock = fixedClock('2025-11-04T10:00:00Z');
    expect(createDecision(db, base({ decision_id: 'DEC-2025-11-04-007' }), clock).decision_id).toBe('DEC-2025-11-04-007');
    expect(createDecision(db, base(), clock).decision_id).toBe('DEC-2025-11-04-008');
    expect(validationIssues(() => createDecision(db, base({ decision_id: 'DEC-2025-11-04-007' }), clock))).toEqual([{ field: 'decision_id', message: 'DEC-2025-11-04-007 already exists' }]);
    expect(validationIssues(() => createDecision(db, base({ decision_id: 'DEC-25-1-4-1' }), clock))[0]!.field).toBe('decision_id');
  });

  it('gives unique, gap-free ids to concurrent writers in separate processes', async () => {
    const store = stores.open('concurrent.db');
    const path = store.path;
    store.close();
    const run = (label: string) =>
      new Promise<string[]>((resolve, reject) => {
        const p = spawn(process.execPath, [writer, path, '25', '2025-11-04T12:00:00Z', label], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        p.stdout.on('data', (d: Buffer) => (out += d.toString()));
        p.stderr.on('data', (d: Buffer) => (err += d.toString()));
        p.on('error', reject);
        p.on('close', (code) => (code === 0 ? resolve(out.trim().split('\n')) : reject(new Error(`writer ${label} exited ${code}: ${err}`))));
      });
    const results = await Promise.all(['w1', 'w2', 'w3', 'w4'].map(run));
    const all = results.flat();
    expect(all).toHaveLength(100);
    expect(new Set(all).size).toBe(100);
    expect([...all].sort()).toEqual(Array.from({ length: 100 }, (_, i) => `DEC-2025-11-04-${String(i + 1).padStart(3, '0')}`));
    // Each writer saw its own ids in increasing order.
    for (const ids of results) expect([...ids].sort()).toEqual(ids);
  });
});

describe('decision validation', () => {
  it('names every bad field of the template', () => {
    const { db } = stores.open();
    const issues = validationIssues(() =>
      createDecision(db, {
        title: 'x'.repeat(101),
        decision: '  ',
        rationale: '',
        importance: 0,
        alternatives_considered: [{ name: 'MongoDB', reason: '' }, { name: '', reason: 'slow' }],
        tags: ['ok', 'a,b'],
        timestamp: 'yesterday',
        context: 'fine\n### not a heading here',
      }),
    );
    expect(issues.map((i) => i.field).sort()).toEqual(
      ['alternatives_considered[0].reason', 'alternatives_considered[1].name', 'context', 'decision', 'importance', 'rationale', 'tags[1]', 'timestamp', 'title'].sort(),
    );
    expect(issues.find((i) => i.field === 'title')!.message).toMatch(/at most 100/);
    expect(db.prepare('SELECT count(*) AS n FROM memories').get()).toEqual({ n: 0 });
  });

  it('requires importance', () => {
    const { db } = stores.open();
    const issues = validationIssues(() => createDecision(db, { title: 't', decision: 'd', rationale: 'r' } as DecisionInput));
    expect(issues).toEqual([{ field: 'importance', message: 'is required (1–10)' }]);
  });
});

describe('supersede', () => {
  it('builds a chain A → B → C, archiving (never deleting) each superseded decision', () => {
    const { db } = stores.open();
    const clock = fixedClock('2025-11-04T10:00:00Z');
    const a = createDecision(db, base({ title: 'A' }), clock);
    clock.advanceDays(1);
    const b = createDecision(db, base({ title: 'B', supersedes: a.decision_id! }), clock);
    clock.advanceDays(1);
    const c = createDecision(db, base({ title: 'C' }), clock);
    supersedeDecision(db, b.decision_id!, c.decision_id!, clock);

    const chain = decisionChain(db, b.decision_id!);
    expect(chain.map((d) => d.title)).toEqual(['A', 'B', 'C']);
    expect(chain.map((d) => [d.supersedes, d.superseded_by, d.is_archived])).toEqual([
      [null, b.decision_id, true],
      [a.decision_id, c.decision_id, true],
      [b.decision_id, null, false],
    ]);
    expect(chain[0]!.archived_at).toBe('2025-11-04T10:00:00.000Z'.replace('04T', '05T'));
    expect(listDecisions(db).map((d) => d.title)).toEqual(['C']);
    expect(listDecisions(db, { archived: 'any' }).map((d) => d.title).sort()).toEqual(['A', 'B', 'C']);
    const audit = listAudit(db, { memoryId: a.memory_id }).map((e) => e.action);
    expect(audit).toEqual(['ARCHIVED', 'SUPERSEDED', 'CREATED']);
  });

  it('refuses loops, double supersedes and non-decisions', () => {
    const { db } = stores.open();
    const a = createDecision(db, base({ title: 'A' }));
    const b = createDecision(db, base({ title: 'B', supersedes: a.decision_id! }));
    const c = createDecision(db, base({ title: 'C' }));
    expect(validationIssues(() => supersedeDecision(db, b.decision_id!, a.decision_id!))[0]!.message).toMatch(/loop/);
    expect(validationIssues(() => supersedeDecision(db, a.decision_id!, c.decision_id!))[0]!.message).toMatch(/already superseded by/);
    expect(validationIssues(() => supersedeDecision(db, c.decision_id!, c.decision_id!))[0]!.message).toMatch(/itself/);
    expect(validationIssues(() => createDecision(db, base({ supersedes: 'DEC-2000-01-01-001' })))[0]).toEqual({ field: 'supersedes', message: 'decision "DEC-2000-01-01-001" not found' });
    // The failed create left nothing behind.
    expect(listDecisions(db, { archived: 'any' })).toHaveLength(3);
  });

  it('updates fields without touching links or id, and reads count as accesses', () => {
    const { db } = stores.open();
    const clock = fixedClock('2025-11-04T10:00:00Z');
    const a = createDecision(db, base({ tags: ['db'] }), clock);
    clock.advanceDays(2);
    const u = updateDecision(db, a.decision_id!, base({ rationale: 'ACID and JSONB.', tags: ['db', 'sql'] }), clock);
    expect(u.decision_id).toBe(a.decision_id);
    expect(u.content.rationale).toBe('ACID and JSONB.');
    expect(u.timestamp).toBe(a.timestamp);
    expect(u.updated_at).toBe('2025-11-06T10:00:00.000Z');
    expect(listDecisions(db, { tags: ['sql'] }).map((d) => d.decision_id)).toEqual([a.decision_id]);
    const read = getMemory(db, a.decision_id!, clock)!;
    expect([read.access_count, read.last_accessed]).toEqual([1, '2025-11-06T10:00:00.000Z']);
    expect(getMemory(db, a.decision_id!, { ...clock, touch: false })!.access_count).toBe(1);
    archiveMemory(db, a.decision_id!, clock);
    expect(getMemory(db, a.memory_id, { touch: false })!.is_archived).toBe(true);
  });
});
