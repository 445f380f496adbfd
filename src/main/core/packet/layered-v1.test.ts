import { afterAll, describe, expect, it } from 'vitest';
import type { CanonicalPacket } from '../../../shared/packet.ts';
import { tempDirs } from '../testing/tmp.ts';
import { buildPacket } from './assemble.ts';
import { packetStore, type SeedCounts } from './fixtures.testkit.ts';
import { packetText } from './render.ts';

const tmp = tempDirs('cp-pack-layered-');
const stores: { close(): void }[] = [];
afterAll(() => {
  for (const s of stores) s.close();
  tmp.cleanup();
});

async function fixture(seed?: SeedCounts) {
  const files: Record<string, string> = {};
  for (let i = 0; i < 12; i++) files[`docs/d${i}.md`] = `# Tokens ${i}\n\n` + `token signing key rotation note ${i}. `.repeat(15) + '\n';
  const f = await packetStore(tmp.make(), { seed, files });
  stores.push(f.store);
  return f;
}
const layer = (p: CanonicalPacket, name: string) => p.sections.find((s) => s.name === name)!;
const turns = (n: number) => Array.from({ length: n }, (_, i) => ({ role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant', text: `turn ${i + 1}: ${'we discussed token rotation at length. '.repeat(6)}` }));

describe('layered-v1', () => {
  it('orders layers System → Task → Tools → Evidence → Memory → Conversation → Request → Slack and never renders Slack', async () => {
    const f = await fixture({ decisions: 2, learnings: 1 });
    const p = await buildPacket({ query: 'token signing', template: 'layered-v1', maxTokens: 10_000, tools: [{ name: 'file_read', purpose: 'read a file', capability_class: 'observe', risk_level: 'read_safe', approval_mode: 'read_only' }], conversation: turns(2) }, { sources: f.sources });
    expect(p.sections.map((s) => s.name)).toEqual(['SYSTEM', 'TASK', 'TOOLS', 'EVIDENCE', 'MEMORY', 'CONVERSATION', 'REQUEST', 'SLACK']);
    const text = packetText(p);
    expect(text).not.toMatch(/SLACK/);
    expect(layer(p, 'SLACK').budget).toMatchObject({ reserved: true, chars: 0, target: 1_000 });
    // 003: the user request closes the payload (after the conversation), with acceptance and the top evidence.
    expect(layer(p, 'REQUEST').text).toMatch(/### User Request \(verbatim\)\ntoken signing$/);
    expect(text.trimEnd()).toMatch(/### User Request \(verbatim\)\ntoken signing$/);
    expect(layer(p, 'TOOLS').text).toBe('## TOOLS\n- file_read: read a file (observe, read_safe, read_only)');
    expect(layer(p, 'MEMORY').text).toMatch(/\*\*DEC-/);
    expect(layer(p, 'CONVERSATION').text).toMatch(/- user:\n  turn 1:/);
  });

  it("allocates the remainder after 003's floors by the profile's weights, recorded in the manifest", async () => {
    const f = await fixture();
    const p = await buildPacket({ query: 'token', template: 'layered-v1', maxTokens: 10_000 }, { sources: f.sources });
    // Floors: System 6%, Task 8%, Tools 5%, Slack 10% of 10,000 → remainder 7,100.
    expect(['SYSTEM', 'TASK', 'TOOLS'].map((n) => layer(p, n).budget.target)).toEqual([600, 800, 500]);
    const w = p.budgets.weights!;
    expect(w.evidence).toBeCloseTo(0.6 / 0.95, 5);
    expect(w.memory).toBeCloseTo(0.225 / 0.95, 5);
    expect(w.conversation).toBeCloseTo(0.125 / 0.95, 5);
    // REQUEST (acceptance, top evidence, user request) is fixed too: it comes out of the remainder.
    const rest = 7_100 - layer(p, 'REQUEST').budget.tokens;
    expect(layer(p, 'EVIDENCE').budget.target).toBe(Math.floor(rest * w.evidence));
    expect(layer(p, 'MEMORY').budget.target).toBe(Math.floor(rest * w.memory));
    expect(p.budgets).toMatchObject({ unit: 'tokens', window: 10_000, total_budget: 9_000, profile: 'research' });
    const docs = await buildPacket({ query: 'token', template: 'layered-v1', maxTokens: 10_000, profile: 'docs', signals: { checklist_evidence_ratio: 1, dialogue_depth: 20 } }, { sources: f.sources });
    expect(docs.budgets.profile).toBe('docs');
    expect(docs.budgets.signals).toEqual({ checklist_evidence_ratio: 1, dialogue_depth: 20 });
    // Evidence weight: 0.5 + 0.1 (ratio) against memory 0.275 and conversation 0.175 + 0.1 (depth 20 of 20).
    expect(docs.budgets.weights!.evidence).toBeCloseTo(0.6 / 1.15, 5);
  });

  it('drops Memory (lowest score) first, then older Evidence, then the oldest Conversation turns', async () => {
    const f = await fixture({ decisions: 8, learnings: 6, issues: 4, states: 4, filler: 400 });
    const p = await buildPacket({ query: 'token signing key rotation', template: 'layered-v1', maxTokens: 2_500, conversation: turns(12) }, { sources: f.sources });
    // 003: compress first (Memory, then Evidence), then drop Memory → older Evidence → older Conversation.
    expect(p.truncation_events[0]).toMatchObject({ section: 'MEMORY', action: 'compress' });
    const compressed = p.truncation_events.filter((e) => e.action === 'compress').map((e) => e.section);
    expect(compressed).toEqual([...compressed].sort((a, b) => ['MEMORY', 'EVIDENCE'].indexOf(a) - ['MEMORY', 'EVIDENCE'].indexOf(b)));
    const events = p.truncation_events.filter((e) => e.action === 'drop').map((e) => e.section);
    expect(events[0]).toBe('MEMORY');
    expect(events).toEqual([...events].sort((a, b) => ['MEMORY', 'EVIDENCE', 'CONVERSATION'].indexOf(a) - ['MEMORY', 'EVIDENCE', 'CONVERSATION'].indexOf(b)));
    const memKept = p.included.filter((i) => i.section === 'MEMORY');
    const memDropped = p.dropped.filter((d) => d.section === 'MEMORY');
    expect(memDropped.length).toBeGreaterThan(0);
    if (memKept.length > 0) expect(Math.min(...memKept.map((i) => i.score!))).toBeGreaterThanOrEqual(Math.max(...memDropped.map((d) => d.score!)));
    const convDropped = p.dropped.filter((d) => d.section === 'CONVERSATION').map((d) => d.id);
    // The oldest turns were already one summary block (003's aging policy: last 5 verbatim); it goes first.
    if (convDropped.length > 0) expect(convDropped[0]).toBe('conversation:summary');
    // Within the budget: the dynamic layers fit the remainder.
    const dynTokens = ['EVIDENCE', 'MEMORY', 'CONVERSATION'].reduce((s, n) => s + layer(p, n).budget.tokens, 0);
    const remainder = 2_500 - ['SYSTEM', 'TASK', 'TOOLS'].reduce((s, n) => s + Math.max(layer(p, n).budget.tokens, layer(p, n).budget.target!), 0) - 250;
    expect(dynTokens).toBeLessThanOrEqual(remainder);
    for (const n of ['SYSTEM', 'TASK', 'TOOLS']) expect(layer(p, n).budget.truncated).toBe(false);
  });

  it('never truncates System, Task or Tools; when they exceed the window it asks to split the step', async () => {
    const f = await fixture({ decisions: 2 });
    const task = 'Do the thing carefully. '.repeat(1_200);
    const p = await buildPacket({ query: 'token', template: 'layered-v1', maxTokens: 3_000, task }, { sources: f.sources });
    expect(layer(p, 'TASK').text).toContain(task.trim());
    expect(p.budget_warnings.join('\n')).toMatch(/TASK uses \d+ tokens, over its 240-token floor/);
    expect(p.budget_warnings.join('\n')).toMatch(/exceed the 3000-token window by \d+: split the step/);
    expect(p.included.filter((i) => ['EVIDENCE', 'MEMORY'].includes(i.section))).toEqual([]);
    expect(layer(p, 'EVIDENCE').text).toMatch(/All \d+ items were evicted to fit the budget/);
  });

  it('names the turns sent beside the pack (turnsElsewhere) instead of calling the first pack turn one, and records them', async () => {
    const f = await fixture();
    const p = await buildPacket({ query: 'token signing', template: 'layered-v1', maxTokens: 10_000, conversation: turns(3), keepTurns: 0, turnsElsewhere: 4 }, { sources: f.sources });
    const conv = layer(p, 'CONVERSATION').text;
    expect(conv).toMatch(/Earlier conversation \(3 turns, summarized\)/);
    expect(conv.trimEnd()).toMatch(/- The latest 4 turns are the messages before this pack, verbatim; not repeated here\.$/);
    expect(conv).not.toMatch(/first turn/);
    expect(p.inputs.turns_elsewhere).toBe(4);
    const alone = await buildPacket({ query: 'token signing', template: 'layered-v1', maxTokens: 10_000, turnsElsewhere: 1 }, { sources: f.sources });
    expect(layer(alone, 'CONVERSATION').text).toBe('## CONVERSATION\n- The latest turn is the message before this pack, verbatim; not repeated here.');
    const none = await buildPacket({ query: 'token signing', template: 'layered-v1', maxTokens: 10_000 }, { sources: f.sources });
    expect(none.inputs).not.toHaveProperty('turns_elsewhere');
  });
});
