import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../index.ts';
import { apiFixture } from '../testing/api-fixture.ts';

const fx = apiFixture('cp-api-sess-db-', { loadVec: false });
const { ok } = fx;
let api: Api;
const fixture = (name: string) => ({ name, text: readFileSync(new URL(`../../core/session/fixtures/${name}`, import.meta.url), 'utf8') });

beforeAll(() => ({ api } = fx));

describe('sessions, memory and hierarchy editing over the API', () => {
  it('sessions.capacity / analyze / handoff / handoffGet', async () => {
    expect((await ok('sessions.capacity', { tokens: 190_000 })).level).toBe('RED');
    expect(await api.dispatch('sessions.capacity', {})).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    const a = await ok('sessions.analyze', { transcript: fixture('failure.chat.md'), window: 2_000 });
    expect(a).toMatchObject({ format: 'markdown-chat', turns: 12, capacity: { level: 'GREEN' }, compaction: { preservation_validation: true } });
    expect(a.elements.length).toBe(12);
    const h = await ok('sessions.handoff', { type: 'specialist', transcript: fixture('failure.chat.md'), from: 'a', to: 'b', save: true });
    expect(h.package.budget.max_tokens).toBe(10_000);
    expect(h.saved.created.length).toBeGreaterThan(0);
    const g = await ok('sessions.handoffGet', { hash: h.hash });
    expect(g.text).toBe(h.text);
    expect((await ok('packets.list', {})).some((p: { template: string }) => p.template === 'handoff-specialist')).toBe(true);
    expect(await api.dispatch('packets.get', { hash: h.hash })).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('handoff package') } });
    expect(await api.dispatch('packets.replay', { hash: h.hash })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    const bad = await api.dispatch('sessions.analyze', { transcript: { name: 'x.txt', text: 'hello' } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input', issues: [{ field: 'transcript' }] } });
  });

  it('memory.create / update / resolve / archive / delete / search', async () => {
    const m = await ok('memory.create', { type: 'issue', title: 'Checkout double charge', content: { description: 'retry charges twice', severity: 'critical' } });
    const u = await ok('memory.update', { id: m.memory_id, importance: 9, set: { next_actions: 'idempotency keys' } });
    expect(u.memory).toMatchObject({ importance: 9, content: { next_actions: 'idempotency keys' } });
    const bad = await api.dispatch('memory.update', { id: m.memory_id, set: { colour: 'red' } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input', issues: [{ field: 'content.colour' }] } });
    expect((await ok('memory.resolve', { id: m.memory_id, resolution: 'keys' })).memory.content.status).toBe('resolved');
    expect((await ok('memory.search', { query: 'double charge', types: ['issue'] })).hits[0].memory.memory_id).toBe(m.memory_id);
    expect((await ok('memory.archive', { id: m.memory_id })).is_archived).toBe(true);
    expect((await ok('memory.search', { query: 'double charge', types: ['issue'] })).hits).toEqual([]);
    expect((await ok('memory.delete', { id: m.memory_id })).rule).toBe('user-delete');
    expect(await api.dispatch('memory.get', { id: m.memory_id })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('hierarchy editing honours ownership: a non-owner gets forbidden, naming the owner', async () => {
    await ok('hierarchy.summary', { goal: 'Ship checkout', status_pct: 40, priorities: ['payments'] });
    const s = await ok('hierarchy.addSection', { level: 2, title: 'Payments', body: 'Stripe' });
    await ok('hierarchy.own', { section: `§${s.marker}`, agent: 'pay-1', action: 'acquire' });
    const refused = await api.dispatch('hierarchy.editSection', { marker: s.marker, body: 'PayPal', agent: 'impl-9' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(refused.ok ? '' : refused.error.message).toContain('owned by pay-1');
    expect((await ok('hierarchy.editSection', { marker: s.marker, body: 'Stripe + PayPal', agent: 'pay-1' })).body).toBe('Stripe + PayPal');
    const owners = await ok('hierarchy.owners', {});
    expect(owners.owners).toEqual([expect.objectContaining({ section_id: s.marker, owner_agent_id: 'pay-1' })]);
    expect(owners.audit.map((e: { action: string }) => e.action)).toEqual(['refused', 'acquire']);
  });

  it("hierarchy.tree reports sections outside their level's token range (seed 002), over and under", async () => {
    const long = await ok('hierarchy.addSection', { level: 2, title: 'Ledger', body: 'The ledger records every charge, refund and payout with its currency. '.repeat(60) });
    const { limits } = await ok('hierarchy.tree', {});
    expect(limits).toContainEqual(expect.objectContaining({ marker: `§${long.marker}`, level: 2, severity: 'over', max: 500 }));
    // "Payments" (above) is a few tokens: under the 200-token floor of L2.
    expect(limits).toContainEqual(expect.objectContaining({ level: 2, severity: 'under', min: 200 }));
    expect(limits.find((l: { marker: string }) => l.marker === `§${long.marker}`).tokens).toBeGreaterThan(500);
  });

  it('sessions.end and sessions.list', async () => {
    const r = await ok('sessions.end', { notes: 'DECISION: Use Stripe Rationale: fees\nTODO: webhooks', agent: 'pay-1' });
    expect(r.headline).toContain('pay-1');
    expect((await ok('sessions.list', {}))[0].headline).toBe(r.headline);
  });
});
