// A vector space is the set of vectors one model (by fingerprint) made from chunks of one chunker version. Each has
// its own tables because sqlite-vec columns have fixed dimensions:
//   vec_f32_<id>   plain table: chunk_id → float32 blob (exact scores, MMR)
//   vec_bits_<id>  sqlite-vec vec0 bit[D]: sign bits of the same vector (the fast first pass)
// A trigger on chunks removes a deleted chunk's vectors from every space; triggers on vec_f32_<id> bump the space's
// revision so in-memory sketches know when they are stale.
import type { Database } from 'better-sqlite3';

export interface SpaceKey {
  modelId: string;
  fingerprint: string;
  dims: number;
  chunkerVersion: number;
}

export interface VectorSpace extends SpaceKey {
  id: number;
  state: 'building' | 'active';
  revision: number;
  createdAt: string;
  activatedAt: string | null;
}

export interface SpaceTables {
  f32: string;
  bits: string;
  bitDims: number;
}

interface SpaceRow {
  id: number;
  model_id: string;
  fingerprint: string;
  dims: number;
  chunker_version: number;
  state: 'building' | 'active';
  revision: number;
  created_at: string;
  activated_at: string | null;
}

const SPACE_COLUMNS = 'id, model_id, fingerprint, dims, chunker_version, state, revision, created_at, activated_at';

function fromRow(r: SpaceRow): VectorSpace {
  return {
    id: r.id,
    modelId: r.model_id,
    fingerprint: r.fingerprint,
    dims: r.dims,
    chunkerVersion: r.chunker_version,
    state: r.state,
    revision: r.revision,
    createdAt: r.created_at,
    activatedAt: r.activated_at,
  };
}

/** Table names come only from the integer id, never from user text. */
export function spaceTables(space: Pick<VectorSpace, 'id' | 'dims'>): SpaceTables {
  if (!Number.isInteger(space.id) || space.id <= 0) throw new Error(`vector space id must be a positive integer, got ${space.id}`);
  return { f32: `vec_f32_${space.id}`, bits: `vec_bits_${space.id}`, bitDims: Math.ceil(space.dims / 8) * 8 };
}

export function listSpaces(db: Database): VectorSpace[] {
  return (db.prepare(`SELECT ${SPACE_COLUMNS} FROM vector_spaces ORDER BY id`).all() as SpaceRow[]).map(fromRow);
}

export function getSpace(db: Database, id: number): VectorSpace | undefined {
  const r = db.prepare(`SELECT ${SPACE_COLUMNS} FROM vector_spaces WHERE id = ?`).get(id) as SpaceRow | undefined;
  return r ? fromRow(r) : undefined;
}

export function activeSpace(db: Database): VectorSpace | undefined {
  const r = db.prepare(`SELECT ${SPACE_COLUMNS} FROM vector_spaces WHERE state = 'active'`).get() as SpaceRow | undefined;
  return r ? fromRow(r) : undefined;
}

export function findSpace(db: Database, key: SpaceKey): VectorSpace | undefined {
  const r = db
    .prepare(`SELECT ${SPACE_COLUMNS} FROM vector_spaces WHERE fingerprint = ? AND dims = ? AND chunker_version = ?`)
    .get(key.fingerprint, key.dims, key.chunkerVersion) as SpaceRow | undefined;
  return r ? fromRow(r) : undefined;
}

function validateKey(key: SpaceKey): void {
  if (!key.modelId) throw new Error('vector space: modelId is empty');
  if (!key.fingerprint) throw new Error('vector space: fingerprint is empty');
  if (!Number.isInteger(key.dims) || key.dims <= 0 || key.dims > 8192) throw new Error(`vector space: dims must be an integer in 1..8192, got ${key.dims}`);
  if (!Number.isInteger(key.chunkerVersion)) throw new Error(`vector space: chunkerVersion must be an integer, got ${key.chunkerVersion}`);
}

