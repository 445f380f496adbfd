import type { Database } from 'better-sqlite3';
import type { CanonicalPacket, PacketFormat, ReplayDiff } from '../../../shared/packet.ts';
import { buildPacket, encodePacket, type AssembleDeps } from './assemble.ts';
import { canonicalJson } from './canonical.ts';
import { renderPacket } from './render.ts';
import { decodePacket, getSnapshot } from './snapshots.ts';

export interface ReplayResult {
  hash: string;
  /** The exact stored bytes (verified against the hash). */
  bytes: Uint8Array;
  packet: CanonicalPacket;
  created_at: string;
  /** Set when a format was asked for. */
  text?: string;
  /** Set with reassemble. */
  diff?: ReplayDiff;
  reassembled?: CanonicalPacket;
}

/** Item-level difference between a stored packet and a rebuild: by id, then by content digest, score and place. */
export function diffPackets(before: CanonicalPacket, beforeHash: string, after: CanonicalPacket, afterHash: string): ReplayDiff {
  const a = new Map(before.included.map((i) => [i.id, i]));
  const b = new Map(after.included.map((i) => [i.id, i]));
  const added = after.included.filter((i) => !a.has(i.id));
  const removed = before.included.filter((i) => !b.has(i.id));
  const changed: ReplayDiff['changed'] = [];
  for (const x of before.included) {
    const y = b.get(x.id);
    if (!y) continue;
    if (x.digest !== y.digest || x.score !== y.score || x.section !== y.section) {
      changed.push({ id: x.id, section: y.section, before: { score: x.score, digest: x.digest, section: x.section }, after: { score: y.score, digest: y.digest, section: y.section } });
    }
  }
  const notes: string[] = [];
  const cmp = (what: string, x: unknown, y: unknown) => {
    if (canonicalJson(x) !== canonicalJson(y)) notes.push(`${what}: ${canonicalJson(x)} → ${canonicalJson(y)}`);
  };
  cmp('engine_version', before.engine_version, after.engine_version);
  cmp('retrieval', before.retrieval, after.retrieval);
  cmp('models', before.models, after.models);
  cmp('total_chars', before.budgets.total_chars, after.budgets.total_chars);
  cmp('total_tokens', before.budgets.total_tokens, after.budgets.total_tokens);
  cmp('redactions', before.redactions.count, after.redactions.count);
  cmp('dropped', before.dropped.map((d) => d.id), after.dropped.map((d) => d.id));
  cmp('policy_rules (count)', before.policy_rules.length, after.policy_rules.length);
  return { hash: beforeHash, reassembled_hash: afterHash, identical: beforeHash === afterHash, added, removed, changed, notes };
}

/**
 * `replay <hash>`: the stored bytes after re-checking the hash (SnapshotTamperedError otherwise).
 * With reassemble: rebuilds from the recorded request against the current store (nothing is stored) and diffs.
 */
export async function replay(
  db: Database,
  hash: string,
  opts: { reassemble?: boolean; format?: PacketFormat } = {},
  deps?: Omit<AssembleDeps, 'db'>,
): Promise<ReplayResult> {
  const snap = getSnapshot(db, hash);
  const packet = decodePacket(snap.bytes);
  const out: ReplayResult = { hash: snap.hash, bytes: snap.bytes, packet, created_at: snap.created_at };
  if (opts.format) out.text = renderPacket(packet, snap.hash, opts.format);
  if (opts.reassemble) {
    if (!deps) throw new Error('replay --reassemble needs the packet sources (retriever, memory) of the current store');
    const rebuilt = await buildPacket(snap.request, { ...deps, db: null });
    const { hash: newHash } = encodePacket(rebuilt);
    out.reassembled = rebuilt;
    out.diff = diffPackets(packet, snap.hash, rebuilt, newHash);
  }
  return out;
}
