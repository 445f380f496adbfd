// Nearest-neighbour search over one vector space. Exact float32 scores come from sqlite-vec's vec_distance_cosine;
// the unfiltered path first ranks every chunk by Hamming distance between sign bits (1 bit per dimension) and then
// rescores a shortlist exactly. bench/vector.ts measured why: at 100k x 384, sqlite-vec's exact float KNN costs
// ~40 ms and its own bit[] KNN grows with k (~10 ms at k=100, ~35 ms at k=200), while a scan of the same bits held
// as a 4.8 MB Uint32Array costs ~2–3 ms for any shortlist size, so the shortlist can be large enough for
// recall@10 ≥ 0.98 against exact KNN.
import type { Database, Statement } from 'better-sqlite3';
import type { SearchFilters } from '../../../shared/types.ts';
import { filterSql, hasFilters } from '../store/filter-sql.ts';
import { countVectors, getSpace, spaceTables, type SpaceTables, type VectorSpace } from './spaces.ts';

export interface ScoredChunk {
  chunkId: number;
  /** Cosine similarity to the query (vectors are unit length, so also the dot product). */
  score: number;
}

export interface KnnOptions {
  filters?: SearchFilters;
  /** Exact float KNN over every vector, skipping the bit pass (for measuring recall; slower). */
  exact?: boolean;
  /** Caps the index's shortlist factor for this search (a caller that scores its other candidates exactly needs fewer). */
  maxShortlistFactor?: number;
}

export interface VectorIndexOptions {
  /** Shortlist for exact rescoring = max(minShortlist, n × shortlistFactor). */
  shortlistFactor?: number;
  minShortlist?: number;
}

export const DEFAULT_SHORTLIST_FACTOR = 10;
export const DEFAULT_MIN_SHORTLIST = 1000;

export interface VectorIndex {
  readonly space: VectorSpace;
  knn(query: Float32Array, n: number, options?: KnnOptions): ScoredChunk[];
  /** Exact cosine similarity of the query to these chunks' stored vectors; chunks without a vector are absent. */
  score(query: Float32Array, chunkIds: readonly number[]): ScoredChunk[];
  /** Stored vectors for these chunks (missing ids are absent from the map). */
  vectors(chunkIds: readonly number[]): Map<number, Float32Array>;
  /** Writes vectors for chunks in one transaction; chunks deleted meanwhile are skipped. Returns how many were written. */
  write(entries: readonly { chunkId: number; vector: Float32Array }[]): number;
  count(): number;
}

export function toBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

export function fromBlob(b: Buffer): Float32Array {
  // Copy: better-sqlite3 buffers are not guaranteed to be 4-byte aligned.
  const out = new Float32Array(b.byteLength / 4);
  new Uint8Array(out.buffer).set(b);
  return out;
}