/** Returns the space for this key, creating it (state 'building', with its tables and triggers) if needed. */
export function ensureSpace(db: Database, key: SpaceKey, now: () => Date = () => new Date()): VectorSpace {
  validateKey(key);
  const existing = findSpace(db, key);
  if (existing) return existing;
  return db.transaction(() => {
    const id = Number(
      db
        .prepare(`INSERT INTO vector_spaces (model_id, fingerprint, dims, chunker_version, state, created_at) VALUES (?, ?, ?, ?, 'building', ?)`)
        .run(key.modelId, key.fingerprint, key.dims, key.chunkerVersion, now().toISOString()).lastInsertRowid,
    );
    const t = spaceTables({ id, dims: key.dims });
    db.exec(`
      CREATE TABLE ${t.f32} (
        chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        embedding BLOB NOT NULL CHECK (length(embedding) = ${key.dims * 4})
      );
      CREATE VIRTUAL TABLE ${t.bits} USING vec0(chunk_id INTEGER PRIMARY KEY, bits bit[${t.bitDims}]);
      CREATE TRIGGER ${t.f32}_chunk_delete AFTER DELETE ON chunks BEGIN
        DELETE FROM ${t.bits} WHERE chunk_id = old.id;
      END;
      CREATE TRIGGER ${t.f32}_insert AFTER INSERT ON ${t.f32} BEGIN
        UPDATE vector_spaces SET revision = revision + 1 WHERE id = ${id};
      END;
      CREATE TRIGGER ${t.f32}_delete AFTER DELETE ON ${t.f32} BEGIN
        UPDATE vector_spaces SET revision = revision + 1 WHERE id = ${id};
      END;
    `);
    return getSpace(db, id)!;
  })();
}

/** Drops a space with its tables and triggers. */
export function dropSpace(db: Database, id: number): void {
  const space = getSpace(db, id);
  if (!space) return;
  const t = spaceTables(space);
  db.transaction(() => {
    db.exec(`
      DROP TRIGGER IF EXISTS ${t.f32}_chunk_delete;
      DROP TRIGGER IF EXISTS ${t.f32}_insert;
      DROP TRIGGER IF EXISTS ${t.f32}_delete;
      DROP TABLE IF EXISTS ${t.bits};
      DROP TABLE IF EXISTS ${t.f32};
    `);
    db.prepare('DELETE FROM vector_spaces WHERE id = ?').run(id);
  })();
}

/**
 * Makes `id` the space searches use and drops every other space, in one transaction: a search sees the old vectors
 * or the new ones, never a mixture.
 */
export function activateSpace(db: Database, id: number, now: () => Date = () => new Date()): number[] {
  const others = listSpaces(db).filter((s) => s.id !== id);
  db.transaction(() => {
    for (const s of others) dropSpace(db, s.id);
    db.prepare(`UPDATE vector_spaces SET state = 'active', activated_at = ? WHERE id = ?`).run(now().toISOString(), id);
  })();
  return others.map((s) => s.id);
}

/** Counts a space's vectors; the statement is prepared once, so a caller that counts per batch keeps the function. */
export function countVectors(db: Database, space: Pick<VectorSpace, 'id' | 'dims'>): () => number {
  const stmt = db.prepare(`SELECT count(*) FROM ${spaceTables(space).f32}`).pluck();
  return () => stmt.get() as number;
}

/** Chunks a space still lacks: those of its chunker version without a vector, and chunks of any other version. */
export function spaceCoverage(db: Database, space: VectorSpace): { vectors: number; chunks: number; missing: number; otherVersion: number } {
  const t = spaceTables(space);
  const r = db
    .prepare(
      `SELECT count(*) AS chunks,
              sum(c.chunker_version = @v AND v.chunk_id IS NULL) AS missing,
              sum(c.chunker_version <> @v) AS otherVersion,
              sum(v.chunk_id IS NOT NULL) AS vectors
       FROM chunks c LEFT JOIN ${t.f32} v ON v.chunk_id = c.id`,
    )
    .get({ v: space.chunkerVersion }) as { chunks: number; missing: number | null; otherVersion: number | null; vectors: number | null };
  return { chunks: r.chunks, missing: r.missing ?? 0, otherVersion: r.otherVersion ?? 0, vectors: r.vectors ?? 0 };
}
