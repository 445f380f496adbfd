import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { CanonicalPacket } from '../../../shared/packet.ts';
import { buildPacket } from '../packet/assemble.ts';
import { packetStore, type SeedCounts } from '../packet/fixtures.testkit.ts';
import { tempDirs } from '../testing/tmp.ts';
import { fitnessState, GoalsSpecError, parseGoalsMarkdown, parseGoalsYaml, recordGate, UnknownGateError } from './index.ts';

const tmp = tempDirs('cp-goals-');
const closers: { close(): void }[] = [];
afterAll(() => {
  for (const c of closers) c.close();
  tmp.cleanup();
});

const GOALS_MD = (n: number) => `# GOALS

Prose is ignored.

## Gates
${Array.from({ length: n }, (_, i) => `- gate-${String(i + 1).padStart(2, '0')}: Gate number ${i + 1} holds${i % 2 === 0 ? ` (threshold ${90 + (i % 10)}%)` : ''}`).join('\n')}

## Directives
- "Prioritize test reliability over coverage percentage"
- All new public APIs require OpenAPI spec
`;

async function fixture(files: Record<string, string>, seed?: SeedCounts) {
  const f = await packetStore(tmp.make(), { files: { 'docs/readme.md': '# Readme\n\nToken rotation notes.\n', ...files }, seed });
  closers.push(f.store);
  return f;
}
const goalsText = (p: CanonicalPacket) => p.sections.find((s) => s.name === 'GOALS')!.text;
const at = (iso: string) => ({ now: () => new Date(iso) });

describe('GOALS.md / GOALS.yaml parsing', () => {
  it('reads gates (id, description, threshold) and directives from GOALS.md', () => {
    const s = parseGoalsMarkdown('version: 4\n## Gates\n- test-pass-rate: Unit tests pass (threshold 95%)\n- **lint-clean**: No lint warnings\n## Directives\n- "Keep it small"\n');
    expect(s.version).toBe(4);
    expect(s.gates).toEqual([
      { id: 'test-pass-rate', description: 'Unit tests pass', threshold: '95%' },
      { id: 'lint-clean', description: 'No lint warnings', threshold: null },
    ]);
    expect(s.directives).toEqual(['Keep it small']);
  });

  it('reads the YAML form (versions 1–3)', () => {
    const s = parseGoalsYaml('version: 3\ngates:\n  - id: api-latency\n    description: p95 under target # comment\n    threshold: "200ms"\n    check: make bench\n  - id: build\n    description: Build succeeds\ndirectives:\n  - Prefer small PRs\n');
    expect(s.gates).toEqual([
      { id: 'api-latency', description: 'p95 under target', threshold: '200ms' },
      { id: 'build', description: 'Build succeeds', threshold: null },
    ]);
    expect(s.directives).toEqual(['Prefer small PRs']);
  });

  it('names file, line and field for malformed specs', () => {
    expect(() => parseGoalsMarkdown('## Gates\n- ok: fine\n- no description here\n', 'G.md')).toThrow(/^G\.md:3: gate: expected/);
    expect(() => parseGoalsMarkdown('## Gates\n- a: x\n- a: y\n', 'G.md')).toThrow(/G\.md:3: gate id: duplicate gate "a"/);
    expect(() => parseGoalsMarkdown('## Gates\n- Bad_ID: x\n', 'G.md')).toThrow(GoalsSpecError);
    expect(() => parseGoalsYaml('gates:\n  - description: no id\n', 'G.yaml')).toThrow(/G\.yaml:2: id: every gate needs an id/);
    expect(() => parseGoalsYaml('version: x\n', 'G.yaml')).toThrow(/G\.yaml:1: version: must be a positive integer/);
  });
});