/** Sign bits, dimension j at byte j>>3, bit j&7 — sqlite-vec's vec_quantize_binary layout. */
export function signBits(v: Float32Array, bitDims = Math.ceil(v.length / 8) * 8): Uint8Array {
  const out = new Uint8Array(bitDims / 8);
  for (let j = 0; j < v.length; j++) if (v[j]! > 0) out[j >> 3]! |= 1 << (j & 7);
  return out;
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/** The sign bits of every vector in a space, packed for scanning; reloaded when the space's revision moves. */
class BitSketch {
  readonly ids: Int32Array;
  readonly words: Uint32Array;
  readonly wordsPer: number;
  readonly revision: number;
  constructor(db: Database, t: SpaceTables, revision: number) {
    this.revision = revision;
    this.wordsPer = Math.ceil(t.bitDims / 32);
    const loaded = readVec0Chunks(db, t, this.wordsPer) ?? readRows(db, t, this.wordsPer);
    this.ids = loaded.ids;
    this.words = loaded.words;
  }

  /** Ids of at least `n` (all if fewer) chunks with the smallest Hamming distance; ties at the cut are all kept. */
  shortlist(queryBits: Uint8Array, n: number, maxDistance: number): number[] {
    const count = this.ids.length;
    if (count <= n) return Array.from(this.ids);
    const q = new Uint32Array(this.wordsPer);
    new Uint8Array(q.buffer).set(queryBits);
    const W = this.wordsPer;
    const words = this.words;
    const dist = new Uint16Array(count);
    const hist = new Uint32Array(maxDistance + 1);
    for (let i = 0, o = 0; i < count; i++, o += W) {
      let d = 0;
      for (let w = 0; w < W; w++) d += popcount32(words[o + w]! ^ q[w]!);
      dist[i] = d;
      hist[d]!++;
    }
    // Counting selection: the distance range is tiny, so the cut is found in O(count) without sorting.
    let cut = 0;
    for (let seen = hist[0]!; seen < n; seen += hist[++cut]!);
    const out: number[] = [];
    for (let i = 0; i < count; i++) if (dist[i]! <= cut) out.push(this.ids[i]!);
    return out;
  }
}

interface LoadedBits {
  ids: Int32Array;
  words: Uint32Array;
}

/** The portable way: one row per vector (~250 ms and ~70 MB of transient Buffers at 100k). */
function readRows(db: Database, t: SpaceTables, wordsPer: number): LoadedBits {
  const n = (db.prepare(`SELECT count(*) FROM ${t.bits}`).pluck().get() as number);
  const ids = new Int32Array(n);
  const words = new Uint32Array(n * wordsPer);
  const bytes = new Uint8Array(words.buffer);
  let i = 0;
  for (const [id, bits] of db.prepare(`SELECT chunk_id, bits FROM ${t.bits}`).raw().iterate() as IterableIterator<[number, Buffer]>) {
    if (i === n) break;
    ids[i] = id;
    bytes.set(bits, i * wordsPer * 4);
    i++;
  }
  return { ids: ids.subarray(0, i), words: words.subarray(0, i * wordsPer) };
}

/**
 * The fast way: sqlite-vec 0.1.x keeps vectors in shadow tables, 1,024 per row (a validity bitmap, the rowids as
 * int64, the packed vectors), so 100k vectors are ~100 rows (~10 ms). Any surprise in that layout (another
 * sqlite-vec version) returns undefined and the caller reads row by row instead.
 */
function readVec0Chunks(db: Database, t: SpaceTables, wordsPer: number): LoadedBits | undefined {
  const bytesPer = t.bitDims / 8;
  try {
    const expected = db.prepare(`SELECT count(*) FROM ${t.bits}`).pluck().get() as number;
    const rows = db
      .prepare(`SELECT c.size, c.validity, c.rowids, v.vectors FROM "${t.bits}_chunks" c JOIN "${t.bits}_vector_chunks00" v ON v.rowid = c.chunk_id ORDER BY c.chunk_id`)
      .raw()
      .all() as [number, Buffer, Buffer, Buffer][];
    const ids = new Int32Array(expected);
    const words = new Uint32Array(expected * wordsPer);
    const out = new Uint8Array(words.buffer);
    let n = 0;
    for (const [size, validity, rowids, vectors] of rows) {
      if (validity.length * 8 < size || rowids.length !== size * 8 || vectors.length !== size * bytesPer) return undefined;
      const rowidView = new DataView(rowids.buffer, rowids.byteOffset, rowids.byteLength);
      for (let i = 0; i < size; i++) {
        if (!(validity[i >> 3]! & (1 << (i & 7)))) continue;
        if (n === expected) return undefined;
        ids[n] = Number(rowidView.getBigInt64(i * 8, true));
        out.set(vectors.subarray(i * bytesPer, (i + 1) * bytesPer), n * wordsPer * 4);
        n++;
      }
    }
    return n === expected ? { ids, words } : undefined;
  } catch {
    return undefined;
  }
}

/** Exposed for tests: both loaders must read the same sketch. */
export function loadSketchForTest(db: Database, space: Pick<VectorSpace, 'id' | 'dims'>, fast: boolean): LoadedBits | undefined {
  const t = spaceTables(space);
  const wordsPer = Math.ceil(t.bitDims / 32);
  return fast ? readVec0Chunks(db, t, wordsPer) : readRows(db, t, wordsPer);
}

export function openVectorIndex(db: Database, spaceId: number, options: VectorIndexOptions = {}): VectorIndex {
  const initial = getSpace(db, spaceId);
  if (!initial) throw new Error(`vector space ${spaceId} does not exist`);
  const space = initial;
  const t = spaceTables(space);
  const factor = options.shortlistFactor ?? DEFAULT_SHORTLIST_FACTOR;
  const minShortlist = options.minShortlist ?? DEFAULT_MIN_SHORTLIST;
  const revisionStmt = db.prepare('SELECT revision FROM vector_spaces WHERE id = ?').pluck();
  const rescoreStmt = db.prepare(
    `SELECT chunk_id AS chunkId, 1 - vec_distance_cosine(embedding, ?) AS score
     FROM ${t.f32} WHERE chunk_id IN (SELECT value FROM json_each(?))`,
  );
  const exactStmt = db.prepare(
    `SELECT chunk_id AS chunkId, 1 - vec_distance_cosine(embedding, ?) AS score FROM ${t.f32} ORDER BY score DESC, chunk_id LIMIT ?`,
  );
  const vectorsStmt = db.prepare(`SELECT chunk_id, embedding FROM ${t.f32} WHERE chunk_id IN (SELECT value FROM json_each(?))`).raw();
  const insertF32 = db.prepare(`INSERT OR REPLACE INTO ${t.f32} (chunk_id, embedding) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)`);
  const deleteBits = db.prepare(`DELETE FROM ${t.bits} WHERE chunk_id = ?`);
  const insertBits = db.prepare(`INSERT INTO ${t.bits} (chunk_id, bits) VALUES (?, vec_bit(?))`);
  const filteredCache = new Map<string, Statement>();
  let sketch: BitSketch | undefined;

  function currentRevision(): number {
    const rev = revisionStmt.get(space.id) as number | undefined;
    if (rev === undefined) throw new Error(`vector space ${space.id} (${space.modelId}) was replaced by a re-embed; reopen the vector index`);
    return rev;
  }

  function checkQuery(query: Float32Array): void {
    if (query.length !== space.dims) {
      throw new Error(`query vector has ${query.length} dimensions; vector space ${space.id} (${space.modelId}) has ${space.dims}`);
    }
  }

  function sorted(rows: ScoredChunk[], n: number): ScoredChunk[] {
    return rows.sort((a, b) => b.score - a.score || a.chunkId - b.chunkId).slice(0, n);
  }

  function filteredKnn(query: Float32Array, n: number, filters: SearchFilters): ScoredChunk[] {
    const f = filterSql(filters);
    let stmt = filteredCache.get(f.where);
    if (!stmt) {
      // Exact over the filtered chunks only; a filter usually narrows far below the unfiltered cost.
      stmt = db.prepare(
        `SELECT v.chunk_id AS chunkId, 1 - vec_distance_cosine(v.embedding, ?) AS score
         FROM ${t.f32} v JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
         WHERE ${f.where} ORDER BY score DESC, v.chunk_id LIMIT ?`,
      );
      filteredCache.set(f.where, stmt);
    }
    return stmt.all(toBlob(query), ...f.params, n) as ScoredChunk[];
  }

  return {
    space,
    knn(query, n, opts = {}) {
      checkQuery(query);
      const revision = currentRevision();
      if (n <= 0) return [];
      if (hasFilters(opts.filters)) return filteredKnn(query, n, opts.filters!);
      if (opts.exact) return exactStmt.all(toBlob(query), n) as ScoredChunk[];
      if (!sketch || sketch.revision !== revision) sketch = new BitSketch(db, t, revision);
      const ids = sketch.shortlist(signBits(query, t.bitDims), Math.max(minShortlist, n * Math.min(factor, opts.maxShortlistFactor ?? factor)), t.bitDims);
      if (ids.length === 0) return [];
      return sorted(rescoreStmt.all(toBlob(query), JSON.stringify(ids)) as ScoredChunk[], n);
    },
    score(query, chunkIds) {
      checkQuery(query);
      currentRevision();
      if (chunkIds.length === 0) return [];
      return rescoreStmt.all(toBlob(query), JSON.stringify(chunkIds)) as ScoredChunk[];
    },
    vectors(chunkIds) {
      currentRevision();
      const out = new Map<number, Float32Array>();
      if (chunkIds.length === 0) return out;
      for (const [id, blob] of vectorsStmt.all(JSON.stringify(chunkIds)) as [number, Buffer][]) out.set(id, fromBlob(blob));
      return out;
    },
    write(entries) {
      for (const e of entries) {
        if (e.vector.length !== space.dims) {
          throw new Error(`vector for chunk ${e.chunkId} has ${e.vector.length} dimensions; vector space ${space.id} has ${space.dims}`);
        }
        for (const x of e.vector) if (!Number.isFinite(x)) throw new Error(`vector for chunk ${e.chunkId} has a non-finite value`);
      }
      return db.transaction(() => {
        let written = 0;
        for (const e of entries) {
          if (insertF32.run(e.chunkId, toBlob(e.vector), e.chunkId).changes === 0) continue;
          deleteBits.run(e.chunkId);
          insertBits.run(BigInt(e.chunkId), Buffer.from(signBits(e.vector, t.bitDims)));
          written++;
        }
        return written;
      })();
    },
    count: countVectors(db, space),
  };
}
