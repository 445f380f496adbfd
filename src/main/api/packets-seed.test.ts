import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../core/store/index.ts';
import { tempDirs } from '../core/testing/tmp.ts';
import { createApi, type Api } from './index.ts';

// Issue #17: packets.build takes the same fields as `pack` — format, profile, session, tools and conversation.

const tmp = tempDirs('cp-api-seed-');
let store: Store;
let api: Api;
const b64 = (s: string) => Buffer.from(s).toString('base64');

beforeAll(async () => {
  const dataDir = tmp.make();
  store = openStore(join(dataDir, 'api.db'));
  api = createApi({ store, dataDir, version: '0.0.0-test', transport: 'http', background: false });
  const r = await api.dispatch('library.import', { files: [{ path: 'svc/auth.md', base64: b64('# Auth\n\nThe pelican gateway signs session tokens.\n') }] });
  expect(r.ok).toBe(true);
});
afterAll(() => {
  store.close();
  tmp.cleanup();
});

describe('packets.build with format, profile, session, tools and conversation', () => {
  it('renders the requested format and fills TOOLS and CONVERSATION', async () => {
    const r = await api.dispatch('packets.build', {
      query: 'pelican gateway',
      template: 'layered-v1',
      format: 'contextos',
      profile: 'docs',
      sessionId: 'ses-42',
      tools: [{ name: 'grep', description: 'Search files', input_schema: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] }, capability_class: 'observe', risk_level: 'read_safe', approval_mode: 'read_only' }],
      conversation: [{ role: 'user', content: 'Where is the gateway?' }, { role: 'assistant', text: 'In svc/.' }],
      keepTurns: 1,
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const v = r.value as { format: string; text: string; packet: { sections: { name: string; text: string }[]; budgets: { profile: string } } };
    expect(v.format).toBe('contextos');
    const doc = JSON.parse(v.text);
    expect(doc.tooling_layer.tools[0]).toMatchObject({ name: 'grep', purpose: 'Search files', approval_mode: 'read_only' });
    expect(v.packet.budgets.profile).toBe('docs');
    expect(v.packet.sections.find((s) => s.name === 'TOOLS')!.text).toBe('## TOOLS\n- grep(pattern: string): Search files (observe, read_safe, read_only)');
    expect(v.packet.sections.find((s) => s.name === 'CONVERSATION')!.text).toMatch(/Earlier conversation \(1 turn, summarized\):\n  - user: Where is the gateway\?\n- assistant:\n  In svc\//);
  });

  it('refuses bad tools and turns field by field', async () => {
    const bad = await api.dispatch('packets.build', { query: 'x', tools: [{ name: 'a', risk_level: 'yolo' }], conversation: [{ role: 'system', content: 'x' }] });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    const fields = bad.error.issues!.map((i) => i.field);
    expect(fields).toEqual(expect.arrayContaining(['tools.0.risk_level', 'conversation.0.role']));
    const none = await api.dispatch('packets.build', { query: 'x', tools: [{ name: 'a' }] });
    expect(none).toMatchObject({ ok: false, error: { issues: [{ field: 'tools.0.description', message: 'tool description is required' }] } });
  });
});
