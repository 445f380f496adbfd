import type { Migration } from '../migrate.ts';

// 000's fitness snapshots: one row per recorded gate result (`contextpack goals record`). The spec itself (gates,
// thresholds, directives) stays in GOALS.md / GOALS.yaml at an indexed root; the current state of a gate is its
// newest row. Append-only, like the other logs the packet reads.
export const goalsMigration: Migration = {
  version: 60,
  name: 'goals: fitness snapshots per gate',
  up: `
    CREATE TABLE goal_snapshots (
      id INTEGER PRIMARY KEY,
      gate_id TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pass', 'fail')),
      value TEXT,
      spec_file TEXT,
      agent_id TEXT,
      recorded_at TEXT NOT NULL
    );
    CREATE INDEX goal_snapshots_gate ON goal_snapshots(gate_id, id);
    CREATE TRIGGER goal_snapshots_append_only BEFORE UPDATE ON goal_snapshots
    BEGIN SELECT RAISE(ABORT, 'fitness snapshots are append-only'); END;
  `,
};
