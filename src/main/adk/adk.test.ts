// contextpack/adk with the real @google/adk runtime: a Runner, InMemorySessionService and LlmAgents resolving a
// scripted BaseLlm through ADK's LLMRegistry (it records every LlmRequest it is sent), over a real project store
// (ingest, FTS5, the RE2 gate). Assertions are on what the model was actually sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FunctionTool, InMemoryArtifactService, InMemorySessionService, LlmAgent, LOAD_MEMORY, PRELOAD_MEMORY, Runner, SequentialAgent, type Event } from '@google/adk';
import type { Content } from '@google/genai';
import { z } from 'zod';
import { gateString } from '../core/redact/index.ts';
import { createTokenCounter } from '../core/tokens/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { contextPackCallbacks, ContextPackMemoryService, ContextPackPlugin, METADATA_KEY, openContextPack, STATE_HASH_KEY, type ContextPackProject } from './index.ts';
import type { PackRecord } from './pack-step.ts';
import { call, scriptedModel, text, type RecordedRequest } from './testing/scripted-llm.ts';

// Fake secrets of forms the gate knows (checked below, so a rule change cannot make these tests pass vacuously).
const INDEX_SECRET = 'ghp_Zx81Qw7vLm3Np5Rt9Ks2Hd6Fg4Jc0Bv8Ny1T';
const SESSION_SECRET = 'AKIAQ7RX3ZP5LW2MV9TN';
const TOOL_SECRET = 'xoxb-2847391047-5839201746-Gk7Tq2Wm9Rz4Lx8Pn3Vb6Hc1';

const tmp = tempDirs('cp-adk-');
let cp: ContextPackProject;
let dir: string;

beforeAll(async () => {
  dir = tmp.make();
  writeTree(join(dir, 'proj'), {
    'src/billing.ts': 'export function computeInvoice(items: number[]): number {\n  // invoices are rounded to whole cents, half up\n  return Math.round(items.reduce((a, b) => a + b, 0) * 100) / 100;\n}\n',
    'src/retry.ts': 'export async function withRetry<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {\n  // exponential backoff: 100 ms, 200 ms, 400 ms ...\n  for (let i = 0; ; i++) {\n    try { return await fn(); } catch (e) { if (i + 1 >= attempts) throw e; await new Promise((r) => setTimeout(r, 100 * 2 ** i)); }\n  }\n}\n',
    'src/github.ts': `// the invoice exporter pushes invoices to GitHub\nexport const GITHUB_TOKEN = "${INDEX_SECRET}";\nexport function exportInvoices() { return fetch('https://api.github.com', { headers: { authorization: GITHUB_TOKEN } }); }\n`,
    'docs/invoices.md': '# Invoices\n\nInvoices are computed by computeInvoice and rounded to cents. Exports go to GitHub nightly.\n',
  });
  cp = await openContextPack({ db: join(dir, 'project.db'), create: true });
  await cp.call('library.ingest', { paths: [join(dir, 'proj')] });
  await cp.call('memory.create', { type: 'decision', title: 'Invoices round half up to cents', content: { decision: 'Round invoice totals half up to whole cents', rationale: 'the accounting export expects cents' }, importance: 8 });
}, 60_000);

afterAll(async () => {
  await cp?.close();
  tmp.cleanup();
});

const PACK_HEADER = /^<!-- contextpack schema_version=1 template=layered-v1 pack_id=\S+ context_snapshot_hash=([0-9a-f]{64}) -->\n# CONTEXT PACK\n/;
const texts = (c: Content) => (c.parts ?? []).map((p) => p.text).filter((t): t is string => typeof t === 'string');
const packsOf = (r: RecordedRequest) => r.contents.flatMap(texts).filter((t) => PACK_HEADER.test(t));
const counter = createTokenCounter('o200k_base');
const requestTokens = (r: RecordedRequest, decls: unknown[]) =>
  counter.count(typeof r.systemInstruction === 'string' ? r.systemInstruction : JSON.stringify(r.systemInstruction ?? '')) +
  counter.count(decls.length ? JSON.stringify(decls) : '') +
  r.contents.reduce((s, c) => s + counter.count((c.parts ?? []).map((p) => (typeof p.text === 'string' ? p.text : JSON.stringify(p.functionCall ?? p.functionResponse ?? ''))).join('\n')), 0);

