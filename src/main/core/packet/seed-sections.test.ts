import { afterAll, describe, expect, it } from 'vitest';
import type { CanonicalPacket } from '../../../shared/packet.ts';
import { addSection, checkLevelLimits, setExecutiveSummary } from '../hierarchy/index.ts';
import { addMemory } from '../memory/index.ts';
import { tempDirs } from '../testing/tmp.ts';
import { buildPacket } from './assemble.ts';
import { packetStore } from './fixtures.testkit.ts';
import { InputFileError, parseConversationFile, parseToolsFile } from './input-files.ts';
import { manifestOf, packetText } from './render.ts';
import { freshnessOf } from './store-sources.ts';

// Issue #17 items 4–7: INTEL (freshness, patterns, L2/L3), tools and conversation, 003's rules, ContextPackV2.

const tmp = tempDirs('cp-pack-seeds-');
const closers: { close(): void }[] = [];
afterAll(() => {
  for (const c of closers) c.close();
  tmp.cleanup();
});
async function fixture(files?: Record<string, string>) {
  const f = await packetStore(tmp.make(), { files });
  closers.push(f.store);
  return f;
}
const sec = (p: CanonicalPacket, name: string) => p.sections.find((s) => s.name === name)!.text;
const DAY = 86_400_000;
const T0 = Date.parse('2026-06-01T00:00:00Z');
const at = (days: number) => ({ now: () => new Date(T0 - days * DAY) });

