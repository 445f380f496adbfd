import { afterAll, describe, expect, it } from 'vitest';
import type { MemoryInput } from '../../../shared/memory.ts';
import { countTokens } from '../tokens/index.ts';
import { addMemory, createDecision, getMemory, openIssues, rehydrate, relevantLearnings, searchMemories, updateMemory, ValidationError } from './index.ts';
import { getExecutiveSummary } from '../hierarchy/index.ts';
import { fixedClock, memoryStores } from './testing/store.ts';

const stores = memoryStores('cp-memory-');
afterAll(() => stores.cleanup());

function issuesOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err.issues;
    throw err;
  }
  throw new Error('expected a ValidationError');
}

const daysAgo = (now: string, d: number) => new Date(Date.parse(now) - d * 86_400_000).toISOString();

describe('memory validation', () => {
  const { db } = stores.open();
  const add = (input: unknown) => issuesOf(() => addMemory(db, input as MemoryInput));

  it('checks the common fields', () => {
    expect(add({ memory_type: 'note', title: 'x', content: {} })).toEqual([{ field: 'memory_type', message: 'must be one of decision, issue, state, learning' }]);
    const issues = add({ memory_type: 'learning', title: 'two\nlines', content: { lesson: 'l' }, importance: 4.5, tags: 'perf', expires_at: 'soon', project_id: '', parent_memory_id: 7 });
    expect(issues.map((i) => i.field)).toEqual(['title', 'project_id', 'importance', 'tags', 'expires_at', 'parent_memory_id']);
    expect(add({ memory_type: 'learning', title: 'ok', content: { lesson: 'l' }, parent_memory_id: 'no-such-id' })).toEqual([
      { field: 'parent_memory_id', message: 'memory "no-such-id" not found' },
    ]);
  });

  it('checks issue content', () => {
    expect(add({ memory_type: 'issue', title: 'Bug', content: { description: '', severity: 'urgent', attempted_fixes: ['restart', ''], owner: 'me' } })).toEqual([
      { field: 'content.owner', message: 'is not a field of a issue memory' },
      { field: 'content.description', message: 'is required' },
      { field: 'content.severity', message: 'must be one of critical, high, medium, low' },
      { field: 'content.attempted_fixes[1]', message: 'must be a non-empty string' },
    ]);
    const ok = addMemory(db, { memory_type: 'issue', title: 'Bug', content: { description: 'Crash', severity: 'high' } });
    expect(ok.content).toEqual({ description: 'Crash', severity: 'high', reproduction_steps: '', investigation_status: '', attempted_fixes: [], next_actions: '', status: 'open' });
    expect(add({ memory_type: 'issue', title: 'Bug', content: { description: 'x', severity: 'low', status: 'closed' } })).toEqual([
      { field: 'content.status', message: 'must be one of open, resolved' },
    ]);
  });

  it('checks state content', () => {
    expect(add({ memory_type: 'state', title: 'Now', content: { task_description: 'Build', completion_percentage: 101, blockers: 'none' } })).toEqual([
      { field: 'content.completion_percentage', message: 'must be an integer from 0 to 100' },
      { field: 'content.blockers', message: 'must be a list of strings' },
    ]);
    expect(add({ memory_type: 'state', title: 'Now', content: { completion_percentage: 10 } })).toEqual([{ field: 'content.task_description', message: 'is required' }]);
  });

  it('checks learning content', () => {
    expect(add({ memory_type: 'learning', title: 'L', content: { lesson: 3, evidence: ['x'] } })).toEqual([
      { field: 'content.lesson', message: 'must be text' },
      { field: 'content.lesson', message: 'is required' },
      { field: 'content.evidence', message: 'must be text' },
    ]);
  });

  it('checks decision content through the generic path and refuses to bypass id allocation', () => {
    expect(add({ memory_type: 'decision', title: 'D', content: { decision: 'x' }, importance: 8 })).toEqual([{ field: 'content.rationale', message: 'is required' }]);
    expect(() => addMemory(db, { memory_type: 'decision', title: 'D', content: { decision: 'x', rationale: 'y' } })).toThrow(/createDecision/);
  });

  it('updates keep type and id and validate the same way', () => {
    const m = addMemory(db, { memory_type: 'learning', title: 'L', content: { lesson: 'a' } });
    const u = updateMemory(db, m.memory_id, { memory_type: 'learning', title: 'L2', content: { lesson: 'b' } });
    expect([u.memory_id, u.title, u.content.lesson]).toEqual([m.memory_id, 'L2', 'b']);
    expect(issuesOf(() => updateMemory(db, m.memory_id, { memory_type: 'learning', title: 'L', content: {} }))).toEqual([{ field: 'content.lesson', message: 'is required' }]);
  });
});

