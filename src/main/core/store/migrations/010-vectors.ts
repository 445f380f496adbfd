import type { Migration } from '../migrate.ts';

// sqlite-vec tables have fixed dimensions, so every (model fingerprint, dims, chunker version) gets its own pair of
// tables, created at run time (see core/vectors/spaces.ts); this registry records what each pair holds. A search
// reads only the active space, so vectors of two models are never compared with each other.
export const vectorsMigration: Migration = {
  version: 10,
  name: 'vectors: registry of vector spaces (model id, fingerprint, dims, chunker version)',
  up: `
    CREATE TABLE vector_spaces (
      id INTEGER PRIMARY KEY,
      model_id TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      dims INTEGER NOT NULL CHECK (dims > 0),
      chunker_version INTEGER NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('building', 'active')),
      -- Bumped by triggers on every vector insert or delete, so in-memory sketches know when to reload.
      revision INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      activated_at TEXT,
      UNIQUE (fingerprint, dims, chunker_version)
    );
    CREATE UNIQUE INDEX vector_spaces_one_active ON vector_spaces(state) WHERE state = 'active';
  `,
};
