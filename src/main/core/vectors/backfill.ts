// The one job that writes vectors: embeds every chunk the target space lacks, a batch at a time, each batch one
// transaction. Progress lives in the database (a chunk either has its vector or not), so a stopped or crashed run
// resumes where it stopped. Switching model or chunker version fills a new space while searches keep using the old
// one; the swap happens only once the new space covers every chunk.
import type { Database } from 'better-sqlite3';
// From the chunker itself: the ingest index would load every reader with it.
import { CHUNKER_VERSION } from '../ingest/chunker.ts';
import { activateSpace, activeSpace, ensureSpace, spaceCoverage, spaceTables } from './spaces.ts';
import { openVectorIndex } from './vector-index.ts';
import type { EmbedReport } from '../../../shared/api/contract.ts';

/** The part of the embed module's Embedder this job needs. */
export interface PassageEmbedder {
  readonly modelId: string;
  readonly dims: number;
  readonly fingerprint: string;
  embedPassages(texts: readonly string[], options?: { onProgress?: (p: { done: number; total: number }) => void }): Promise<Float32Array[]>;
}

export interface BackfillProgress {
  spaceId: number;
  modelId: string;
  /** Chunks of the space's chunker version that have a vector, out of all chunks of that version. */
  done: number;
  total: number;
}

export interface BackfillOptions {
  batchSize?: number;
  /** Defaults to the running chunker's version; a parameter so tests can simulate a chunker change. */
  chunkerVersion?: number;
  signal?: AbortSignal;
  onProgress?: (p: BackfillProgress) => void;
  now?: () => Date;
}

/** What one run did; the API's `library.embed` answers with it as it is. */
export type BackfillReport = EmbedReport;

// Large enough that the embedder can sort a call's texts by length into low-padding batches (it plans 16 batches
// of 32 at a time); small enough that a stop loses little work and progress stays lively.
export const DEFAULT_BACKFILL_BATCH = 256;

/** What a chunk's vector is made from: its document title and heading path give the body its context. */
export function passageText(title: string, headingPath: string, text: string): string {
  const parts: string[] = [];
  if (title.trim()) parts.push(title.trim());
  if (headingPath.trim() && headingPath.trim() !== title.trim()) parts.push(headingPath.trim());
  parts.push(text);
  return parts.join('\n');
}

export async function backfillVectors(db: Database, embedder: PassageEmbedder, options: BackfillOptions = {}): Promise<BackfillReport> {
  const started = performance.now();
  const now = options.now ?? (() => new Date());
  const batchSize = options.batchSize ?? DEFAULT_BACKFILL_BATCH;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`backfill: batchSize must be a positive integer, got ${batchSize}`);
  const chunkerVersion = options.chunkerVersion ?? CHUNKER_VERSION;
  const space = ensureSpace(db, { modelId: embedder.modelId, fingerprint: embedder.fingerprint, dims: embedder.dims, chunkerVersion }, now);
  const index = openVectorIndex(db, space.id);
  const t = spaceTables(space);
  const next = db.prepare(
    `SELECT c.id, c.text, c.heading_path AS headingPath, d.title
     FROM chunks c JOIN documents d ON d.id = c.document_id
     WHERE c.chunker_version = ? AND c.id > ? AND NOT EXISTS (SELECT 1 FROM ${t.f32} v WHERE v.chunk_id = c.id)
     ORDER BY c.id LIMIT ?`,
  );
  const versionTotal = db.prepare('SELECT count(*) FROM chunks WHERE chunker_version = ?').pluck();
  // Counted once: each batch adds what it wrote, instead of two count(*) scans per batch.
  const startCount = index.count();
  const startTotal = versionTotal.get(chunkerVersion) as number;
  let embedded = 0;
  let aborted = false;
  let cursor = 0;
  // The ids-after-cursor walk makes every chunk visited at most once per run, even if its write is skipped.
  for (;;) {
    if (options.signal?.aborted) {
      aborted = true;
      break;
    }
    const rows = next.all(chunkerVersion, cursor, batchSize) as { id: number; text: string; headingPath: string; title: string }[];
    if (rows.length === 0) break;
    cursor = rows[rows.length - 1]!.id;
    // Progress within the batch too (the embedder reports each of its own smaller batches): a first figure within
    // seconds of the start, not after a whole batch.
    const before = startCount + embedded;
    const vectors = await embedder.embedPassages(
      rows.map((r) => passageText(r.title, r.headingPath, r.text)),
      { onProgress: (p) => p.done < p.total && options.onProgress?.({ spaceId: space.id, modelId: space.modelId, done: before + p.done, total: startTotal }) },
    );
    if (vectors.length !== rows.length) throw new Error(`embedder ${embedder.modelId} returned ${vectors.length} vectors for ${rows.length} passages`);
    embedded += index.write(rows.map((r, i) => ({ chunkId: r.id, vector: vectors[i]! })));
    options.onProgress?.({ spaceId: space.id, modelId: space.modelId, done: startCount + embedded, total: startTotal });
  }
  const coverage = spaceCoverage(db, space);
  let swapped = false;
  let dropped: number[] = [];
  const current = activeSpace(db);
  if (!aborted && coverage.missing === 0 && coverage.otherVersion === 0 && current?.id !== space.id) {
    dropped = activateSpace(db, space.id, now);
    swapped = true;
  }
  const total = versionTotal.get(chunkerVersion) as number;
  return {
    spaceId: space.id,
    modelId: space.modelId,
    fingerprint: space.fingerprint,
    dims: space.dims,
    chunkerVersion,
    embedded,
    done: total - coverage.missing,
    total,
    otherVersion: coverage.otherVersion,
    active: swapped || current?.id === space.id,
    swapped,
    dropped,
    aborted,
    durationMs: Math.round(performance.now() - started),
  };
}
