import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HANDOFF_TYPES, type HandoffType } from '../../../shared/session.ts';
import { acquireOwnership, getOwnership } from '../hierarchy/index.ts';
import { addMemory, createDecision, getMemory, listDecisions, searchMemories } from '../memory/index.ts';
import { getSnapshot, listPackets } from '../packet/index.ts';
import { openStore } from '../store/index.ts';
import { tempDirs } from '../testing/tmp.ts';
import { countTokens } from '../tokens/index.ts';
import { parseTranscript } from '../transcripts/index.ts';
import { createRng, fakeJwt } from '../redact/fake-secrets.testkit.ts';
import { buildHandoff, createHandoff, decodeHandoff, handoffBudget } from './handoff.ts';
import { renderHandoffMarkdown } from './handoff-render.ts';
import { endSession } from './session-end.ts';
import { generateLongTranscript } from './testing/long-transcript.ts';

const tmp = tempDirs('cp-handoff-');
afterAll(() => tmp.cleanup());
const open = () => openStore(join(tmp.make(), 'h.db'), { loadVec: false });
const fixture = (name: string) => parseTranscript(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'), name);
const NOW = () => new Date('2026-03-01T12:00:00Z');

// One ~60k-token session, generated once: big enough that every type's budget and reduction bind.
const LONG = generateLongTranscript({ tokens: 60_000, seed: 7 });
const longTranscript = () => parseTranscript(LONG.text, 'long.jsonl');

describe('handoff packages', () => {
  it.each(HANDOFF_TYPES)("%s: within 002's budget, with every field of the package", (type) => {
    const b = buildHandoff({ type, transcript: longTranscript(), from: 'impl-1', to: 'impl-2' }, { now: NOW });
    const p = b.package;
    const top = { complete: 25_000, specialist: 10_000, continuation: 40_000, emergency: 15_000 }[type];
    expect(p.budget.max_tokens).toBe(top);
    expect(p.budget.package_tokens).toBeLessThanOrEqual(top);
    expect(countTokens(renderHandoffMarkdown(p, null))).toBe(p.budget.package_tokens);
    expect(p.budget.within_budget).toBe(true);
    expect(Object.keys(p).sort()).toEqual(['agent_expertise_match', 'agent_specific_notes', 'budget', 'compacted_context', 'compaction', 'context_summary', 'handoff_metadata', 'next_actions', 'ownership_transfers', 'schema', 'source', 'work_products']);
    expect(Object.keys(p.handoff_metadata).sort()).toEqual(['context_token_count', 'from_agent_id', 'handoff_type', 'reason', 'timestamp', 'to_agent_id']);
    expect(Object.keys(p.context_summary).sort()).toEqual(['blocking_dependencies', 'critical_decisions', 'current_task_state', 'executive_summary', 'open_issues']);
    expect(Object.keys(p.work_products).sort()).toEqual(['completed', 'in_progress', 'not_started']);
    expect(Object.keys(p.next_actions).sort()).toEqual(['immediate', 'short_term', 'success_criteria']);
    expect(Object.keys(p.agent_specific_notes).sort()).toEqual(['from_agent_observations', 'known_pitfalls', 'suggested_approach', 'useful_resources']);
    expect(p.handoff_metadata).toMatchObject({ from_agent_id: 'impl-1', to_agent_id: 'impl-2', handoff_type: type });
    expect(p.handoff_metadata.context_token_count).toBe(countTokens(p.compacted_context));
    // The structured fields hold what the transcript says.
    expect(p.context_summary.critical_decisions.map((d) => d.title)).toEqual(LONG.expected.decisions);
    expect(p.context_summary.current_task_state.task).toBe(LONG.expected.task);
    expect(p.next_actions.immediate).toEqual(LONG.expected.nextActions);
    expect(p.next_actions.success_criteria).toEqual(LONG.expected.acceptance);
    expect(p.context_summary.blocking_dependencies).toEqual(['staging database is read-only until Thursday']);
    for (const key of LONG.expected.openIssues) expect(p.context_summary.open_issues.some((i) => i.id === key || i.title.includes(key))).toBe(true);
    expect(p.agent_specific_notes.known_pitfalls.length).toBe(LONG.expected.errors.length);
    // 002's reduction target per type, reported.
    expect(p.compaction.reduction_target).toBe(type === 'continuation' ? 0.4 : 0.2);
    expect(p.compaction.reduction_target_met).toBe(true);
    expect(p.compaction.reduction_achieved).toBeGreaterThanOrEqual(p.compaction.reduction_target);
  });

  it('continuation keeps every preserved element (decisions, errors + causes, state, issues, criteria)', () => {
    const p = buildHandoff({ type: 'continuation', transcript: longTranscript() }, { now: NOW }).package;
    expect(p.compaction.preservation_validation).toBe(true);
    for (const d of LONG.expected.decisions) expect(p.compacted_context).toContain(d);
    for (const c of LONG.expected.rootCauses) expect(p.compacted_context).toContain(c);
    for (const a of LONG.expected.acceptance) expect(p.compacted_context).toContain(a);
  });

  it('emergency carries critical state only; specialist is focused and smallest', () => {
    const e = buildHandoff({ type: 'emergency', transcript: longTranscript() }, { now: NOW }).package;
    expect(e.compacted_context).not.toContain('# CONVERSATION');
    expect(e.compacted_context).toContain('# PRESERVED');
    const s = buildHandoff({ type: 'specialist', transcript: longTranscript() }, { now: NOW }).package;
    expect(s.budget.package_tokens).toBeLessThanOrEqual(10_000);
  });

  it('--max-tokens lowers the budget but never raises it', () => {
    expect(handoffBudget('continuation', 100_000)).toBe(40_000);
    expect(handoffBudget('continuation', 8_000)).toBe(8_000);
    const p = buildHandoff({ type: 'continuation', transcript: longTranscript(), maxTokens: 8_000 }, { now: NOW }).package;
    expect(p.budget.max_tokens).toBe(8_000);
    expect(p.budget.package_tokens).toBeLessThanOrEqual(8_000);
  });

  it('is deterministic: one transcript and store, one hash', () => {
    const a = buildHandoff({ type: 'complete', transcript: fixture('decision.claude.jsonl'), from: 'a', to: 'b' }, { now: NOW });
    const b = buildHandoff({ type: 'complete', transcript: fixture('decision.claude.jsonl'), from: 'a', to: 'b' }, { now: () => new Date('2030-01-01T00:00:00Z') });
    expect(a.hash).toBe(b.hash);
    expect(a.package.handoff_metadata.timestamp).toBe('2026-01-12T09:15:25.000Z');
  });

  it('passes the redaction gate: a secret in the transcript never reaches the package', () => {
    const secret = fakeJwt(createRng(1313));
    const text = readFileSync(new URL('./fixtures/failure.chat.md', import.meta.url), 'utf8').replace('Restarting it.', `Restarting it with session_token = ${secret}`);
    const events: { section: string; source: string }[] = [];
    const b = buildHandoff({ type: 'complete', transcript: parseTranscript(text, 'x.md') }, { now: NOW, redactionLog: (e) => events.push(e) });
    expect(new TextDecoder().decode(b.bytes)).not.toContain(secret);
    expect(b.markdown).not.toContain(secret);
    expect(b.package.source.redactions).toBeGreaterThan(0);
    // Redaction applies to what leaves: the event names the transcript whose compacted context held it.
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(e).toMatchObject({ section: 'HANDOFF', source: expect.stringMatching(/^(x\.md \(|handoff)/) });
    expect(events.some((e) => e.source.startsWith('x.md ('))).toBe(true);
    expect(JSON.stringify(events)).not.toContain(secret);
  });
});

describe('stored handoffs', () => {
  it('stores by hash (template handoff-<type>), replays the exact bytes, records the handoff in memory and transfers ownership', () => {
    const store = open();
    const db = store.db;
    acquireOwnership(db, '§2.1', 'impl-1', { now: NOW });
    const r = createHandoff(db, { type: 'continuation', transcript: fixture('midtask.codex.jsonl'), from: 'impl-1', to: 'impl-2' }, { now: NOW });
    expect(r.stored).toBe(true);
    const listed = listPackets(db).find((p) => p.hash === r.hash)!;
    expect(listed.template).toBe('handoff-continuation');
    const snap = getSnapshot(db, r.hash.slice(0, 10));
    expect(decodeHandoff(snap.bytes)).toEqual(r.package);
    expect(renderHandoffMarkdown(decodeHandoff(snap.bytes)!, snap.hash)).toBe(r.text);
    // 002 step 3: the handoff is a memory (the task state it hands over), tagged with the snapshot.
    const rec = getMemory(db, r.recorded_memory_id!, { touch: false })!;
    expect(rec.memory_type).toBe('state');
    expect(rec.tags).toContain(`snapshot-${r.hash.slice(0, 16)}`);
    expect(rec.content).toMatchObject({ task_description: 'Implement user profile API endpoints', completion_percentage: 65, blockers: ['DB migration approval needed from DBA team'] });
    // 002 step 4: ownership moves to the recipient, with the previous owner kept.
    expect(r.package.ownership_transfers).toEqual([expect.objectContaining({ section_id: '§2.1', owner_agent_id: 'impl-2', previous_owner: 'impl-1', ownership_type: 'exclusive' })]);
    expect(getOwnership(db, '§2.1', { now: NOW })).toMatchObject({ owner_agent_id: 'impl-2', previous_owner: 'impl-1' });
    // Storing the same package again keeps the first row.
    expect(createHandoff(db, { type: 'continuation', transcript: fixture('midtask.codex.jsonl'), from: 'impl-2', to: 'impl-2' }, { now: NOW }).hash).not.toBe(r.hash);
    store.close();
  });

  it("agent_expertise_match: the work's languages and tags against what the recipient has shown in this store", () => {
    const store = open();
    const db = store.db;
    // The work: a TypeScript route and a SQL migration (the transcript's files), a stored decision tagged payments.
    createDecision(db, { title: 'Charge in cents', decision: 'Store amounts as integer cents.', rationale: 'No float rounding.', importance: 8, tags: ['payments'], timestamp: '2026-02-01T00:00:00Z' }, { now: NOW });
    // The recipient wrote memories tagged typescript and payments, nothing about SQL.
    addMemory(db, { memory_type: 'learning', title: 'Route handlers', content: { lesson: 'Validate the body first.' }, importance: 5, tags: ['typescript', 'payments'], agent_id: 'ts-agent' }, { now: NOW });
    const known = buildHandoff({ type: 'complete', transcript: fixture('midtask.codex.jsonl'), from: 'impl-1', to: 'ts-agent' }, { db, now: NOW }).package.agent_expertise_match;
    expect(known).toEqual({
      required_skills: ['payments', 'sql', 'typescript'],
      to_agent_capabilities: ['payments', 'typescript'],
      matched_skills: ['payments', 'typescript'],
      skill_match_score: 0.67,
      basis: 'ts-agent: 0 recorded sessions, 1 memory',
    });
    // A recorded session of another agent that modified the same TypeScript and SQL files: its languages count.
    endSession(db, fixture('midtask.codex.jsonl'), { agent: 'db-agent', now: NOW });
    expect(buildHandoff({ type: 'complete', transcript: fixture('midtask.codex.jsonl'), from: 'impl-1', to: 'db-agent' }, { db, now: NOW }).package.agent_expertise_match).toMatchObject({
      to_agent_capabilities: expect.arrayContaining(['sql', 'typescript']),
      matched_skills: expect.arrayContaining(['sql', 'typescript']),
      basis: expect.stringMatching(/^db-agent: 1 recorded session, /),
    });
    // A recipient the store has never seen is unknown, not a poor match; the Markdown says so.
    const fresh = buildHandoff({ type: 'complete', transcript: fixture('midtask.codex.jsonl'), from: 'impl-1', to: 'fresh-agent' }, { db, now: NOW });
    expect(fresh.package.agent_expertise_match).toMatchObject({ skill_match_score: null, to_agent_capabilities: [], basis: 'no recorded sessions or memories of fresh-agent in this project' });
    expect(fresh.markdown).toContain('- skill_match_score: unknown — no recorded sessions or memories of fresh-agent in this project');
    store.close();
  });

  it('--save saves decisions, issues and lessons once, deduplicated against the store', () => {
    const store = open();
    const db = store.db;
    createDecision(db, { title: 'Use BullMQ on the existing Redis for background jobs', decision: 'Use BullMQ.', rationale: 'Redis is there.', importance: 8 }, { now: NOW });
    const r1 = createHandoff(db, { type: 'complete', transcript: fixture('decision.claude.jsonl') }, { now: NOW, save: true });
    expect(r1.saved!.duplicates.map((d) => d.memory_type)).toEqual(['decision']);
    expect(r1.saved!.created.map((c) => c.memory_type)).toEqual(['issue']);
    const r2 = createHandoff(db, { type: 'complete', transcript: fixture('decision.claude.jsonl') }, { now: NOW, save: true });
    expect(r2.saved!.created).toEqual([]);
    expect(listDecisions(db, {}).length).toBe(1);
    expect(searchMemories(db, { types: ['issue'] }).map((h) => h.memory.title)).toEqual(['TODO: document the REDIS_URL variable in README']);
    // The stored decision (importance ≥ 7) is one of the package's critical decisions, once.
    expect(r2.package.context_summary.critical_decisions.filter((d) => d.title.startsWith('Use BullMQ'))).toHaveLength(1);
    store.close();
  });

  it('without a transcript, the package comes from the store (state, decisions, issues)', () => {
    const store = open();
    createDecision(store.db, { title: 'Adopt PostgreSQL', decision: 'Use PostgreSQL for orders.', rationale: 'ACID for payments.', importance: 9 }, { now: NOW });
    const r = createHandoff(store.db, { type: 'emergency', from: 'a', to: 'b', reason: 'agent crashed' }, { now: NOW });
    expect(r.package.context_summary.critical_decisions.map((d) => d.id)).toEqual(['DEC-2026-03-01-001']);
    expect(r.package.compacted_context).toContain('Adopt PostgreSQL');
    expect(r.package.handoff_metadata.reason).toBe('agent crashed');
    store.close();
  });
});

describe('types', () => {
  it('every type has a budget', () => {
    for (const t of HANDOFF_TYPES as readonly HandoffType[]) expect(handoffBudget(t)).toBeGreaterThan(0);
  });
});
