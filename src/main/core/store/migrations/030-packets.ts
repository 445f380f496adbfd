import type { Migration } from '../migrate.ts';

// Snapshots are immutable rows keyed by the sha256 of their bytes: replay re-hashes the bytes, so an edit made
// around the trigger (another tool, a raw file edit) is still caught. `request` keeps the caller's raw inputs for
// --reassemble; it is local like the indexed sources it came with and never part of an exported packet.
export const packetsMigration: Migration = {
  version: 30,
  name: 'packets: immutable snapshots by hash, injection log',
  up: `
    CREATE TABLE packet_snapshots (
      hash TEXT PRIMARY KEY CHECK (length(hash) = 64),
      pack_id TEXT NOT NULL,
      template TEXT NOT NULL,
      query TEXT NOT NULL,
      created_at TEXT NOT NULL,
      bytes BLOB NOT NULL,
      size INTEGER NOT NULL,
      total_chars INTEGER NOT NULL,
      total_tokens INTEGER NOT NULL,
      redactions INTEGER NOT NULL,
      items INTEGER NOT NULL,
      dropped INTEGER NOT NULL,
      request TEXT NOT NULL
    );
    CREATE INDEX packet_snapshots_created ON packet_snapshots(created_at);
    CREATE TRIGGER packet_snapshots_immutable BEFORE UPDATE ON packet_snapshots
    BEGIN SELECT RAISE(ABORT, 'packet snapshots are immutable'); END;

    CREATE TABLE packet_injections (
      id INTEGER PRIMARY KEY,
      ts TEXT NOT NULL,
      hash TEXT NOT NULL REFERENCES packet_snapshots(hash),
      session_id TEXT,
      record TEXT NOT NULL
    );
    CREATE INDEX packet_injections_hash ON packet_injections(hash);
    CREATE TRIGGER packet_injections_append_only BEFORE UPDATE ON packet_injections
    BEGIN SELECT RAISE(ABORT, 'the injection log is append-only'); END;
  `,
};
