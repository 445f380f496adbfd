import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testing/tmp.ts';
import { assemble } from './assemble.ts';
import { packetStore } from './fixtures.testkit.ts';
import { renderPacket } from './render.ts';

const tmp = tempDirs('cp-pack-fmt-');
const closers: { close(): void }[] = [];
afterAll(() => {
  for (const s of closers) s.close();
  tmp.cleanup();
});

describe('packet formats', async () => {
  const f = await packetStore(tmp.make(), { seed: { goals: true, decisions: 2, learnings: 1, issues: 1, states: 1 } });
  closers.push(f.store);
  const task = 'Rotate the signing key.\n- [ ] no downtime\n- [x] keys versioned';
  const tools = [{ name: 'file_read', purpose: 'read a file', capability_class: 'observe' as const, risk_level: 'read_safe' as const, approval_mode: 'read_only' as const }];
  const ao = await assemble({ query: 'token signing', task, tools }, { db: f.store.db, sources: f.sources }, 'md');
  const layered = await assemble({ query: 'token signing', task, template: 'layered-v1', tools }, { db: f.store.db, sources: f.sources }, 'md');

  it('markdown: stable headers in order, with the hash in a leading comment', () => {
    expect(ao.text.split('\n')[0]).toBe(`<!-- contextpack schema_version=1 template=ao-v1 pack_id=pack_${ao.hash.slice(0, 16)} context_snapshot_hash=${ao.hash} -->`);
    expect(ao.text.match(/^## .+$/gm)).toEqual(['## GOALS', '## HISTORY', '## INTEL', '## TASK', '## PROTOCOL']);
    expect(layered.text.match(/^## .+$/gm)).toEqual(['## SYSTEM', '## TASK', '## TOOLS', '## EVIDENCE', '## MEMORY', '## CONVERSATION', '## REQUEST']);
  });

  it('json: schema_version 1, sections with their items, and the manifest with its context_snapshot_hash', () => {
    const doc = JSON.parse(renderPacket(ao.packet, ao.hash, 'json'));
    expect(doc).toMatchObject({ schema_version: 1, kind: 'contextpack.packet', template: 'ao-v1', context_snapshot_hash: ao.hash, pack_id: `pack_${ao.hash.slice(0, 16)}` });
    expect(doc.sections.map((s: { name: string }) => s.name)).toEqual(['GOALS', 'HISTORY', 'INTEL', 'TASK', 'PROTOCOL']);
    expect(doc.text).toBe(ao.text.slice(ao.text.indexOf('\n') + 1));
    const m = doc.manifest;
    expect(m.context_snapshot_hash).toBe(ao.hash);
    expect(Object.keys(m).sort()).toEqual(
      [
        'schema_version', 'pack_id', 'template', 'query', 'task', 'budgets', 'included', 'dropped', 'truncation_events', 'redactions', 'retrieval', 'models',
        'engine_version', 'evidence_ids', 'memory_block_ids', 'dropped_ids', 'policy_rules', 'tool_capabilities', 'budget_warnings', 'degradations', 'cited_sources', 'context_snapshot_hash',
        'validity', 'evidence_needed',
      ].sort(),
    );
    expect(m.budgets.sections[0]).toEqual(expect.objectContaining({ name: 'GOALS', min: 200, target: 2000, max: 3000, unit: 'chars' }));
    expect(m.retrieval).toMatchObject({ mode: 'bm25', k: 35 }); // default k fills a 7,000-token budget: 7000 / 200
    expect(m.models).toMatchObject({ tokenizer: 'o200k_base', retriever: 'bm25' });
    expect(m.engine_version).toMatch(/^contextpack-packet\//);
    expect(m.evidence_ids.length).toBeGreaterThan(0);
    expect(m.memory_block_ids).toEqual(expect.arrayContaining(['goal:L1']));
    expect(m.included[0]).toEqual(expect.objectContaining({ id: expect.any(String), section: 'GOALS', source: 'hierarchy §1.0', digest: expect.stringMatching(/^[0-9a-f]{16}$/) }));
    expect(m.policy_rules).toContain('private_key_block');
  });

  it('contextos: the ten layers of 001 plus the context ledger, from the same packet', () => {
    const doc = JSON.parse(renderPacket(ao.packet, ao.hash, 'contextos'));
    expect(Object.keys(doc)).toEqual([
      'contract_meta', 'pack_meta', 'intelligence_refs', 'business_context', 'policy_layer', 'tooling_layer', 'decision_layer', 'memory_layer', 'evaluation_layer', 'tone_and_comms', 'context_ledger',
    ]);
    expect(doc.contract_meta).toMatchObject({ contract: 'contextos-context-pack', schema_version: 1 });
    expect(doc.pack_meta).toMatchObject({ content_hash: `sha256:${ao.hash}`, ref: `pack_${ao.hash.slice(0, 16)}@${ao.hash.slice(0, 12)}` });
    expect(doc.tooling_layer.tools).toEqual([{ name: 'file_read', purpose: 'read a file', capability_class: 'observe', risk_level: 'read_safe', approval_mode: 'read_only' }]);
    expect(doc.evaluation_layer.success_criteria).toEqual(['no downtime', 'keys versioned']);
    expect(doc.decision_layer.decisions.length).toBeGreaterThan(0);
    expect(doc.memory_layer.blocks.map((b: { kind: string }) => b.kind)).toContain('goal');
    expect(doc.context_ledger).toMatchObject({ context_snapshot_hash: ao.hash, evidence_ids: ao.manifest.evidence_ids, dropped_block_ids: ao.manifest.dropped_ids });
    expect(doc.business_context.payload).toContain('## INTEL');
  });

  it('layered-v1 manifests record the window, floors, allocation and the reserved slack', () => {
    const m = layered.manifest;
    expect(m.budgets).toMatchObject({ unit: 'tokens', window: 7000, profile: 'research' });
    const slack = m.budgets.sections.find((s) => s.name === 'SLACK')!;
    expect(slack).toMatchObject({ reserved: true, target: 700, chars: 0 });
    expect(JSON.parse(renderPacket(layered.packet, layered.hash, 'json')).sections.map((s: { name: string }) => s.name)).not.toContain('SLACK');
  });
});
