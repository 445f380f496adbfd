import { afterAll, describe, expect, it } from 'vitest';
import { addMemory } from '../memory/index.ts';
import { tempDirs } from '../testing/tmp.ts';
import { assemble, buildPacket } from './assemble.ts';
import { packetStore } from './fixtures.testkit.ts';
import { replay } from './replay.ts';

// Issue #17 item 8: provenance ids are not part of what the gate judges; reassembly reproduces a packet whose
// task lost a line to the gate.

const tmp = tempDirs('cp-pack-fixes-');
const closers: { close(): void }[] = [];
afterAll(() => {
  for (const c of closers) c.close();
  tmp.cleanup();
});
let clock = Date.parse('2026-03-01T00:00:00Z');
const now = () => new Date((clock += 1000));

describe('provenance outside the gate', () => {
  it('keeps a state titled "Auth work" (a memory UUID beside the word auth is not a secret)', async () => {
    const f = await packetStore(tmp.make());
    closers.push(f.store);
    // Real random UUIDs, as the memory module allocates them.
    // The old head, `[day] Auth work — Task: Auth work (memory <uuid>)`, tripped the high-entropy rule.
    const s = addMemory(f.store.db, { memory_type: 'state', title: 'Auth work', content: { task_description: 'Auth work', completion_percentage: 40 }, importance: 5 });
    const d = addMemory(f.store.db, { memory_type: 'state', title: 'Auth token refresh', content: { task_description: 'Auth', completion_percentage: 10 }, importance: 5 });
    for (const template of ['ao-v1', 'layered-v1'] as const) {
      const p = await buildPacket({ query: 'auth', template }, { sources: f.sources });
      const text = p.sections.map((x) => x.text).join('\n');
      expect(text).toMatch(new RegExp(`Auth work.*\\(.*memory ${s.memory_id}`));
      expect(text).toContain(`Auth token refresh`);
      expect(text).toContain(d.memory_id);
      expect(p.redactions.count).toBe(0);
    }
  });
});

describe('replay --reassemble with a redacted task', () => {
  it('reproduces the stored hash on an unchanged store', async () => {
    const f = await packetStore(tmp.make());
    closers.push(f.store);
    const task = 'Rotate the signing key.\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n- [ ] old key revoked';
    for (const template of ['ao-v1', 'layered-v1'] as const) {
      const a = await assemble({ query: 'signing key rotation', task, template, conversation: [{ role: 'user', text: 'token = ghp_abcdefghijklmnopqrstuvwxyz0123456789' }] }, { db: f.store.db, sources: f.sources, now });
      expect(a.packet.redactions.count).toBeGreaterThanOrEqual(1);
      expect(a.packet.inputs.task).toMatch(/\[REDACTED: [a-z_]+\]/);
      const r = await replay(f.store.db, a.hash, { reassemble: true }, { sources: f.sources });
      expect(r.diff).toMatchObject({ identical: true, reassembled_hash: a.hash, notes: [] });
    }
  });

  it('also when tool definitions lost keys, leaves or a name/purpose pair to the gate', async () => {
    const f = await packetStore(tmp.make());
    closers.push(f.store);
    const tools = [
      { name: 'deploy', description: 'Deploy it', input_schema: { type: 'object', properties: { token: { type: 'string', default: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' }, key: { type: 'string', default: 'ghp_zyxwvutsrqponmlkjihgfedcba9876543210' } } } },
      { name: 'api_key', description: 'sk_live_51Habcdefghijklmnopqrstuvwx' },
    ];
    const a = await assemble({ query: 'deploy', template: 'layered-v1', tools }, { db: f.store.db, sources: f.sources, now });
    expect(a.packet.redactions.count).toBeGreaterThanOrEqual(3);
    const r = await replay(f.store.db, a.hash, { reassemble: true }, { sources: f.sources });
    expect(r.diff).toMatchObject({ identical: true, reassembled_hash: a.hash });
  });
});