describe('INTEL: freshness-weighted learnings and patterns (000)', () => {
  it('decays 0.17 per week', () => {
    const now = new Date(T0);
    expect(freshnessOf(new Date(T0).toISOString(), now)).toBe(1);
    expect(freshnessOf(new Date(T0 - 7 * DAY).toISOString(), now)).toBeCloseTo(Math.exp(-0.17), 10);
    expect(freshnessOf(new Date(T0 - 70 * DAY).toISOString(), now)).toBeCloseTo(Math.exp(-1.7), 10);
    expect(freshnessOf(new Date(T0 + DAY).toISOString(), now)).toBe(1);
  });

  it('ranks learnings by freshness × utility (at most 10, freshness shown) and patterns apart (at most 5)', async () => {
    const f = await fixture();
    // Same text match and importance: only age differs, so the order is newest first. One old but vital one.
    for (let i = 0; i < 14; i++)
      addMemory(f.store.db, { memory_type: 'learning', title: `Retry lesson ${i}`, content: { lesson: `Retry with backoff, case ${i}.` }, importance: 5, timestamp: new Date(T0 - i * 7 * DAY).toISOString() }, at(i * 7));
    for (let i = 0; i < 7; i++)
      addMemory(f.store.db, { memory_type: 'learning', title: `retry-pattern-${i}`, content: { lesson: `Always retry idempotent calls ${i}.` }, tags: ['pattern'], importance: 5, timestamp: new Date(T0 - i * DAY).toISOString() }, at(i));
    const p = await buildPacket({ query: 'retry', k: 0 }, { sources: f.sources });
    const intel = sec(p, 'INTEL');
    const learnings = intel.slice(intel.indexOf('### Relevant Learnings (freshness-weighted, task-filtered)'), intel.indexOf('### Active Patterns'));
    const shown = [...learnings.matchAll(/Retry lesson (\d+) \(.*?, (\d\.\d\d) freshness · score/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(shown.map((x) => x[0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(shown[0][1]).toBe(1);
    expect(shown[1][1]).toBeCloseTo(Math.exp(-0.17), 2);
    const patterns = intel.slice(intel.indexOf('### Active Patterns'));
    expect(patterns.match(/^- \*\*retry-pattern-\d\*\*: Always retry/gm)).toHaveLength(5);
    expect(learnings).not.toMatch(/retry-pattern/);
    // Scores are freshness × utility: decreasing with age here (same match, importance and access).
    const scores = p.included.filter((i) => i.kind === 'learning' && i.section === 'INTEL').map((i) => i.score!);
    expect(scores).toHaveLength(15);
    const lessonScores = scores.slice(0, 10);
    expect([...lessonScores].sort((a, b) => b - a)).toEqual(lessonScores);
  });

  it('has no learning or pattern sub-sections when there are none', async () => {
    const f = await fixture();
    const intel = sec(await buildPacket({ query: 'retry' }, { sources: f.sources }), 'INTEL');
    expect(intel).not.toMatch(/Relevant Learnings|Active Patterns/);
  });
});

describe('L2/L3 hierarchy sections as evidence', () => {
  it('selects sections by relevance, with their § markers, in both templates', async () => {
    const f = await fixture();
    setExecutiveSummary(f.store.db, { goal: 'Ship', status_pct: 10 });
    addSection(f.store.db, { level: 2, title: 'Token signing', body: 'Signing keys rotate every 90 days; the old key stays valid for a day.' });
    addSection(f.store.db, { level: 2, title: 'Billing', body: 'Invoices are monthly.' });
    addSection(f.store.db, { level: 3, parent: '§2.1', title: 'Rotation details', body: 'The rotation job runs weekly and rotates signing keys.' });
    const p = await buildPacket({ query: 'signing key rotation' }, { sources: f.sources });
    const intel = sec(p, 'INTEL');
    expect(intel).toMatch(/### Project Hierarchy \(L2\/L3, by relevance\)\n- \[H1\] §(2\.1|3\.1) /);
    expect(intel).toContain('§3.1 Rotation details (L3 · score');
    expect(intel).not.toContain('Billing');
    expect(p.included.filter((i) => i.id.startsWith('hierarchy §')).map((i) => i.id).sort()).toEqual(['hierarchy §2.1', 'hierarchy §3.1']);
    const layered = await buildPacket({ query: 'signing key rotation', template: 'layered-v1' }, { sources: f.sources });
    expect(sec(layered, 'EVIDENCE')).toMatch(/\[H\d\] §2\.1 Token signing \(L2 · score/);
    // Nothing relevant: no hierarchy evidence.
    const none = await buildPacket({ query: 'quantum chromodynamics' }, { sources: f.sources });
    expect(none.included.some((i) => i.id.startsWith('hierarchy §'))).toBe(false);
  });

  it('reports the per-level token limits (L1 ≤ 1K, L2 200–500, L3 1K–3K)', async () => {
    const f = await fixture();
    setExecutiveSummary(f.store.db, { goal: 'word '.repeat(1_200), status_pct: 10 });
    addSection(f.store.db, { level: 2, title: 'Too long', body: 'alpha beta gamma '.repeat(300) });
    addSection(f.store.db, { level: 2, title: 'Just right', body: 'alpha beta gamma delta '.repeat(80) });
    addSection(f.store.db, { level: 3, parent: '§2.2', title: 'Short detail', body: 'tiny' });
    const limits = checkLevelLimits(f.store.db);
    expect(limits.map((l) => [l.marker, l.severity])).toEqual([['§1.0', 'over'], ['§2.1', 'over'], ['§3.2', 'under']]);
    expect(limits[1].message).toMatch(/^L2 §2\.1 is \d+ tokens, over the 500-token limit for level 2/);
  });
});

describe('tools and conversation in layered-v1', () => {
  it('fills TOOLS from the manifest (typed signature, capability, risk, approval) and ages older turns into a summary', async () => {
    const f = await fixture();
    const tools = parseToolsFile(
      JSON.stringify([{ name: 'search_web', description: 'Search the web', input_schema: { type: 'object', properties: { query: { type: 'string' }, max_results: { type: 'integer' } }, required: ['query'] }, capability_class: 'recall', risk_level: 'read_safe', approval_mode: 'network' }]),
      'tools.json',
    );
    const conversation = parseConversationFile(
      Array.from({ length: 7 }, (_, i) => JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: `Turn ${i + 1} says this. And more after.`, ts: `2026-05-0${i + 1}T10:00:00Z` })).join('\n') + '\n\n',
      'conv.jsonl',
    );
    const p = await buildPacket({ query: 'token', template: 'layered-v1', tools, conversation, keepTurns: 3 }, { sources: f.sources });
    expect(sec(p, 'TOOLS')).toBe('## TOOLS\n- search_web(query: string, max_results?: integer): Search the web (recall, read_safe, network)');
    const conv = sec(p, 'CONVERSATION');
    expect(conv).toMatch(/^## CONVERSATION\n- Earlier conversation \(4 turns, summarized\):\n  - user \(2026-05-01T10:00:00Z\): Turn 1 says this\.\n  - assistant \(2026-05-02T10:00:00Z\): Turn 2 says this\./);
    expect(conv).toMatch(/- user \(2026-05-05T10:00:00Z\):\n  Turn 5 says this\. And more after\./);
    expect(conv).not.toMatch(/Turn 1 says this\. And more/);
    expect(p.included.filter((i) => i.section === 'CONVERSATION').map((i) => i.id)).toEqual(['conversation:summary', 'turn:5', 'turn:6', 'turn:7']);
    expect(manifestOf(p, 'a'.repeat(64)).tool_capabilities[0]).toMatchObject({ name: 'search_web', purpose: 'Search the web', approval_mode: 'network', input_schema: { required: ['query'] } });
    // Empty: 003's notes.
    const bare = await buildPacket({ query: 'token', template: 'layered-v1' }, { sources: f.sources });
    expect(sec(bare, 'TOOLS')).toBe('## TOOLS\nNo tools in scope for this step.');
    expect(sec(bare, 'CONVERSATION')).toBe('## CONVERSATION\nNo prior turns (first turn).');
  });

  it('gates every key and string of an input schema', async () => {
    const f = await fixture();
    const p = await buildPacket(
      { query: 'token', template: 'layered-v1', tools: [{ name: 'deploy', description: 'Deploy', input_schema: { type: 'object', properties: { token: { type: 'string', default: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' } } } }] },
      { sources: f.sources },
    );
    expect(JSON.stringify(p)).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(p.inputs.tools[0].input_schema).toMatchObject({ properties: { token: { default: expect.stringMatching(/^\[REDACTED: /) } } });
  });

  it('names the file, the entry or line, and the field for bad tools and conversation files', () => {
    const bad = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        expect(err).toBeInstanceOf(InputFileError);
        return (err as Error).message;
      }
      throw new Error('expected an error');
    };
    expect(bad(() => parseToolsFile('{oops', 't.json'))).toMatch(/^t\.json: json: not valid JSON/);
    expect(bad(() => parseToolsFile('[{"name":"a","description":"x","risk_level":"yolo"}]', 't.json'))).toBe('t.json: [0]: risk_level: must be one of read_safe, read_sensitive, write_reversible, write_external, write_irreversible');
    expect(bad(() => parseToolsFile('[{"name":"a"}]', 't.json'))).toBe('t.json: [0]: description: must be a string');
    expect(bad(() => parseToolsFile('[{"name":"a","description":"x","input_schema":[1]}]', 't.json'))).toBe('t.json: [0]: input_schema: must be a JSON Schema object');
    expect(bad(() => parseToolsFile('[{"name":"a","description":"x","colour":"red"}]', 't.json'))).toMatch(/^t\.json: \[0\]: colour: unknown field/);
    expect(bad(() => parseConversationFile('{"role":"user","content":"hi"}\n{"role":"system","content":"x"}\n', 'c.jsonl'))).toBe('c.jsonl:2: role: must be "user" or "assistant"');
    expect(bad(() => parseConversationFile('{"role":"user"}\n', 'c.jsonl'))).toBe('c.jsonl:1: content: must be a string');
    expect(bad(() => parseConversationFile('{"role":"user","content":"x","ts":"yesterday"}\n', 'c.jsonl'))).toBe('c.jsonl:1: ts: must be an ISO 8601 timestamp');
  });
});

describe("003's rules: compress before drop, validity, the end of the payload", () => {
  it('compresses an item to its provenance line and key sentences, marked in the manifest', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`d${i}.md`] = `# Doc ${i}\n\n` + Array.from({ length: 10 }, (_, j) => `Filler sentence ${j} of document ${i} about nothing.`).join(' ') + ` Signing keys rotate in doc ${i}.\n`;
    const f = await fixture(files);
    const p = await buildPacket({ query: 'signing keys rotate', k: 30, template: 'layered-v1', maxTokens: 3_000 }, { sources: f.sources });
    const ev = p.truncation_events.find((e) => e.action === 'compress' && e.section === 'EVIDENCE')!;
    expect(ev.compressed_ids!.length).toBeGreaterThan(0);
    const compressed = p.included.filter((i) => i.compressed);
    expect(compressed.length).toBeGreaterThan(0);
    const text = sec(p, 'EVIDENCE');
    // The kept sentence is the one sharing the query's terms, under the item's own provenance line.
    expect(text).toMatch(/- \[E\d+\] [^\s/]\S*\.md#doc-\d+:1-3 · score [\d.]+\n  \(compressed: 2 of 12 sentences\)\n  • # Doc \d+\n  • Signing keys rotate in doc \d+\./);
  });

  it('marks the pack invalid without a step or acceptance criteria, and asks for evidence the checklist needs', async () => {
    const f = await fixture();
    const v = async (task: string | undefined, query = 'signing key', tools?: { name: string; description: string }[]) => manifestOf(await buildPacket({ query, task, tools }, { sources: f.sources }), 'a'.repeat(64));
    // A query alone stands as the task (issue #23): what is missing is acceptance criteria; with neither, the step.
    const noTask = await v(undefined);
    expect(noTask.validity).toEqual({ valid: false, reasons: [expect.stringMatching(/^acceptance: no task was given, only a query/)] });
    expect((await v(undefined, '')).validity).toEqual({ valid: false, reasons: [expect.stringMatching(/^step: no task given/)] });
    expect((await v('Rotate the key.')).validity).toEqual({ valid: false, reasons: [expect.stringMatching(/^acceptance: the task has no acceptance criteria/)] });
    expect((await v('Rotate the key.\n\nAcceptance:\n- old key revoked\n')).validity).toEqual({ valid: true, reasons: [] });
    const proof = 'Rotate the key.\n- [ ] cite sources for the 90-day period';
    expect((await v(proof)).evidence_needed).toBe(false);
    // The task feeds retrieval too (#32): a task and query about nothing indexed find no evidence the checklist needs.
    expect((await v('Calibrate the gluon detector.\n- [ ] cite references for the quark flux', 'quantum chromodynamics')).evidence_needed).toBe(true);
    expect((await v('Rotate.\n- [ ] done', 'quantum chromodynamics')).evidence_needed).toBe(false);
    expect((await v('Calibrate.\n- [ ] done', 'quantum chromodynamics', [{ name: 'grep', description: 'search' }])).evidence_needed).toBe(true);
  });

  it('ends the layered payload with acceptance, the top evidence and the user request', async () => {
    const f = await fixture();
    const p = await buildPacket({ query: 'signing key', template: 'layered-v1', task: 'Rotate.\n- [ ] old key revoked\n- [ ] no downtime' }, { sources: f.sources });
    const text = packetText(p);
    const tail = text.slice(text.lastIndexOf('## REQUEST'));
    expect(tail).toMatch(/^## REQUEST\n### Acceptance\n- \[ \] old key revoked\n- \[ \] no downtime\n\n### Top Evidence\n- \[E1\] .*auth\.md#tokens:\d+-\d+ · score 1\.000\n/);
    expect(tail).toMatch(/### User Request \(verbatim\)\nsigning key\n$/);
    expect(text.indexOf('## REQUEST')).toBeGreaterThan(text.indexOf('## CONVERSATION'));
  });
});

describe('ContextPackV2 fields (001)', () => {
  it('fills constraints, preferences, durable facts, plan and routing hints from named sources', async () => {
    const f = await fixture();
    addMemory(f.store.db, { memory_type: 'learning', title: 'Never rotate on Fridays', content: { lesson: 'Freeze on Fridays.' }, tags: ['constraint'], importance: 8 });
    addMemory(f.store.db, { memory_type: 'learning', title: 'Concise answers', content: { lesson: 'The user prefers short output.' }, tags: ['preference'], importance: 6 });
    addMemory(f.store.db, { memory_type: 'learning', title: 'Keys live in the vault', content: { lesson: 'All signing keys are in Vault.' }, tags: ['fact'], importance: 7 });
    addSection(f.store.db, { level: 2, title: 'Signing keys', body: 'Key rotation design.' });
    const task = 'Rotate the key.\n\n## Constraints\n- no downtime\n\n## Plan\n1. add the new key\n2. switch readers\n\n- [ ] done';
    const p = await buildPacket({ query: 'signing key rotation', task }, { sources: f.sources });
    const v2 = p.context_v2!;
    expect(v2.constraints.items).toEqual([{ text: 'no downtime', source: 'task §Constraints' }, { text: 'Never rotate on Fridays — Lesson: Freeze on Fridays.', source: expect.stringMatching(/^memory /) }]);
    expect(v2.preferences.items.map((i) => i.text)).toEqual(['Concise answers — Lesson: The user prefers short output.']);
    expect(v2.durable_facts).toMatchObject({ source: 'memories tagged fact', empty: null, items: [{ text: 'Keys live in the vault — Lesson: All signing keys are in Vault.' }] });
    expect(v2.suggested_plan).toEqual({ source: 'task file section "Plan"', items: [{ text: 'add the new key', source: 'task §Plan' }, { text: 'switch readers', source: 'task §Plan' }], empty: null });
    expect(v2.routing_hints.items).toEqual(expect.arrayContaining([{ text: 'see §2.1 Signing keys', source: 'hierarchy §2.1' }, { text: expect.stringMatching(/^read docs\/auth\.md$/), source: 'retrieval' }, { text: 'template ao-v1, retriever bm25', source: 'request' }]));
  });

  it('passes every field through the gate', async () => {
    const f = await fixture();
    const secret = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    addMemory(f.store.db, { memory_type: 'learning', title: 'Deploy token', content: { lesson: `token = ${secret}` }, tags: ['fact', 'constraint'], importance: 9 });
    const p = await buildPacket({ query: 'deploy token', task: `Deploy.\n\n## Constraints\n- use ${secret}\n\n## Plan\n- push ${secret}\n- [ ] done` }, { sources: f.sources });
    expect(JSON.stringify(p)).not.toContain(secret);
    expect(p.context_v2!.constraints.items.map((i) => i.text)).toEqual([expect.stringMatching(/^\[REDACTED: /), expect.stringMatching(/^\[REDACTED: /)]);
    expect(p.context_v2!.suggested_plan.items.map((i) => i.text)).toEqual([expect.stringMatching(/^\[REDACTED: /)]);
  });

  it('says explicitly why each field is empty', async () => {
    const f = await fixture();
    const v2 = (await buildPacket({ query: 'quantum chromodynamics' }, { sources: f.sources })).context_v2!;
    for (const k of ['constraints', 'preferences', 'durable_facts', 'suggested_plan'] as const) {
      expect(v2[k].items).toEqual([]);
      expect(v2[k].empty).toMatch(/^no /);
    }
    expect(v2.routing_hints.items).toEqual([{ text: 'template ao-v1, retriever bm25', source: 'request' }]);
  });
});
