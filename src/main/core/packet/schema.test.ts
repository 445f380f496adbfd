import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PACKET_FORMATS, type PacketFormat, type PacketRequest } from '../../../shared/packet.ts';
import { addMemory } from '../memory/index.ts';
import { addSection } from '../hierarchy/index.ts';
import { tempDirs } from '../testing/tmp.ts';
import { assemble } from './assemble.ts';
import { packetStore } from './fixtures.testkit.ts';
import { replay } from './replay.ts';

// Every emitted packet, in the json and contextos formats, against the JSON Schemas committed under
// resources/schema/ (validated with zod's JSON Schema reader: no other validator is installed).

const SCHEMA_DIR = new URL('../../../../resources/schema/', import.meta.url);
const load = (name: string) => z.fromJSONSchema(JSON.parse(readFileSync(fileURLToPath(new URL(name, SCHEMA_DIR)), 'utf8')));
const schemas: Record<Exclude<PacketFormat, 'md'>, z.ZodType> = {
  json: load('contextpack-packet.v1.schema.json'),
  contextos: load('contextos-context-pack.v2.schema.json'),
};

const tmp = tempDirs('cp-pack-schema-');
const closers: { close(): void }[] = [];
afterAll(() => {
  for (const c of closers) c.close();
  tmp.cleanup();
});
let clock = Date.parse('2026-04-01T00:00:00Z');
const now = () => new Date((clock += 1000));

function check(format: 'json' | 'contextos', text: string): void {
  const r = schemas[format].safeParse(JSON.parse(text));
  expect(r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
}

const TASK = '## Step\nRotate the signing key.\n\n## Constraints\n- no downtime\n\n## Plan\n1. add the new key\n2. switch\n\n### Acceptance Criteria\n- [ ] cite sources for the rotation period\n';
const TOOLS: PacketRequest['tools'] = [
  { name: 'search', description: 'find passages', input_schema: { type: 'object', properties: { q: { type: 'string' }, k: { type: 'integer' } }, required: ['q'] }, capability_class: 'recall', risk_level: 'read_safe', approval_mode: 'read_only' },
  { name: 'write_file', description: 'write a file', capability_class: 'act', risk_level: 'write_reversible', approval_mode: 'local_write' },
];
const CONVERSATION: PacketRequest['conversation'] = Array.from({ length: 8 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `Turn ${i + 1}. We talked about signing keys.` }));

describe('JSON Schemas for the json and contextos formats', () => {
  it('rejects a document that breaks the schema (the validator is real)', async () => {
    const f = await packetStore(tmp.make());
    closers.push(f.store);
    const a = await assemble({ query: 'signing key' }, { sources: f.sources, now }, 'json');
    const doc = JSON.parse(a.text);
    doc.manifest.context_snapshot_hash = 'nope';
    delete doc.context_pack_v2.routing_hints;
    const r = schemas.json.safeParse(doc);
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.'))).toEqual(expect.arrayContaining(['manifest.context_snapshot_hash', 'context_pack_v2.routing_hints']));
    const c = JSON.parse((await assemble({ query: 'signing key' }, { sources: f.sources, now }, 'contextos')).text);
    c.tooling_layer.tools = [{ name: 'x', purpose: 'y', capability_class: 'fly', risk_level: 'read_safe', approval_mode: 'read_only' }];
    expect(schemas.contextos.safeParse(c).success).toBe(false);
  });

  it('validates every format of both templates, with every source empty and with every source full', async () => {
    const empty = await packetStore(tmp.make(), { files: { 'empty.md': '# Nothing\n\nirrelevant words only\n' } });
    closers.push(empty.store);
    const full = await packetStore(tmp.make(), {
      files: { 'docs/auth.md': '# Auth\n\nSigning keys rotate every 90 days.\n', 'GOALS.md': '## Gates\n- tests: Tests pass (threshold 100%)\n## Directives\n- Keep it small\n' },
      seed: { goals: true, decisions: 3, learnings: 3, issues: 2, states: 2 },
    });
    closers.push(full.store);
    addMemory(full.store.db, { memory_type: 'learning', title: 'Table-driven tests', content: { lesson: 'Write tests as tables.' }, tags: ['pattern'], importance: 6 });
    addMemory(full.store.db, { memory_type: 'learning', title: 'Keys live in the vault', content: { lesson: 'Signing keys are in the vault.' }, tags: ['fact'], importance: 7 });
    addSection(full.store.db, { level: 2, title: 'Signing keys', body: 'Key rotation design.', status_pct: 50 });
    let n = 0;
    for (const f of [empty, full]) {
      for (const template of ['ao-v1', 'layered-v1'] as const) {
        const req: PacketRequest = f === full ? { query: 'signing key rotation', task: TASK, template, tools: TOOLS, conversation: CONVERSATION } : { query: 'quantum chromodynamics', template };
        for (const format of PACKET_FORMATS) {
          const a = await assemble(req, { db: f.store.db, sources: f.sources, now }, format);
          if (format !== 'md') {
            check(format, a.text);
            n++;
          }
          // The stored packet replayed in each format conforms too.
          const r = await replay(f.store.db, a.hash, { format: format === 'md' ? 'json' : format });
          check(format === 'md' ? 'json' : format, r.text!);
        }
      }
    }
    expect(n).toBe(8);
  });
});
