import type { Database } from 'better-sqlite3';
import type { CanonicalPacket, InjectionRecord, PacketListItem, PacketRequest } from '../../../shared/packet.ts';
import { parseHash, sha256Hex } from './canonical.ts';

export class SnapshotNotFoundError extends Error {
  constructor(hash: string) {
    super(`no packet snapshot with hash ${hash} (run \`contextpack packets\` to list them)`);
    this.name = 'SnapshotNotFoundError';
  }
}

export class SnapshotTamperedError extends Error {
  readonly expected: string;
  readonly actual: string;
  constructor(expected: string, actual: string) {
    super(`packet snapshot ${expected} has been tampered with: its bytes now hash to ${actual}; refusing to replay it`);
    this.name = 'SnapshotTamperedError';
    this.expected = expected;
    this.actual = actual;
  }
}

export interface StoredSnapshot {
  hash: string;
  bytes: Uint8Array;
  created_at: string;
  request: PacketRequest;
}

export function packId(hash: string): string {
  return `pack_${hash.slice(0, 16)}`;
}

/** Stores a snapshot under its hash; a second store of the same hash keeps the first (identical bytes). */
export function saveSnapshot(db: Database, s: { hash: string; bytes: Uint8Array; packet: CanonicalPacket; request: PacketRequest; createdAt: string }): boolean {
  const p = s.packet;
  return saveSnapshotRow(db, {
    hash: s.hash,
    bytes: s.bytes,
    template: p.template,
    query: p.inputs.query,
    createdAt: s.createdAt,
    totalChars: p.budgets.total_chars,
    totalTokens: p.budgets.total_tokens,
    redactions: p.redactions.count,
    items: p.included.length,
    dropped: p.dropped.length,
    request: s.request,
  });
}

/** Any hash-keyed artefact in the snapshot store (packets, and handoff packages under template `handoff-<type>`). */
export interface SnapshotRow {
  hash: string;
  bytes: Uint8Array;
  template: string;
  query: string;
  createdAt: string;
  totalChars: number;
  totalTokens: number;
  redactions: number;
  items: number;
  dropped: number;
  /** What rebuilds it (local only, never exported). */
  request: unknown;
}

export function saveSnapshotRow(db: Database, s: SnapshotRow): boolean {
  const info = db
    .prepare(
      `INSERT OR IGNORE INTO packet_snapshots
       (hash, pack_id, template, query, created_at, bytes, size, total_chars, total_tokens, redactions, items, dropped, request)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      s.hash,
      packId(s.hash),
      s.template,
      s.query,
      s.createdAt,
      Buffer.from(s.bytes),
      s.bytes.byteLength,
      s.totalChars,
      s.totalTokens,
      s.redactions,
      s.items,
      s.dropped,
      JSON.stringify(s.request),
    );
  return info.changes > 0;
}

/** Resolves a full hash or a unique prefix (≥ 4 hex digits). */
export function resolveHash(db: Database, input: string): string {
  const h = parseHash(input);
  const rows = db.prepare(`SELECT hash FROM packet_snapshots WHERE hash >= ? AND hash < ? ORDER BY hash LIMIT 2`).all(h, `${h}g`) as { hash: string }[];
  if (rows.length === 0) throw new SnapshotNotFoundError(h);
  if (rows.length > 1) throw new Error(`hash prefix ${h} is ambiguous (${rows.map((r) => r.hash.slice(0, 12)).join(', ')}, …): give more digits`);
  return rows[0].hash;
}

/** The exact stored bytes, after re-checking that they still hash to their key. */
export function getSnapshot(db: Database, input: string): StoredSnapshot {
  const hash = resolveHash(db, input);
  const row = db.prepare('SELECT hash, bytes, created_at, request FROM packet_snapshots WHERE hash = ?').get(hash) as
    | { hash: string; bytes: Buffer; created_at: string; request: string }
    | undefined;
  if (!row) throw new SnapshotNotFoundError(hash);
  const bytes = new Uint8Array(row.bytes);
  const actual = sha256Hex(bytes);
  if (actual !== row.hash) throw new SnapshotTamperedError(row.hash, actual);
  return { hash: row.hash, bytes, created_at: row.created_at, request: JSON.parse(row.request) as PacketRequest };
}

export function decodePacket(bytes: Uint8Array): CanonicalPacket {
  return JSON.parse(Buffer.from(bytes).toString('utf8')) as CanonicalPacket;
}

export function listSnapshots(db: Database, opts: { limit?: number; offset?: number } = {}): PacketListItem[] {
  const rows = db
    .prepare(
      `SELECT hash, pack_id, template, query, created_at, size, total_chars, total_tokens, redactions, items, dropped
       FROM packet_snapshots ORDER BY created_at DESC, hash LIMIT ? OFFSET ?`,
    )
    .all(opts.limit ?? 50, opts.offset ?? 0) as (Omit<PacketListItem, 'bytes' | 'template'> & { size: number; template: string })[];
  return rows.map((r) => ({
    hash: r.hash,
    pack_id: r.pack_id,
    template: r.template as PacketListItem['template'],
    query: r.query,
    created_at: r.created_at,
    bytes: r.size,
    total_chars: r.total_chars,
    total_tokens: r.total_tokens,
    redactions: r.redactions,
    items: r.items,
    dropped: r.dropped,
  }));
}

export function appendInjection(db: Database, record: InjectionRecord): void {
  db.prepare('INSERT INTO packet_injections (ts, hash, session_id, record) VALUES (?, ?, ?, ?)').run(
    record.ts,
    record.context_snapshot_hash,
    record.session_id,
    JSON.stringify(record),
  );
}

export function listInjections(db: Database, opts: { hash?: string; limit?: number } = {}): InjectionRecord[] {
  const rows = (opts.hash
    ? db.prepare('SELECT record FROM packet_injections WHERE hash = ? ORDER BY id DESC LIMIT ?').all(opts.hash, opts.limit ?? 100)
    : db.prepare('SELECT record FROM packet_injections ORDER BY id DESC LIMIT ?').all(opts.limit ?? 100)) as { record: string }[];
  return rows.map((r) => JSON.parse(r.record) as InjectionRecord);
}
