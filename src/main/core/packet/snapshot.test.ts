import { rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestPaths } from '../ingest/index.ts';
import { openStore } from '../store/index.ts';
import { tempDirs } from '../testing/tmp.ts';
import { assemble, buildPacket, encodePacket } from './assemble.ts';
import { canonicalJson, normalizeText, sha256Hex } from './canonical.ts';
import { packetStore } from './fixtures.testkit.ts';
import { getPacket, listPackets } from './index.ts';
import { replay } from './replay.ts';
import { listInjections, SnapshotNotFoundError, SnapshotTamperedError } from './snapshots.ts';

const tmp = tempDirs('cp-pack-snap-');
const closers: { close(): void }[] = [];
afterAll(() => {
  for (const s of closers) s.close();
  tmp.cleanup();
});
let clock = Date.parse('2026-03-01T00:00:00Z');
const now = () => new Date((clock += 1000));

describe('canonical form', () => {
  it('sorts keys, normalizes text (NFC, \\n, no trailing spaces) and skips undefined members', () => {
    const a = canonicalJson({ b: 'x \r\nCafe\u0301  \t', a: [1, { d: undefined, c: true }], e: null });
    expect(a).toBe('{"a":[1,{"c":true}],"b":"x\\nCafé","e":null}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    expect(normalizeText('line  \r\nnext\t\n')).toBe('line\nnext\n');
    expect(() => canonicalJson({ x: Number.NaN })).toThrow(/\$\.x is not a finite number/);
  });
});

describe('snapshot hash, store and replay', () => {
  it('gives the same hash for the same inputs and an unchanged store, and a different one when inputs change', async () => {
    const f = await packetStore(tmp.make(), { seed: { goals: true, decisions: 3, learnings: 2, states: 2 } });
    closers.push(f.store);
    const req = { query: 'token signing', task: 'Rotate keys.\n- [ ] no downtime' };
    const a = await assemble(req, { db: f.store.db, sources: f.sources, now });
    const b = await assemble(req, { db: f.store.db, sources: f.sources, now });
    expect(b.hash).toBe(a.hash);
    expect(Buffer.from(b.bytes).equals(Buffer.from(a.bytes))).toBe(true);
    expect(a.hash).toBe(sha256Hex(a.bytes));
    expect(a.manifest.context_snapshot_hash).toBe(a.hash);
    // Text that normalizes alike hashes alike.
    const crlf = await buildPacket({ ...req, task: 'Rotate keys.  \r\n- [ ] no downtime' }, { sources: f.sources });
    expect(encodePacket(crlf).hash).toBe(a.hash);
    const other = await assemble({ ...req, maxTokens: 6_000 }, { db: f.store.db, sources: f.sources, now });
    expect(other.hash).not.toBe(a.hash);
    // Reopening the database changes nothing.
    const path = f.store.path;
    const again = openStore(path, { loadVec: false });
    closers.push(again);
    const { createStoreSources } = await import('./store-sources.ts');
    expect((await buildPacket(req, { sources: createStoreSources(again.db) })).budgets).toEqual(a.packet.budgets);
    expect(encodePacket(await buildPacket(req, { sources: createStoreSources(again.db) })).hash).toBe(a.hash);
  });

  it('stores each packet once under its hash, immutably, and logs every assembly', async () => {
    const f = await packetStore(tmp.make());
    closers.push(f.store);
    const sessions = f.sources;
    const a = await assemble({ query: 'retry backoff', sessionId: 'ses-1' }, { db: f.store.db, sources: sessions, now });
    await assemble({ query: 'retry backoff', sessionId: 'ses-2' }, { db: f.store.db, sources: sessions, now });
    const list = listPackets(f.store.db);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ hash: a.hash, pack_id: `pack_${a.hash.slice(0, 16)}`, template: 'ao-v1', query: 'retry backoff', bytes: a.bytes.byteLength });
    const log = listInjections(f.store.db, { hash: a.hash });
    expect(log.map((r) => r.session_id)).toEqual(['ses-2', 'ses-1']);
    expect(log[0]).toMatchObject({ schema_version: 1, context_snapshot_hash: a.hash, budget_chars: 28_000, query: 'retry backoff' });
    expect(Object.keys(log[0].sections)).toEqual(['goals', 'history', 'intel', 'task', 'protocol']);
    expect(() => f.store.db.prepare('UPDATE packet_snapshots SET query = ? WHERE hash = ?').run('x', a.hash)).toThrow(/immutable/);
    expect(getPacket(f.store.db, a.hash.slice(0, 8)).manifest).toEqual(a.manifest);
  });

  it('replays the exact stored bytes, and refuses tampered ones with a clear error', async () => {
    const f = await packetStore(tmp.make());
    closers.push(f.store);
    const a = await assemble({ query: 'signing key' }, { db: f.store.db, sources: f.sources, now });
    const r = await replay(f.store.db, a.hash, { format: 'md' });
    expect(Buffer.from(r.bytes).equals(Buffer.from(a.bytes))).toBe(true);
    expect(r.text).toBe(a.text);
    await expect(replay(f.store.db, 'ffff'.repeat(16))).rejects.toBeInstanceOf(SnapshotNotFoundError);
    await expect(replay(f.store.db, 'not-a-hash')).rejects.toThrow(/not a snapshot hash/);
    // Tamper around the trigger, as a raw edit of the file would.
    const tampered = Buffer.from(Buffer.from(a.bytes).toString('utf8').replace('signing key', 'signing kez'));
    f.store.db.exec('DROP TRIGGER packet_snapshots_immutable');
    f.store.db.prepare('UPDATE packet_snapshots SET bytes = ? WHERE hash = ?').run(tampered, a.hash);
    const err = await replay(f.store.db, a.hash).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SnapshotTamperedError);
    expect((err as Error).message).toMatch(new RegExp(`packet snapshot ${a.hash} has been tampered with: its bytes now hash to [0-9a-f]{64}; refusing to replay it`));
  });

  it('reassembles against the current store and diffs by item id: added, removed, changed', async () => {
    const dir = tmp.make();
    const f = await packetStore(dir, { seed: { decisions: 2 } });
    closers.push(f.store);
    const req = { query: 'token signing rotation', k: 10 };
    const a = await assemble(req, { db: f.store.db, sources: f.sources, now });
    const same = await replay(f.store.db, a.hash, { reassemble: true }, { sources: f.sources });
    expect(same.diff).toMatchObject({ identical: true, added: [], removed: [], changed: [], reassembled_hash: a.hash });

    // Change the store: edit one file, remove one, add one; then re-ingest.
    appendFileSync(join(f.root, 'docs/auth.md'), '\nToken signing keys are rotated by a cron job.\n');
    rmSync(join(f.root, 'notes/tokens.md'));
    writeFileSync(join(f.root, 'docs/rotation.md'), '# Rotation\n\nToken signing rotation runs weekly; signing keys overlap for a day.\n');
    await ingestPaths(f.store.db, [f.root]);
    const r = await replay(f.store.db, a.hash, { reassemble: true }, { sources: f.sources });
    const d = r.diff!;
    expect(d.identical).toBe(false);
    expect(d.added.map((i) => i.id).some((id) => id.includes('docs/rotation.md'))).toBe(true);
    expect(d.removed.map((i) => i.id).some((id) => id.includes('notes/tokens.md'))).toBe(true);
    expect([...d.changed.map((c) => c.id), ...d.added.map((i) => i.id), ...d.removed.map((i) => i.id)].some((id) => id.includes('docs/auth.md'))).toBe(true);
    // The stored packet itself is untouched by a reassembly.
    expect(sha256Hex((await replay(f.store.db, a.hash)).bytes)).toBe(a.hash);
    expect(listPackets(f.store.db)).toHaveLength(1);
  });
});
