// Context packets (issue #5): assembly under budgets, redaction gate on every line, manifest and snapshot hash,
// immutable snapshots, replay and reassembly diffs, three output formats.
import type { Database } from 'better-sqlite3';
import type { CanonicalPacket, PacketListItem, PacketManifest } from '../../../shared/packet.ts';
import { manifestOf } from './render.ts';
import { decodePacket, getSnapshot, listSnapshots } from './snapshots.ts';
import { packetStaleness } from './staleness.ts';

export { packetStaleness, saveCitedSources } from './staleness.ts';

export { assemble, buildPacket, encodePacket, injectionRecord, PACKET_ENGINE_VERSION, type AssembleDeps } from './assemble.ts';
export { replay, diffPackets, type ReplayResult } from './replay.ts';
export { renderPacket, renderMarkdown, renderJson, projectContextOs, manifestOf, packetText, successCriteria } from './render.ts';
export { canonicalJson, normalizeText, sha256Hex } from './canonical.ts';
export {
  SnapshotNotFoundError,
  SnapshotTamperedError,
  listSnapshots,
  listInjections,
  getSnapshot,
  resolveHash,
  decodePacket,
  packId,
  saveSnapshotRow,
  type SnapshotRow,
} from './snapshots.ts';
export { resolveRequest, PacketRequestError, DEFAULT_K } from './request.ts';
export { parseToolsFile, parseConversationFile, InputFileError } from './input-files.ts';
export { AO_V1, LAYERED_V1 } from './templates.ts';
export { readStaticText, ingestSessions, chunkLineContext } from './sources.ts';
export type { PacketSources, MemoryProvider, MemoryEntry, GoalsData, SessionEntry, LineContext, HierarchyEntry, FitnessGoals } from './sources.ts';
export { createStoreSources, createMemoryProvider, createGoalsProvider, createHierarchyProvider, memoryClock, freshnessOf, FRESHNESS_DECAY_PER_WEEK } from './store-sources.ts';
export { createJsonlInjectionLog, logPath, packetLogs, type PacketLogName } from './logs.ts';

/** Stored packets, newest first (the UI's history by hash). */
export function listPackets(db: Database, opts: { limit?: number; offset?: number } = {}): PacketListItem[] {
  const list = listSnapshots(db, opts);
  const staleness = packetStaleness(db, list.map((p) => p.hash));
  return list.map((p) => ({ ...p, ...staleness.get(p.hash)! }));
}

/** One stored packet by hash or unique prefix, verified against its hash (SnapshotTamperedError otherwise). */
export function getPacket(db: Database, hash: string): { hash: string; created_at: string; packet: CanonicalPacket; manifest: PacketManifest } {
  const s = getSnapshot(db, hash);
  const packet = decodePacket(s.bytes);
  return { hash: s.hash, created_at: s.created_at, packet, manifest: manifestOf(packet, s.hash) };
}
