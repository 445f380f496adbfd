import type { Migration } from '../migrate.ts';

// Seed 002's Context Coordination Rules (an owner per hierarchy section, with an append-only audit trail) and its
// Session Summary Generation (one row per ended agent session, the summary kept as JSON). Handoff packages need no
// table of their own: they are stored as snapshots (template `handoff-<type>`) beside the packets.
export const sessionsMigration: Migration = {
  version: 50,
  name: 'sessions: section ownership and its audit trail, agent session summaries',
  up: `
    CREATE TABLE section_ownership (
      section_id TEXT PRIMARY KEY,
      owner_agent_id TEXT NOT NULL,
      ownership_type TEXT NOT NULL CHECK (ownership_type IN ('exclusive', 'shared-write', 'read-only')),
      acquired_at TEXT NOT NULL,
      expires_at TEXT,
      previous_owner TEXT,
      lock_reason TEXT NOT NULL DEFAULT ''
    );

    CREATE TABLE ownership_audit (
      id INTEGER PRIMARY KEY,
      ts TEXT NOT NULL,
      section_id TEXT NOT NULL,
      action TEXT NOT NULL CHECK (action IN ('acquire', 'release', 'transfer', 'refused')),
      agent_id TEXT NOT NULL,
      owner_agent_id TEXT,
      previous_owner TEXT,
      ownership_type TEXT,
      reason TEXT NOT NULL
    );
    CREATE INDEX ownership_audit_section ON ownership_audit(section_id);
    CREATE TRIGGER ownership_audit_append_only BEFORE UPDATE ON ownership_audit
    BEGIN SELECT RAISE(ABORT, 'the ownership audit trail is append-only'); END;
    CREATE TRIGGER ownership_audit_no_delete BEFORE DELETE ON ownership_audit
    BEGIN SELECT RAISE(ABORT, 'the ownership audit trail is append-only'); END;

    CREATE TABLE agent_sessions (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      project_id TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      started_at TEXT,
      ended_at TEXT NOT NULL,
      source TEXT NOT NULL,
      headline TEXT NOT NULL,
      summary TEXT NOT NULL
    );
    CREATE INDEX agent_sessions_ended ON agent_sessions(project_id, ended_at);
  `,
};
