import type { Database } from 'better-sqlite3';
import type { PacketStaleness } from '../../../shared/packet.ts';
import type { SearchHit } from '../../../shared/types.ts';
import { ROOTS_IN_USE_SQL } from '../search/hits.ts';

// A packet records the content hash of every source its evidence cites (packet_sources, beside the snapshot and
// never exported: a file's hash is not the packet's to hand out). Staleness compares those with the index, so it
// reads no file and costs one query for any number of packets.

export function saveCitedSources(db: Database, hash: string, cites: SearchHit[]): void {
  const insert = db.prepare('INSERT OR IGNORE INTO packet_sources (hash, root_id, rel_path, content_hash) VALUES (?, ?, ?, ?)');
  for (const h of cites) if (h.rootId != null && h.relPath) insert.run(hash, h.rootId, h.relPath, h.contentHash ?? null);
}

/** For each packet hash: stale when a cited source's content hash changed or the source left the index. */
export function packetStaleness(db: Database, hashes: string[]): Map<string, PacketStaleness> {
  const out = new Map<string, PacketStaleness>(hashes.map((h) => [h, { stale: false }]));
  if (hashes.length === 0) return out;
  const rows = db
    .prepare(
      `SELECT ps.hash, ps.rel_path AS relPath, s.id AS sourceId, r.name AS rootName, r.kind AS rootKind,
              ${ROOTS_IN_USE_SQL} AS roots
       FROM packet_sources ps
       LEFT JOIN sources s ON s.root_id = ps.root_id AND s.rel_path = ps.rel_path
       LEFT JOIN roots r ON r.id = ps.root_id
       WHERE ps.hash IN (SELECT value FROM json_each(?))
         AND (s.id IS NULL OR s.status <> 'indexed' OR s.content_hash IS NOT ps.content_hash)
       ORDER BY ps.hash, ps.rel_path`,
    )
    .all(JSON.stringify(hashes)) as { hash: string; relPath: string; sourceId: number | null; rootName: string | null; rootKind: string | null; roots: number }[];
  for (const r of rows) {
    const path = r.rootName === null || r.roots <= 1 ? r.relPath : r.rootKind === 'file' ? r.rootName : `${r.rootName}/${r.relPath}`;
    const entry = out.get(r.hash)!;
    entry.stale = true;
    (entry.changed_sources ??= []).push({ path, change: r.sourceId === null ? 'vanished' : 'changed' });
  }
  return out;
}