describe('memory search and ranking', () => {
  const NOW = '2025-06-01T00:00:00.000Z';
  const clock = fixedClock(NOW);
  const { db } = stores.open();
  const learning = (title: string, lesson: string, importance: number, ageDays: number, tags: string[] = []) =>
    addMemory(db, { memory_type: 'learning', title, content: { lesson }, importance, timestamp: daysAgo(NOW, ageDays), tags }, clock);
  // A and B share their text exactly (same BM25 for each column), E matches in its title only, C not at all.
  const a = learning('Redis cache layer', 'cache keys expire after ttl', 5, 0, ['perf']);
  const b = learning('Redis cache layer', 'cache keys expire after ttl', 10, 60, ['perf', 'redis']);
  const c = learning('Database pooling', 'pool size tuning', 10, 0);
  const e = learning('Cache warmup notes', 'warm the pool before traffic', 10, 0, ['ops']);
  db.prepare('UPDATE memories SET access_count = 10 WHERE id IN (?, ?)').run(b.memory_id, c.memory_id);

  it('ranks by the seed formula: text 0.40 (title .15 + content .25), importance .25, recency .20, access .15', () => {
    const hits = searchMemories(db, { query: 'cache' }, clock);
    expect(hits.map((h) => h.memory.memory_id)).toEqual([b.memory_id, a.memory_id, e.memory_id]);
    const [hb, ha, he] = hits;
    expect(hb!.score).toBeCloseTo(0.15 + 0.25 + 0.25 + 0.2 / (1 + 60 / 30) + 0.15, 10);
    expect(ha!.score).toBeCloseTo(0.15 + 0.25 + 0.125 + 0.2, 10);
    expect(he!.breakdown).toEqual({ title: 0.15, content: 0, importance: 0.25, recency: 0.2, access: 0 });
  });

  it('without a query ranks every candidate on importance, recency and access alone', () => {
    const hits = searchMemories(db, {}, clock);
    expect(hits.map((h) => h.memory.title)).toEqual(['Database pooling', 'Redis cache layer', 'Cache warmup notes', 'Redis cache layer']);
    expect(hits.map((h) => Number(h.score.toFixed(4)))).toEqual([0.6, Number((0.25 + 0.2 / 3 + 0.15).toFixed(4)), 0.45, 0.325]);
  });

  it('filters by type, tags (any of), importance, time window and archive state', () => {
    expect(searchMemories(db, { tags: ['redis', 'ops'] }, clock).map((h) => h.memory.memory_id).sort()).toEqual([b.memory_id, e.memory_id].sort());
    expect(searchMemories(db, { importanceGte: 10, after: daysAgo(NOW, 1) }, clock).map((h) => h.memory.memory_id).sort()).toEqual([c.memory_id, e.memory_id].sort());
    expect(searchMemories(db, { before: daysAgo(NOW, 30) }, clock).map((h) => h.memory.memory_id)).toEqual([b.memory_id]);
    expect(searchMemories(db, { types: ['issue'] }, clock)).toEqual([]);
    db.prepare('UPDATE memories SET is_archived = 1 WHERE id = ?').run(a.memory_id);
    expect(searchMemories(db, { query: 'cache' }, clock).map((h) => h.memory.memory_id)).toEqual([b.memory_id, e.memory_id]);
    expect(searchMemories(db, { query: 'cache', archived: true }, clock).map((h) => h.memory.memory_id)).toEqual([a.memory_id]);
    expect(searchMemories(db, { query: 'cache', archived: 'any', limit: 1 }, clock)).toHaveLength(1);
    db.prepare('UPDATE memories SET is_archived = 0 WHERE id = ?').run(a.memory_id);
    expect(searchMemories(db, { query: '"?!' }, clock)).toEqual([]);
    expect(issuesOf(() => searchMemories(db, { after: 'last week', limit: 0 }, clock)).map((i) => i.field)).toEqual(['limit', 'after']);
  });

  it('reading a memory updates access_count and last_accessed; searching does not', () => {
    searchMemories(db, { query: 'cache' }, clock);
    expect(getMemory(db, a.memory_id, { touch: false })!.access_count).toBe(0);
    clock.set('2025-06-02T08:00:00Z');
    getMemory(db, a.memory_id, clock);
    const read = getMemory(db, a.memory_id, clock)!;
    expect([read.access_count, read.last_accessed]).toEqual([2, '2025-06-02T08:00:00.000Z']);
    clock.set(NOW);
    db.prepare('UPDATE memories SET access_count = 0, last_accessed = NULL WHERE id = ?').run(a.memory_id);
  });

  it('relevantLearnings ranks learnings for a query', () => {
    expect(relevantLearnings(db, 'redis ttl', { ...clock, limit: 2 }).map((h) => h.memory.memory_id)).toEqual([b.memory_id, a.memory_id]);
  });
});

