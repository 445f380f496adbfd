import type { Migration } from '../migrate.ts';

// Memories keep their typed content as JSON plus a flattened `body` so FTS5 can rank title and content
// separately (the seed weighs them 0.15 / 0.25). seq is the rowid the contentless index points at.
export const memoryMigration: Migration = {
  version: 20,
  name: 'memory and hierarchy: records, decision ids, fts, audit log, L1–L3 sections',
  up: `
    CREATE TABLE memories (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      type TEXT NOT NULL CHECK (type IN ('decision', 'issue', 'state', 'learning')),
      timestamp TEXT NOT NULL,
      project_id TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      title TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 100),
      content TEXT NOT NULL,
      body TEXT NOT NULL,
      tags TEXT NOT NULL DEFAULT '[]',
      importance INTEGER NOT NULL CHECK (importance BETWEEN 1 AND 10),
      expires_at TEXT,
      parent_memory_id TEXT REFERENCES memories(id) ON DELETE SET NULL,
      is_archived INTEGER NOT NULL DEFAULT 0 CHECK (is_archived IN (0, 1)),
      archived_at TEXT,
      restored_at TEXT,
      access_count INTEGER NOT NULL DEFAULT 0,
      last_accessed TEXT,
      decision_id TEXT UNIQUE,
      supersedes TEXT,
      superseded_by TEXT,
      severity TEXT GENERATED ALWAYS AS (CASE WHEN type = 'issue' THEN json_extract(content, '$.severity') END) VIRTUAL,
      issue_status TEXT GENERATED ALWAYS AS (CASE WHEN type = 'issue' THEN coalesce(json_extract(content, '$.status'), 'open') END) VIRTUAL,
      updated_at TEXT NOT NULL,
      CHECK ((type = 'decision') = (decision_id IS NOT NULL))
    );
    CREATE INDEX memories_type_time ON memories(project_id, type, is_archived, timestamp);
    CREATE INDEX memories_parent ON memories(parent_memory_id);

    CREATE TABLE memory_tags (
      memory_seq INTEGER NOT NULL REFERENCES memories(seq) ON DELETE CASCADE,
      tag TEXT NOT NULL,
      PRIMARY KEY (memory_seq, tag)
    ) WITHOUT ROWID;
    CREATE INDEX memory_tags_tag ON memory_tags(tag);

    CREATE VIRTUAL TABLE memories_fts USING fts5(
      title, body,
      content = '',
      contentless_delete = 1,
      tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
      INSERT INTO memories_fts (rowid, title, body) VALUES (new.seq, new.title, new.body);
    END;
    CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
      DELETE FROM memories_fts WHERE rowid = old.seq;
    END;
    CREATE TRIGGER memories_fts_update AFTER UPDATE OF title, body ON memories BEGIN
      DELETE FROM memories_fts WHERE rowid = old.seq;
      INSERT INTO memories_fts (rowid, title, body) VALUES (new.seq, new.title, new.body);
    END;

    -- Survives deletion of the memory it describes, so it keeps id, type and title.
    CREATE TABLE memory_audit (
      id INTEGER PRIMARY KEY,
      ts TEXT NOT NULL,
      action TEXT NOT NULL,
      memory_id TEXT NOT NULL,
      memory_type TEXT NOT NULL,
      title TEXT NOT NULL,
      rule TEXT,
      reason TEXT NOT NULL,
      actor TEXT NOT NULL
    );
    CREATE INDEX memory_audit_memory ON memory_audit(memory_id);

    -- L1–L3 are the user's text; L4 is the ingested sources, so it needs no table. Deleted sections stay as
    -- tombstones so a § marker is never handed out again (references elsewhere must not silently retarget).
    CREATE TABLE hierarchy_sections (
      id INTEGER PRIMARY KEY,
      marker TEXT NOT NULL UNIQUE,
      level INTEGER NOT NULL CHECK (level IN (1, 2, 3)),
      title TEXT NOT NULL,
      body TEXT NOT NULL DEFAULT '',
      data TEXT,
      status_pct INTEGER CHECK (status_pct IS NULL OR status_pct BETWEEN 0 AND 100),
      is_draft INTEGER NOT NULL DEFAULT 0,
      updated_at TEXT NOT NULL,
      updated_by TEXT NOT NULL,
      deleted_at TEXT
    );
  `,
};