describe('fitness snapshots and the GOALS section', () => {
  it('records gate results (migration 060) and shows the newest per gate', async () => {
    const f = await fixture({ 'GOALS.md': GOALS_MD(3) });
    expect(fitnessState(f.store.db)).toMatchObject({ passing: 0, failing: 0, unmeasured: 3 });
    recordGate(f.store.db, { gate: 'gate-01', status: 'fail', value: '80%' }, at('2026-02-01T00:00:00Z'));
    recordGate(f.store.db, { gate: 'gate-01', status: 'pass', value: '97%' }, at('2026-02-02T00:00:00Z'));
    recordGate(f.store.db, { gate: 'gate-02', status: 'fail' }, at('2026-02-02T00:00:00Z'));
    const s = fitnessState(f.store.db)!;
    expect(s.file).toBe(join(f.root, 'GOALS.md'));
    expect(s.gates.map((g) => [g.id, g.status, g.value])).toEqual([['gate-01', 'pass', '97%'], ['gate-02', 'fail', null], ['gate-03', null, null]]);
    expect(() => recordGate(f.store.db, { gate: 'gate-99', status: 'pass' })).toThrow(/gate "gate-99" is not in .*GOALS\.md \(gates: gate-01, gate-02, gate-03\)/);
    expect(() => recordGate(f.store.db, { gate: 'gate-01', status: 'maybe' as 'pass' })).toThrow(UnknownGateError);
    expect(() => f.store.db.prepare("UPDATE goal_snapshots SET status = 'pass'").run()).toThrow(/append-only/);
  });

  it('renders Passing / Failing / Directives as 000 shows, the first failing gate as the priority target', async () => {
    const f = await fixture({ 'GOALS.md': GOALS_MD(4) });
    recordGate(f.store.db, { gate: 'gate-01', status: 'pass', value: '98%' });
    recordGate(f.store.db, { gate: 'gate-02', status: 'pass' });
    recordGate(f.store.db, { gate: 'gate-03', status: 'fail', value: '72%' });
    recordGate(f.store.db, { gate: 'gate-04', status: 'fail', value: '320ms' });
    const p = await buildPacket({ query: 'token rotation' }, { sources: f.sources });
    const g = goalsText(p);
    expect(g).toContain('Fitness spec for this repository. Your work must not regress these gates.');
    expect(g).toMatch(/### Passing \(2\/4\)\n- gate-01: PASS \(98%, threshold 90%\) — Gate number 1 holds\n- gate-02: PASS — Gate number 2 holds/);
    expect(g).toMatch(/### Failing \(2\/4\)\n- gate-03: FAIL \(72%, threshold 92%\) — Gate number 3 holds ← priority target\n- gate-04: FAIL \(320ms\) — Gate number 4 holds\n/);
    expect(g).toMatch(/### Directives\n- "Prioritize test reliability over coverage percentage"\n- "All new public APIs require OpenAPI spec"$/);
    expect(p.included.filter((i) => i.kind === 'gate').map((i) => i.id)).toEqual(['gate:gate-01', 'gate:gate-02', 'gate:gate-03', 'gate:gate-04']);
  });

  it('trims to failing gates + directives with the count line when GOALS is over its budget', async () => {
    const f = await fixture({ 'GOALS.md': GOALS_MD(16) });
    for (let i = 1; i <= 16; i++) recordGate(f.store.db, { gate: `gate-${String(i).padStart(2, '0')}`, status: i === 5 || i === 11 ? 'fail' : 'pass', value: `${i}` });
    // 2,000 chars is GOALS' target at the default budget; 16 gates are over it at 1,000 tokens (target 286 chars).
    const p = await buildPacket({ query: 'token rotation', maxTokens: 1000 }, { sources: f.sources });
    const g = goalsText(p);
    expect(g).toContain('14/16 gates passing (omitted for brevity).');
    expect(g).toMatch(/### Failing \(2\/16\)\n- gate-05: FAIL .*← priority target\n- gate-11: FAIL/);
    expect(g).toContain('### Directives');
    expect(g).not.toMatch(/gate-01: PASS/);
    const ev = p.truncation_events.find((e) => e.section === 'GOALS')!;
    expect(ev.step).toBe('goals: failing gates, blockers and directives only');
    expect(ev.dropped_ids).toHaveLength(14);
  });

  it('falls back to the L1 summary without a spec, and to 000\'s note without either', async () => {
    const withL1 = await fixture({}, { goals: true, decisions: 2 });
    const a = goalsText(await buildPacket({ query: 'tokens' }, { sources: withL1.sources }));
    expect(a).toMatch(/### Goal\n- Ship token rotation without downtime \(status: 40% — signing done\)/);
    const none = await fixture({});
    const b = goalsText(await buildPacket({ query: 'tokens' }, { sources: none.sources }));
    expect(b).toBe('## GOALS\nNo fitness goals defined for this repository.');
  });

  it('records a malformed spec as a degradation naming file and line, and the packet still builds', async () => {
    const f = await fixture({ 'GOALS.yaml': 'gates:\n  - id: ok\n    description: fine\n  - description: missing id\n' });
    const p = await buildPacket({ query: 'tokens' }, { sources: f.sources });
    expect(p.degradations.join('\n')).toMatch(/goals: provider failed \(.*GOALS\.yaml:4: id: every gate needs an id\)/);
    expect(goalsText(p)).toMatch(/No fitness goals defined/);
  });

  it('carries the fitness state into layered-v1 MEMORY', async () => {
    const f = await fixture({ 'GOALS.md': GOALS_MD(2) });
    recordGate(f.store.db, { gate: 'gate-01', status: 'fail', value: '50%' });
    const p = await buildPacket({ query: 'tokens', template: 'layered-v1' }, { sources: f.sources });
    const mem = p.sections.find((s) => s.name === 'MEMORY')!.text;
    expect(mem).toMatch(/- Fitness: 0\/2 gates passing \(.*GOALS\.md\)\n  FAIL: gate-01 \(50%, threshold 90%\) — Gate number 1 holds\n  Not measured: gate-02 — Gate number 2 holds\n  Directive: Prioritize/);
  });
});