describe('rehydration bundle', () => {
  const NOW = '2025-06-01T00:00:00.000Z';
  const clock = fixedClock(NOW);

  function build() {
    const { db } = stores.open();
    const at = (d: number) => daysAgo(NOW, d);
    addMemory(db, { memory_type: 'state', title: 'Old state', content: { task_description: 'A', completion_percentage: 10 }, timestamp: at(5) }, clock);
    const state = addMemory(db, { memory_type: 'state', title: 'Current state', content: { task_description: 'B', completion_percentage: 40, blockers: ['PCI review'] }, timestamp: at(1) }, clock);
    const d = (title: string, importance: number, age: number) => createDecision(db, { title, decision: 'x', rationale: 'y', importance, timestamp: at(age) }, clock);
    const kept: string[] = [];
    for (let i = 0; i < 12; i++) kept.push(d(`Decision ${i}`, 7 + (i % 4), i + 1).decision_id!);
    d('Too old', 10, 31);
    d('Not important enough', 6, 1);
    const issue = (title: string, severity: string, age: number, status = 'open') =>
      addMemory(db, { memory_type: 'issue', title, content: { description: title, severity: severity as 'high', status: status as 'open' }, timestamp: at(age) }, clock).memory_id;
    const i1 = issue('Critical new', 'critical', 2);
    const i2 = issue('Critical old', 'critical', 20);
    const i3 = issue('High', 'high', 40);
    issue('Medium', 'medium', 50);
    issue('Critical resolved', 'critical', 3, 'resolved');
    const l = (title: string, access: number, age: number) => {
      const m = addMemory(db, { memory_type: 'learning', title, content: { lesson: title }, timestamp: at(age) }, clock);
      db.prepare('UPDATE memories SET access_count = ? WHERE id = ?').run(access, m.memory_id);
      return m.memory_id;
    };
    l('Old learning', 99, 61);
    const learnings = [l('L3', 3, 1), l('L9', 9, 10), l('L0', 0, 2), l('L5', 5, 59), l('L1', 1, 3), l('L7', 7, 30)];
    return { db, state, kept, i1, i2, i3, learnings };
  }

  it('selects per the seed: latest state, decisions ≥7 within 30 days (top 10), critical/high open issues oldest first, learnings by access', () => {
    const { db, state, kept, i1, i2, i3, learnings } = build();
    const b = rehydrate(db, { summary: getExecutiveSummary(db), ...clock, touch: false });
    expect(b.current_state!.memory_id).toBe(state.memory_id);
    expect(b.key_decisions).toHaveLength(10);
    // importance 10 first (i = 3, 7, 11), then 9, ...; newest first within an importance.
    expect(b.key_decisions.map((d) => d.decision_id)).toEqual([kept[3], kept[7], kept[11], kept[2], kept[6], kept[10], kept[1], kept[5], kept[9], kept[0]]);
    expect(b.open_issues.map((i) => i.memory_id)).toEqual([i2, i1, i3]);
    expect(b.applicable_learnings.map((l) => l.title)).toEqual(['L9', 'L7', 'L5', 'L3', 'L1']);
    expect(learnings).toHaveLength(6);
    expect(b.omitted).toEqual([]);
    expect(b.tokens).toBe(countTokens(b.text));
    expect(b.text).toContain('### Current state');
    expect(b.text).toContain('**Blockers**:\n- PCI review');
  });

  it('stays within the token budget, dropping whole items and saying which', () => {
    const { db } = build();
    const full = rehydrate(db, { summary: getExecutiveSummary(db), ...clock, touch: false });
    const small = rehydrate(db, { summary: getExecutiveSummary(db), ...clock, touch: false, maxTokens: Math.floor(full.tokens / 2) });
    expect(small.tokens).toBeLessThanOrEqual(small.max_tokens);
    expect(small.omitted.length).toBeGreaterThan(0);
    const kept = small.key_decisions.length + small.open_issues.length + small.applicable_learnings.length + (small.current_state ? 1 : 0);
    expect(kept + small.omitted.length).toBe(1 + 10 + 3 + 5);
    // Priority order: the state is kept before anything else.
    expect(small.current_state).not.toBeNull();
  });

  it('counts loaded memories as accessed unless asked not to', () => {
    const { db, state } = build();
    rehydrate(db, { summary: getExecutiveSummary(db), ...clock });
    expect(getMemory(db, state.memory_id, { touch: false })).toMatchObject({ access_count: 1, last_accessed: NOW });
    expect(openIssues(db).map((i) => i.access_count)).toEqual([1, 1, 1, 0]);
  });
});
