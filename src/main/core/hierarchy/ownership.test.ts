import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../store/index.ts';
import { tempDirs } from '../testing/tmp.ts';
import { addSection, setExecutiveSummary, updateSection, deleteSection } from './sections.ts';
import { acquireOwnership, assertCanWrite, getOwnership, listOwnership, ownershipAudit, OwnershipError, releaseOwnership, transferOwnership } from './ownership.ts';

const tmp = tempDirs('cp-own-');
afterAll(() => tmp.cleanup());
const T0 = () => new Date('2026-02-01T10:00:00Z');

function fresh() {
  const store = openStore(join(tmp.make(), 'o.db'), { loadVec: false });
  addSection(store.db, { level: 2, title: 'Architecture', body: 'Services talk over a queue.' }, { now: T0 });
  addSection(store.db, { level: 2, title: 'Payments', body: 'Stripe.' }, { now: T0 });
  return store;
}

describe("section ownership (002's coordination rules)", () => {
  it('refuses a write by a non-owner of an exclusive section, naming the owner, and audits the refusal', () => {
    const store = fresh();
    const db = store.db;
    acquireOwnership(db, '§2.1', 'arch-1', { now: T0, reason: 'redesign' });
    expect(() => updateSection(db, '§2.1', { body: 'changed' }, { actor: 'impl-7', now: T0 })).toThrow(OwnershipError);
    expect(() => updateSection(db, '§2.1', { body: 'changed' }, { actor: 'impl-7', now: T0 })).toThrow(/§2\.1 is owned by arch-1 \(exclusive since 2026-02-01T10:00:00\.000Z: redesign\)/);
    expect(() => deleteSection(db, '§2.1', { actor: 'impl-7', now: T0 })).toThrow(/owned by arch-1/);
    // The owner writes; an unowned section is writable by anyone.
    expect(updateSection(db, '§2.1', { body: 'owner edit' }, { actor: 'arch-1', now: T0 }).body).toBe('owner edit');
    expect(updateSection(db, '§2.2', { body: 'anyone' }, { actor: 'impl-7', now: T0 }).body).toBe('anyone');
    const refusals = ownershipAudit(db, '§2.1').filter((e) => e.action === 'refused');
    expect(refusals).toHaveLength(3);
    expect(refusals[0]).toMatchObject({ agent_id: 'impl-7', owner_agent_id: 'arch-1' });
    store.close();
  });

  it('guards the L1 summary too, and lets shared-write sections be written by all', () => {
    const store = fresh();
    const db = store.db;
    acquireOwnership(db, '§1.0', 'lead', { now: T0 });
    expect(() => setExecutiveSummary(db, { goal: 'Ship', status_pct: 10 }, { actor: 'impl-7', now: T0 })).toThrow(/owned by lead/);
    acquireOwnership(db, '§2.2', 'pay-1', { type: 'shared-write', now: T0 });
    expect(() => assertCanWrite(db, '§2.2', 'impl-7', { now: T0 })).not.toThrow();
    store.close();
  });

  it('acquire, release and transfer: only the owner may release or hand off; the trail keeps every step', () => {
    const store = fresh();
    const db = store.db;
    acquireOwnership(db, '§2.1', 'a', { now: T0 });
    expect(() => acquireOwnership(db, '§2.1', 'b', { now: T0 })).toThrow(/cannot acquire: §2\.1 is owned by a/);
    expect(() => releaseOwnership(db, '§2.1', 'b', { now: T0 })).toThrow(/only a can release it/);
    expect(() => transferOwnership(db, '§2.1', 'b', 'c', { now: T0 })).toThrow(/only a can hand it off/);
    const t = transferOwnership(db, '§2.1', 'a', 'b', { now: T0 });
    expect(t).toMatchObject({ owner_agent_id: 'b', previous_owner: 'a', lock_reason: 'Handoff from a' });
    releaseOwnership(db, '§2.1', 'b', { now: T0 });
    expect(getOwnership(db, '§2.1')).toBeNull();
    expect(ownershipAudit(db, '§2.1').map((e) => e.action).reverse()).toEqual(['acquire', 'refused', 'refused', 'refused', 'transfer', 'release']);
    expect(() => db.prepare('DELETE FROM ownership_audit').run()).toThrow(/append-only/);
    store.close();
  });

  it('an expired ownership no longer binds', () => {
    const store = fresh();
    acquireOwnership(store.db, '§2.1', 'a', { now: T0, expiresAt: '2026-02-01T11:00:00Z' });
    expect(() => assertCanWrite(store.db, '§2.1', 'b', { now: () => new Date('2026-02-01T10:30:00Z') })).toThrow(OwnershipError);
    expect(() => assertCanWrite(store.db, '§2.1', 'b', { now: () => new Date('2026-02-01T11:00:01Z') })).not.toThrow();
    expect(listOwnership(store.db, { now: () => new Date('2026-02-01T12:00:00Z') })).toEqual([]);
    store.close();
  });
});
