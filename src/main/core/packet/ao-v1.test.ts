import { afterAll, describe, expect, it } from 'vitest';
import type { CanonicalPacket } from '../../../shared/packet.ts';
import { tempDirs } from '../testing/tmp.ts';
import { buildPacket } from './assemble.ts';
import { manifestOf } from './render.ts';
import { packetStore, type SeedCounts } from './fixtures.testkit.ts';
import { createBm25Retriever } from '../search/index.ts';

const tmp = tempDirs('cp-pack-ao-');
const stores: { close(): void }[] = [];
afterAll(() => {
  for (const s of stores) s.close();
  tmp.cleanup();
});

async function fixture(seed?: SeedCounts, files?: Record<string, string>) {
  const f = await packetStore(tmp.make(), { seed, files });
  stores.push(f.store);
  return f;
}

const section = (p: CanonicalPacket, name: string) => p.sections.find((s) => s.name === name)!;
const bigTask = (chars: number) => Array.from({ length: Math.ceil(chars / 28) }, (_, i) => `- [ ] criterion ${String(i).padStart(5, '0')} holds`).join('\n').slice(0, chars);

describe('ao-v1: sections, budgets and degradation', () => {
  it('renders all five sections with 000 notes when every source is empty', async () => {
    const f = await fixture(undefined, { 'empty.md': '# Nothing\n\nirrelevant words only\n' });
    const p = await buildPacket({ query: 'quantum chromodynamics' }, { sources: { ...f.sources, sessions: null } });
    expect(p.sections.map((s) => s.name)).toEqual(['GOALS', 'HISTORY', 'INTEL', 'TASK', 'PROTOCOL']);
    expect(section(p, 'GOALS').text).toMatch(/^## GOALS\nNo fitness goals defined for this repository\./);
    // Issue #23: an empty section is one line; the manifest still records each degradation.
    expect(section(p, 'GOALS').text.split('\n')).toHaveLength(2);
    expect(section(p, 'HISTORY').text).toBe('## HISTORY\nNo prior session data — this is the first cycle.');
    expect(section(p, 'INTEL').text).toBe('## INTEL\nNo prior knowledge found — this is the first cycle.');
    // A query without a task is the task.
    expect(section(p, 'TASK').text).toBe('## TASK\n### Assignment\nquantum chromodynamics');
    expect(section(p, 'PROTOCOL').text).toMatch(/### Saving Work/);
    for (const n of ['GOALS', 'HISTORY', 'INTEL']) expect(section(p, n).budget.note).not.toBeNull();
    expect(p.degradations.join('\n')).toMatch(/GOALS: No fitness goals/);
    expect(p.degradations.join('\n')).toMatch(/TASK: no task given; the query is the task/);
    expect(manifestOf(p, 'h'.repeat(64)).validity!.reasons).toEqual([expect.stringMatching(/^acceptance: no task was given, only a query/)]);
    const blank = await buildPacket({ query: '' }, { sources: { ...f.sources, sessions: null } });
    expect(section(blank, 'TASK').text).toBe('## TASK\nNo specific task assigned (--task-file gives one).');
    expect(manifestOf(blank, 'h'.repeat(64)).validity!.reasons).toEqual([expect.stringMatching(/^step: no task given/)]);
  });

  it('omits empty sub-sections but keeps the ones with data (000 degradation matrix)', async () => {
    const f = await fixture({ decisions: 2 });
    const p = await buildPacket({ query: 'token signing' }, { sources: { ...f.sources, sessions: null } });
    const h = section(p, 'HISTORY').text;
    expect(h).toMatch(/### Decision Timeline/);
    expect(h).not.toMatch(/### Recent State/);
    expect(h).not.toMatch(/### Recent Sessions/);
  });

  it('uses the minimal PROTOCOL when the static text is missing, and says so', async () => {
    const f = await fixture();
    const p = await buildPacket({ query: 'x' }, { sources: { ...f.sources, staticText: () => null } });
    expect(section(p, 'PROTOCOL').text).toMatch(/Commit your work with clear messages/);
    expect(p.degradations.join('\n')).toMatch(/protocol: .*missing; minimal template used/);
  });

  it("has 000's budget table by default and scales it with maxTokens", async () => {
    const f = await fixture();
    const p = await buildPacket({ query: 'tokens' }, { sources: f.sources });
    expect(p.budgets).toMatchObject({ unit: 'chars', total_budget: 28_000, max_tokens: 7_000 });
    expect(p.sections.map((s) => [s.name, s.budget.min, s.budget.target, s.budget.max])).toEqual([
      ['GOALS', 200, 2000, 3000],
      ['HISTORY', 200, 8000, 10000],
      ['INTEL', 200, 12000, 15000],
      ['TASK', 200, 4000, 5000],
      ['PROTOCOL', 200, 2000, 2500],
    ]);
    const half = await buildPacket({ query: 'tokens', maxTokens: 3_500 }, { sources: f.sources });
    expect(half.budgets.total_budget).toBe(14_000);
    expect(section(half, 'INTEL').budget.target).toBe(6_000);
    // Real tokenizer counts sit next to the chars/4 estimate, per section.
    for (const s of p.sections) {
      expect(s.budget.chars).toBe(s.text.length);
      expect(s.budget.estimate_tokens).toBe(Math.ceil(s.text.length / 4));
      expect(s.budget.tokens).toBeGreaterThan(0);
    }
    const cl = await buildPacket({ query: 'tokens', encoding: 'cl100k_base' }, { sources: f.sources });
    expect(cl.models.tokenizer).toBe('cl100k_base');
  });

  it('puts goals (L1), history (state, sessions, decision timeline) and ranked intel in their sections with provenance', async () => {
    const f = await fixture({ goals: true, decisions: 3, learnings: 2, issues: 2, states: 2 });
    const p = await buildPacket({ query: 'token signing key', task: 'Rotate the signing key.\n- [ ] no downtime' }, { sources: f.sources });
    const goals = section(p, 'GOALS').text;
    expect(goals).toMatch(/Ship token rotation without downtime \(status: 40% — signing done\)/);
    expect(goals).toMatch(/### Blockers\n- Key store lacks versioning ← blocking/);
    expect(goals).toMatch(/### Directives\n- "Decision 1 on token signing" \(DEC-2026-01-01-\d{3}\)/);
    const hist = section(p, 'HISTORY').text;
    expect(hist).toMatch(/### Recent State \(last 10\)\n- \[2026-01-02\] State 2/);
    // The ingest log stays out of packets (#35): a packet must not depend on how its store was filled.
    expect(hist).not.toMatch(/indexed .*project|ingest run/);
    expect(hist).toMatch(/### Decision Timeline[\s\S]*DEC-2026-01-03-\d{3}: Decision 3/);
    const intel = section(p, 'INTEL').text;
    expect(intel).toMatch(/### Evidence \(retrieved, ranked\)\n- \[E1\] .*docs\/auth\.md#.*:\d+-\d+ · score 1\.000/);
    expect(intel).toMatch(/### Relevant Decisions\n- \*\*DEC-/);
    expect(intel).toMatch(/### Open Issues/);
    expect(section(p, 'TASK').text).toBe('## TASK\n### Assignment\nRotate the signing key.\n- [ ] no downtime');
    const ev = p.included.filter((i) => i.kind === 'evidence');
    expect(ev.length).toBeGreaterThan(0);
    // Cited relative to the ingest root (#11): no absolute path, the manifest keeps the root id.
    for (const e of ev) expect(e.source).toMatch(/^(docs|notes)\/[^/].*:\d+-\d+$/);
    expect(p.cited_sources!.length).toBeGreaterThan(0);
    for (const c of p.cited_sources!) expect(c).toMatchObject({ path: expect.stringMatching(/^(docs|notes)\//), root_id: expect.any(Number) });
    const dec = p.included.find((i) => i.kind === 'decision')!;
    expect(dec.source).toMatch(/^DEC-\S+ \(memory mem-\d+\)$/);
  });
});

describe('ao-v1: eviction', () => {
  it('trims a section over its target by its own rule: INTEL compresses, then drops whole lowest-score items first', async () => {
    const files: Record<string, string> = {};
    // One chunk per document (ids stay unique), eight sentences each: compressing all of them is not enough.
    for (let i = 0; i < 250; i++) files[`doc${i}.md`] = `# Doc ${i}\n\n` + Array.from({ length: 8 }, (_, j) => `Sentence ${j} on tokens rotate keys ${'x'.repeat(i % 7)} item ${i}.`).join(' ') + '\n';
    const f = await fixture(undefined, files);
    const p = await buildPacket({ query: 'tokens rotate keys', k: 250 }, { sources: f.sources });
    const intel = section(p, 'INTEL');
    expect(intel.budget.truncated).toBe(true);
    // INTEL's own target (12,000) grows into what the other sections leave of the 28,000-char budget.
    const others = p.sections.filter((s) => s.name !== 'INTEL').reduce((n, s) => n + s.text.length, 0);
    expect(intel.text.length).toBeGreaterThan(12_000);
    expect(intel.text.length).toBeLessThanOrEqual(28_000 - others);
    expect(p.budgets.total_chars).toBeLessThanOrEqual(28_000);
    // 003: compress before drop — the compress event comes first and names what it compressed.
    const intelEvents = p.truncation_events.filter((e) => e.section === 'INTEL');
    expect(intelEvents[0]).toMatchObject({ step: 'intel: compress lowest score first', action: 'compress', reason: 'section_over_target', dropped_ids: [] });
    expect(intelEvents[0].compressed_ids!.length).toBeGreaterThan(0);
    const ev = intelEvents.find((e) => e.action === 'drop')!;
    expect(ev).toMatchObject({ step: 'intel: lowest score first', reason: 'section_over_target' });
    const keptMin = Math.min(...p.included.filter((i) => i.section === 'INTEL').map((i) => i.score!));
    const droppedMax = Math.max(...p.dropped.filter((d) => d.section === 'INTEL').map((d) => d.score!));
    expect(droppedMax).toBeLessThanOrEqual(keptMin);
    // Whole items go; the ones that stay keep their provenance line.
    for (const i of p.included.filter((x) => x.kind === 'evidence')) expect(intel.text).toContain(i.source);
    for (const d of p.dropped) expect(intel.text).not.toContain(`${d.source} ·`);
  });

  it('spends the evidence budget: the default k follows max_tokens and INTEL fills what the other sections leave', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++) files[`src/mod${i}.md`] = `# Module ${i}\n\n` + `key rotation step ${i} keeps tokens valid\n`.repeat(30);
    const f = await fixture(undefined, files);
    const p = await buildPacket({ query: 'key rotation tokens', maxTokens: 8_000 }, { sources: f.sources });
    expect(p.retrieval.k).toBe(40);
    expect(p.budgets.total_chars).toBeLessThanOrEqual(32_000);
    expect(p.budgets.total_chars).toBeGreaterThan(0.9 * 32_000);
    // An explicit k is the caller's: no more hits than asked for.
    const few = await buildPacket({ query: 'key rotation tokens', maxTokens: 8_000, k: 5 }, { sources: f.sources });
    expect(few.included.filter((i) => i.kind === 'evidence').length).toBeLessThanOrEqual(5);
  });

  it('trims HISTORY over its target: state to 5, then sessions to 3, then the decision timeline to 3', async () => {
    const f = await fixture({ states: 10, decisions: 5, filler: 0 });
    const sessions = Array.from({ length: 5 }, (_, i) => ({ id: `s${i}`, source: `session-${i}`, ts: `2026-02-0${i + 1}T00:00:00Z`, text: `session ${i} `.padEnd(150, '.') }));
    const sources = { ...f.sources, sessions: () => sessions };
    // 1,000 tokens → 4,000 chars: HISTORY's target scales to 1,143.
    const p = await buildPacket({ query: 'nothing matches this', maxTokens: 1_000, k: 0 }, { sources });
    const steps = p.truncation_events.filter((e) => e.section === 'HISTORY').map((e) => [e.step, e.dropped_ids.length]);
    expect(steps[0]).toEqual(['history: recent state to 5', 5]);
    expect(steps.map((s) => s[0])).toEqual(['history: recent state to 5', 'history: sessions to 3', 'history: decision timeline to 3'].slice(0, steps.length));
    const kept = p.included.filter((i) => i.kind === 'state').map((i) => i.id);
    expect(kept).toHaveLength(5);
    // Oldest entries go first: the five newest states stay.
    expect(p.dropped.filter((d) => d.kind === 'state').every((d) => !kept.includes(d.id))).toBe(true);
  });

  it('applies the overflow order HISTORY → INTEL → GOALS when the packet is over budget; TASK and PROTOCOL stay whole', async () => {
    const f = await fixture({ goals: true, states: 10, decisions: 5, learnings: 5, issues: 3, filler: 150 });
    // GOALS ~400, HISTORY ~1,700, INTEL ~5,300, PROTOCOL ~940: a 25,500-char TASK needs all three trims.
    const task = bigTask(25_500);
    const p = await buildPacket({ query: 'tokens signing retry', task }, { sources: f.sources });
    const over = p.truncation_events.filter((e) => e.reason === 'packet_over_budget');
    expect(over.map((e) => e.step)).toEqual([
      'history: recent state to 5',
      'history: sessions to 3',
      'history: decision timeline to 3',
      'intel: compress lowest score first',
      'intel: lowest score first',
      'goals: failing gates, blockers and directives only',
    ].filter((s) => over.some((e) => e.step === s)));
    expect(over.map((e) => e.section)).toEqual(expect.arrayContaining(['HISTORY', 'INTEL', 'GOALS']));
    // INTEL lost its lowest-scored items one at a time until the packet fit: the best ones are still there.
    const intelDropped = over.find((e) => e.section === 'INTEL' && e.action === 'drop')!.dropped_ids;
    const kept = p.included.filter((i) => i.section === 'INTEL');
    const droppedScores = p.dropped.filter((d) => intelDropped.includes(d.id)).map((d) => d.score!);
    for (const k of kept) expect(k.score!).toBeGreaterThanOrEqual(Math.max(...droppedScores));
    expect(section(p, 'TASK').text).toContain(task.trim());
    expect(section(p, 'TASK').budget.truncated).toBe(false);
    expect(section(p, 'PROTOCOL').budget.truncated).toBe(false);
    expect(p.budgets.total_chars).toBeLessThanOrEqual(28_000);
  });

  it('reduces GOALS to blockers and directives, with passing priorities as a count', async () => {
    const f = await fixture({ goals: true, decisions: 2 });
    const p = await buildPacket({ query: 'zzz', task: bigTask(27_000) }, { sources: { ...f.sources, retriever: createBm25Retriever(f.store.db) } });
    const goals = section(p, 'GOALS').text;
    expect(p.truncation_events.map((e) => e.step)).toContain('goals: failing gates, blockers and directives only');
    expect(goals).toMatch(/### Priorities\n3 priorities \(omitted for brevity\)\./);
    expect(goals).toMatch(/Key store lacks versioning/);
    expect(goals).toMatch(/### Directives/);
    expect(p.dropped.filter((d) => d.kind === 'priority')).toHaveLength(3);
  });

  it('pathological case: HISTORY becomes one summary line and the overrun is reported, TASK intact', async () => {
    const f = await fixture({ goals: true, states: 4, decisions: 3 });
    const task = bigTask(40_000);
    const p = await buildPacket({ query: 'tokens', task }, { sources: f.sources });
    const hist = section(p, 'HISTORY');
    expect(hist.text).toMatch(/^## HISTORY\nHistory omitted to fit the budget \(.*\); ids are in the manifest\.$/);
    expect(hist.text.split('\n')).toHaveLength(2);
    expect(p.truncation_events.at(-1)).toMatchObject({ section: 'HISTORY', reason: 'pathological' });
    expect(section(p, 'TASK').text).toContain(task.trim());
    expect(p.budget_warnings.join('\n')).toMatch(/over its 28000-char budget after all trimming: TASK and PROTOCOL are never trimmed/);
    expect(p.budget_warnings.join('\n')).toMatch(/TASK is \d+ chars, over its 5000-char max/);
    // INTEL was emptied before the fallback and says so instead of claiming there is no knowledge.
    expect(section(p, 'INTEL').text).toMatch(/All \d+ items were evicted to fit the budget/);
  });
});