const lookup = new FunctionTool({
  name: 'lookup_invoice',
  description: 'Looks up an invoice by id. Answers its lines and total.',
  parameters: z.object({ id: z.string() }),
  execute: async ({ id }) => ({ id, total: 12.5, note: `exporter token ${TOOL_SECRET}` }),
});
const refund = new FunctionTool({
  name: 'issue_refund',
  description: 'Refunds an invoice.',
  parameters: z.object({ id: z.string() }),
  execute: async () => ({ ok: true }),
});

async function run(runner: Runner, sessionId: string, message: string): Promise<Event[]> {
  const events: Event[] = [];
  for await (const e of runner.runAsync({ userId: 'u1', sessionId, newMessage: { role: 'user', parts: [{ text: message }] } })) events.push(e);
  const errors = events.filter((e) => e.errorCode || e.errorMessage);
  if (errors.length > 0) throw new Error(`ADK run failed: ${errors.map((e) => `${e.errorCode}: ${e.errorMessage}`).join('; ')}`);
  return events;
}

describe('ContextPackPlugin in a real ADK Runner', () => {
  it('sends one gated, budgeted, replayable pack per model call, the last N turns, and only the step tools', async () => {
    for (const s of [INDEX_SECRET, SESSION_SECRET, TOOL_SECRET]) expect(gateString(s).redacted, `the gate must know ${s.slice(0, 6)}…`).toBe(1);
    // Turn 3 calls a tool (a call and its answer are one turn), every other turn answers in text.
    const model = scriptedModel((req, n) => (n === 3 ? call('lookup_invoice', { id: 'INV-7' }) : text(`answer ${n}: see src/billing.ts`)));
    const records: PackRecord[] = [];
    const WINDOW = 6_000;
    const KEEP = 2;
    const agent = new LlmAgent({ name: 'billing', description: 'Answers billing questions.', model: 'scripted-1', instruction: 'You are the billing helper. Be brief.', tools: [lookup, refund] });
    const sessions = new InMemorySessionService();
    const runner = new Runner({ appName: 'billing-app', agent, sessionService: sessions, plugins: [new ContextPackPlugin({ contextpack: cp, window: WINDOW, keepTurns: KEEP, onPack: (r) => records.push(r) })] });
    const plan = { goal: 'Answer billing questions about invoices', step: { id: 'S1', text: 'Explain how invoices are computed', acceptance: ['cite the source file'] } };
    const session = await sessions.createSession({ appName: 'billing-app', userId: 'u1', state: { plan, tools: ['lookup_invoice'] } });
    const asks = [
      `Hi. My AWS key is ${SESSION_SECRET}, keep it safe.`,
      'How are invoices rounded?',
      'Look up invoice INV-7 please.',
      'And how do retries work when the export fails?',
      'Summarize what we said about invoices, in two lines.',
    ];
    const events: Event[] = [];
    for (const a of asks) events.push(...(await run(runner, session.id, a)));

    const reqs = model.requests;
    expect(reqs.length).toBe(6); // five turns, one of them two model calls (the tool call, then the answer)
    expect(records.length).toBe(reqs.length);
    const userOf = [0, 1, 2, 2, 3, 4].map((i) => asks[i]);
    const hashes: string[] = [];
    for (const [i, r] of reqs.entries()) {
      // Exactly one pack per model call, and it carries the user's request verbatim (the session secret excepted).
      const packs = packsOf(r);
      expect(packs.length).toBe(1);
      const pack = packs[0];
      const want = i === 0 ? gateString(userOf[i]).text : userOf[i];
      expect(pack.trimEnd().endsWith(`### User Request (verbatim)\n${want}`)).toBe(true);
      // Step-only tools: the declarations, the callable tools and the pack's TOOLS layer.
      expect(r.declarations).toEqual(['lookup_invoice']);
      expect(r.toolsDict).toEqual(['lookup_invoice']);
      expect(pack).toMatch(/## TOOLS\n- lookup_invoice\(id\): Looks up an invoice by id\.\n\n|## TOOLS\n- lookup_invoice: Looks up an invoice by id\.\n\n/);
      expect(pack).not.toMatch(/issue_refund/);
      // The task from state.plan, with its acceptance checklist closing the pack.
      expect(pack).toMatch(/Goal: Answer billing questions about invoices\nStep S1: Explain how invoices are computed\nAcceptance:\n- \[ \] cite the source file/);
      // The system instruction is the agent's, stable across calls (the cached prefix).
      expect(r.systemInstruction).toBe(reqs[0].systemInstruction);
      // Budget: everything sent fits the window less 003's slack.
      expect(requestTokens(r, [lookup._getDeclaration()])).toBeLessThanOrEqual(WINDOW * 0.9);
      expect(records[i].request_tokens).toBeLessThanOrEqual(WINDOW * 0.9);
      hashes.push(PACK_HEADER.exec(pack)![1]);
    }
    // No secret from the session, the tool answers or the index reaches the model.
    const sent = JSON.stringify(reqs);
    for (const s of [INDEX_SECRET, SESSION_SECRET, TOOL_SECRET]) expect(sent).not.toContain(s);
    // The index's evidence is there, with path#anchor:lines provenance.
    expect(packsOf(reqs[1])[0]).toMatch(/src\/billing\.ts#computeInvoice:1-4/);
    expect(packsOf(reqs[1])[0]).toMatch(/Invoices round half up to cents/); // project memory

    // Only the last KEEP turns stay as messages; older ones are summarized inside the pack, never both.
    const last = reqs[5];
    const before = last.contents.slice(0, last.contents.findIndex((c) => texts(c).some((t) => PACK_HEADER.test(t))));
    // Turns before the fifth ask: 4 user asks, 4 answers, the tool call+answer = 9 turns; the last 2 stay.
    expect(before.map((c) => texts(c).join(' '))).toEqual([asks[3], 'answer 5: see src/billing.ts']);
    const lastPack = packsOf(last)[0];
    expect(lastPack).toMatch(/Earlier conversation \(7 turns, summarized\)/);
    expect(lastPack).toMatch(/- The latest 2 turns are the messages before this pack, verbatim; not repeated here\./);
    expect(lastPack).not.toContain(asks[3]);
    expect(lastPack).toContain('How are invoices rounded?'); // an older turn, in the summary
    expect(records[5]).toMatchObject({ kept_turns: 2, summarized_turns: 7, window: WINDOW });

    // Recorded: each model event carries its pack's hash (customMetadata and stateDelta), and each replays.
    const modelEvents = events.filter((e) => e.author === 'billing' && e.customMetadata?.[METADATA_KEY]);
    expect(modelEvents.map((e) => (e.customMetadata![METADATA_KEY] as PackRecord).context_snapshot_hash)).toEqual(hashes);
    expect(modelEvents.map((e) => e.actions.stateDelta[STATE_HASH_KEY])).toEqual(hashes);
    const stored = await sessions.getSession({ appName: 'billing-app', userId: 'u1', sessionId: session.id });
    expect(stored!.state[STATE_HASH_KEY]).toBe(hashes.at(-1));
    for (const [i, h] of hashes.entries()) {
      const got = await cp.call('packets.get', { hash: h });
      expect(got.text).toBe(packsOf(reqs[i])[0]);
    }
    const replayed = await cp.call('packets.replay', { hash: hashes[5] });
    expect(replayed.identical).toBe(true);
  }, 120_000);

  it('a SequentialAgent of two sub-agents shares one project memory; every model call has its own pack and hash', async () => {
    const model = scriptedModel((req, n) => text(n === 1 ? 'Research: computeInvoice rounds to cents.' : 'Draft: invoices round half up.'));
    const researcher = new LlmAgent({ name: 'researcher', description: 'Finds the facts.', model: 'scripted-1', instruction: 'Research the question.', tools: [lookup] });
    const writer = new LlmAgent({ name: 'writer', description: 'Writes the answer.', model: 'scripted-1', instruction: 'Write the answer.' });
    const pipeline = new SequentialAgent({ name: 'pipeline', subAgents: [researcher, writer] });
    const sessions = new InMemorySessionService();
    const runner = new Runner({ appName: 'seq-app', agent: pipeline, sessionService: sessions, plugins: [new ContextPackPlugin({ contextpack: cp, window: 8_000 })] });
    const s = await sessions.createSession({ appName: 'seq-app', userId: 'u1' });
    const events = await run(runner, s.id, 'How are invoices rounded?');
    expect(model.requests.length).toBe(2);
    const [a, b] = model.requests.map((r) => packsOf(r));
    expect(a.length).toBe(1);
    expect(b.length).toBe(1);
    expect(a[0]).toMatch(/Agent: researcher \(Finds the facts\.\)/);
    expect(b[0]).toMatch(/Agent: writer \(Writes the answer\.\)/);
    // One project memory behind both.
    for (const p of [a[0], b[0]]) expect(p).toMatch(/Invoices round half up to cents/);
    const hashes = events.filter((e) => e.customMetadata?.[METADATA_KEY]).map((e) => (e.customMetadata![METADATA_KEY] as PackRecord).context_snapshot_hash);
    expect(hashes.length).toBe(2);
    expect(new Set(hashes).size).toBe(2);
    expect(hashes).toEqual([PACK_HEADER.exec(a[0])![1], PACK_HEADER.exec(b[0])![1]]);
    // The writer sees the researcher's words after its pack (this turn's progress), not inside it.
    const w = model.requests[1];
    const packAt = w.contents.findIndex((c) => texts(c).some((t) => PACK_HEADER.test(t)));
    expect(w.contents.slice(packAt + 1).flatMap(texts).join(' ')).toMatch(/Research: computeInvoice rounds to cents\./);
  }, 120_000);
});

describe('a tight window', () => {
  it('demotes kept turns to the summary (oldest first) so the request still fits the window less its slack', async () => {
    const long = (n: number) => `Turn ${n}: ${'we compared invoice rounding rules across the exporters at length. '.repeat(40)}`;
    const model = scriptedModel((_req, n) => text(long(100 + n)));
    const records: PackRecord[] = [];
    const WINDOW = 5_000;
    const agent = new LlmAgent({ name: 'tight', model: 'scripted-1', instruction: 'Answer.' });
    const sessions = new InMemorySessionService();
    const runner = new Runner({ appName: 'tight-app', agent, sessionService: sessions, plugins: [new ContextPackPlugin({ contextpack: cp, window: WINDOW, keepTurns: 5, onPack: (r) => records.push(r) })] });
    const s = await sessions.createSession({ appName: 'tight-app', userId: 'u1' });
    for (let i = 0; i < 4; i++) await run(runner, s.id, long(i));
    const last = records.at(-1)!;
    // Six earlier turns (three asks, three answers) of ~650 tokens: five would not leave the pack half the window.
    expect(last.kept_turns).toBeLessThan(5);
    expect(last.kept_turns + last.summarized_turns).toBe(6);
    expect(last.pack_window).toBeGreaterThanOrEqual(WINDOW / 2);
    for (const r of model.requests) expect(requestTokens(r, [])).toBeLessThanOrEqual(WINDOW * 0.9);
    expect(packsOf(model.requests.at(-1)!)[0]).toMatch(new RegExp(`Earlier conversation \\(${last.summarized_turns} turns, summarized\\)`));
  }, 120_000);

  it('refuses a window too small for what must be sent beside the pack, naming the parts', async () => {
    const model = scriptedModel(() => text('ok'));
    const agent = new LlmAgent({ name: 'tiny', model: 'scripted-1', instruction: `Answer. ${'Follow the house style guide closely. '.repeat(60)}` });
    const sessions = new InMemorySessionService();
    const runner = new Runner({ appName: 'tiny-app', agent, sessionService: sessions, plugins: [new ContextPackPlugin({ contextpack: cp, window: 600 })] });
    const s = await sessions.createSession({ appName: 'tiny-app', userId: 'u1' });
    const events: Event[] = [];
    for await (const e of runner.runAsync({ userId: 'u1', sessionId: s.id, newMessage: { role: 'user', parts: [{ text: 'Hi' }] } })) events.push(e);
    expect(events.map((e) => e.errorMessage ?? '').join('\n')).toMatch(/the 600-token window leaves the pack \d+ tokens \(at least 250 needed\): the system instruction, the tool declarations and this turn's messages take \d+ tokens/);
    expect(model.requests.length).toBe(0);
  }, 60_000);
});

describe('artifacts', () => {
  it('lists the session\'s artifacts and state.knowledge.artifacts by reference in TASK, never their content', async () => {
    const model = scriptedModel(() => text('ok'));
    const artifacts = new InMemoryArtifactService();
    const agent = new LlmAgent({ name: 'reporter', model: 'scripted-1', instruction: 'Report.' });
    const sessions = new InMemorySessionService();
    const runner = new Runner({ appName: 'art-app', agent, sessionService: sessions, artifactService: artifacts, plugins: [new ContextPackPlugin({ contextpack: cp, window: 8_000 })] });
    const s = await sessions.createSession({ appName: 'art-app', userId: 'u1', state: { knowledge: { artifacts: ['gs://reports/q3-invoices.pdf'] } } });
    await artifacts.saveArtifact({ appName: 'art-app', userId: 'u1', sessionId: s.id, filename: 'draft.md', artifact: { text: 'DRAFT BODY THAT MUST NOT BE INLINED' } });
    await run(runner, s.id, 'Summarize the invoice report.');
    const pack = packsOf(model.requests[0])[0];
    expect(pack).toMatch(/Artifacts \(by reference; load one with a tool when the step needs its content\):\n- artifact:\/\/art-app\/u1\/[^/\s]+\/draft\.md\n- gs:\/\/reports\/q3-invoices\.pdf/);
    expect(JSON.stringify(model.requests)).not.toContain('DRAFT BODY');
  }, 60_000);
});

describe('contextPackCallbacks (the same step as agent callbacks, where plugins do not run)', () => {
  it('packs every model call and cuts the tools in the before-model step itself', async () => {
    const model = scriptedModel(() => text('ok'));
    const callbacks = contextPackCallbacks({ contextpack: cp, window: 8_000 });
    const agent = new LlmAgent({ name: 'solo', model: 'scripted-1', instruction: 'Answer.', tools: [lookup, refund], beforeModelCallback: callbacks.beforeModelCallback, afterModelCallback: callbacks.afterModelCallback });
    const sessions = new InMemorySessionService();
    const runner = new Runner({ appName: 'cb-app', agent, sessionService: sessions });
    const s = await sessions.createSession({ appName: 'cb-app', userId: 'u1', state: { tools: ['issue_refund'] } });
    const events = await run(runner, s.id, 'Refund invoice INV-9.');
    const r = model.requests[0];
    expect(packsOf(r).length).toBe(1);
    expect(r.declarations).toEqual(['issue_refund']);
    expect(r.toolsDict).toEqual(['issue_refund']);
    const meta = events.find((e) => e.customMetadata?.[METADATA_KEY])?.customMetadata?.[METADATA_KEY] as PackRecord;
    expect(meta.context_snapshot_hash).toBe(PACK_HEADER.exec(packsOf(r)[0])![1]);
    expect(meta.tools).toEqual(['issue_refund']);
  }, 60_000);
});

describe('ContextPackPlugin when it cannot pack', () => {
  it('fails the model call with a clear error and sends nothing unpacked', async () => {
    const model = scriptedModel(() => text('should not be asked'));
    const agent = new LlmAgent({ name: 'lost', model: 'scripted-1', instruction: 'x' });
    const sessions = new InMemorySessionService();
    const plugin = new ContextPackPlugin({ contextpack: { db: join(dir, 'missing', 'nothing.db') }, window: 8_000 });
    const runner = new Runner({ appName: 'lost-app', agent, sessionService: sessions, plugins: [plugin] });
    const s = await sessions.createSession({ appName: 'lost-app', userId: 'u1' });
    // ADK turns the plugin's failure into an error event for the call; the model is never asked.
    const events: Event[] = [];
    for await (const e of runner.runAsync({ userId: 'u1', sessionId: s.id, newMessage: { role: 'user', parts: [{ text: `token ${SESSION_SECRET}` }] } })) events.push(e);
    expect(events.map((e) => e.errorMessage ?? '').join('\n')).toMatch(/no ContextPack database .*nothing\.db: index the project first \(contextpack ingest <folder>\)/);
    expect(events.some((e) => e.content)).toBe(false);
    expect(model.requests.length).toBe(0);
    await plugin.close();
  });
});

describe('ContextPackMemoryService', () => {
  it('adds an ADK session to project memory, finds it with searchMemory, and serves load_memory in a second session', async () => {
    const memory = new ContextPackMemoryService({ contextpack: cp });
    // Session 1: the agent records a decision; the session is added to memory.
    scriptedModel(() => text(`DECISION: Retry invoice exports with exponential backoff because GitHub rate-limits bursts.\nLesson learned: the exporter token ${SESSION_SECRET} must never be logged.`));
    const agent = new LlmAgent({ name: 'ops', model: 'scripted-1', instruction: 'Operate the exporter.' });
    const sessions = new InMemorySessionService();
    const runner = new Runner({ appName: 'ops-app', agent, sessionService: sessions, memoryService: memory });
    const s1 = await sessions.createSession({ appName: 'ops-app', userId: 'u1' });
    await run(runner, s1.id, 'The export keeps failing with 429s; what do we do?');
    const done = await sessions.getSession({ appName: 'ops-app', userId: 'u1', sessionId: s1.id });
    const saved = await memory.addSession(done!);
    const decision = saved.saved.created.find((m) => m.memory_type === 'decision');
    expect(decision?.title).toMatch(/exponential backoff/);
    // Provenance: the decision cites the session and the event it came from (the model's answer, event 2).
    expect(saved.summary.decisions_made[0].source).toBe(`adk:ops-app/${s1.id}:2`);
    expect(done!.events[1].author).toBe('ops');
    expect(saved.event_ids[`adk:ops-app/${s1.id}:2`]).toBe(done!.events[1].id);

    const found = await memory.searchMemory({ appName: 'ops-app', userId: 'u1', query: 'exponential backoff exports' });
    expect(found.memories.length).toBeGreaterThan(0);
    const top = found.memories[0];
    expect(top.content.parts![0].text).toMatch(/Retry invoice exports with exponential backoff/);
    expect(top.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(JSON.stringify(found)).not.toContain(SESSION_SECRET);

    // Session 2: ADK's own load_memory tool, answered from ContextPack memory.
    scriptedModel((req, n) => (n === 1 ? call('load_memory', { query: 'backoff' }) : text('We retry with exponential backoff.')));
    const reader = new LlmAgent({ name: 'reader', model: 'scripted-1', instruction: 'Answer from memory.', tools: [LOAD_MEMORY] });
    const runner2 = new Runner({ appName: 'ops-app', agent: reader, sessionService: sessions, memoryService: memory });
    const s2 = await sessions.createSession({ appName: 'ops-app', userId: 'u1' });
    const events = await run(runner2, s2.id, 'What did we decide about export retries?');
    const answer = events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse?.name === 'load_memory');
    expect(JSON.stringify(answer?.functionResponse?.response)).toMatch(/Retry invoice exports with exponential backoff/);
  }, 120_000);

  it('preload_memory reads ContextPack memory; with the plugin, its block leaves the system instruction and the pack carries the memory once', async () => {
    const memory = new ContextPackMemoryService({ contextpack: cp });
    const alone = scriptedModel(() => text('ok'));
    const agent = new LlmAgent({ name: 'pre', model: 'scripted-1', instruction: 'Answer briefly.', tools: [PRELOAD_MEMORY] });
    const sessions = new InMemorySessionService();
    const plain = new Runner({ appName: 'pre-app', agent, sessionService: sessions, memoryService: memory });
    const s1 = await sessions.createSession({ appName: 'pre-app', userId: 'u1' });
    await run(plain, s1.id, 'How do invoices round?');
    expect(String(alone.requests[0].systemInstruction)).toMatch(/<PAST_CONVERSATIONS>[\s\S]*Invoices round half up to cents[\s\S]*<\/PAST_CONVERSATIONS>/);

    const packed = scriptedModel(() => text('ok'));
    const withPlugin = new Runner({ appName: 'pre-app', agent, sessionService: sessions, memoryService: memory, plugins: [new ContextPackPlugin({ contextpack: cp, window: 8_000 })] });
    const s2 = await sessions.createSession({ appName: 'pre-app', userId: 'u1' });
    await run(withPlugin, s2.id, 'How do invoices round?');
    const r = packed.requests[0];
    expect(String(r.systemInstruction)).not.toMatch(/PAST_CONVERSATIONS/);
    expect(String(r.systemInstruction)).toMatch(/Answer briefly\./);
    expect(packsOf(r)[0]).toMatch(/## MEMORY\n[\s\S]*Invoices round half up to cents/);
  }, 120_000);
});
