import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sep } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { IngestFileIssue, IngestProgress, IngestReport, SourceType } from '../../../shared/types.ts';
import { CHUNKER_VERSION, type ChunkOptions } from './chunker.ts';
import { classifyPath } from './file-types.ts';
import { FileError, readers, type ParsedDocument } from './readers.ts';
import { walk, type WalkedFile } from './walk.ts';
import { createWordPieceCounter, type WordPieceCounter } from './wordpiece.ts';

export interface IngestOptions {
  /** Files larger than this are skipped with a reason (default 20 MiB). */
  maxFileBytes?: number;
  onProgress?: (p: IngestProgress) => void;
  counter?: WordPieceCounter;
  now?: () => Date;
  /** Abort between files; what was committed stays committed. */
  signal?: AbortSignal;
  /** Follow symlinks whose target lies outside the ingested root (skipped with `symlink outside root` otherwise). */
  followSymlinks?: boolean;
}

export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

interface ExistingSource {
  id: number;
  content_hash: string | null;
  size: number;
  mtime_ms: number;
  status: string;
  chunker_version: number | null;
}

let sharedCounter: WordPieceCounter | null = null;

/**
 * Ingests files and folders into the store. Each file is one transaction: a crash or a bad file never leaves a
 * half-indexed document, and every other file still goes in.
 */
export async function ingestPaths(db: Database, roots: string[], options: IngestOptions = {}): Promise<IngestReport> {
  const t0 = performance.now();
  const now = options.now ?? (() => new Date());
  const counter = options.counter ?? (sharedCounter ??= createWordPieceCounter());
  const chunkOptions: ChunkOptions = { counter };
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const report: IngestReport = {
    roots, added: [], updated: [], unchanged: 0, removed: [], skipped: [], failed: [], warnings: [], files: 0, bytes: 0, chunks: 0, durationMs: 0,
  };
  const logId = Number(
    db.prepare('INSERT INTO ingest_log (started_at, roots) VALUES (?, ?)').run(now().toISOString(), JSON.stringify(roots)).lastInsertRowid,
  );

  options.onProgress?.({ phase: 'scan', filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 });
  const walked = walk(roots, { followSymlinks: options.followSymlinks });
  const stmts = prepare(db);

  // Skipped on purpose (a link out of the root, a credential file): recorded like a binary, and anything indexed
  // from that path before (by an older build) leaves the index in the same step.
  for (const issue of walked.skipped) {
    report.skipped.push({ path: issue.path, reason: issue.reason });
    db.transaction(() => upsertIssue(stmts, issue.path, issue.root, 'skipped', issue.reason, now))();
  }

  // Roots that vanished take their sources with them; roots never seen before are plain errors.
  for (const issue of walked.failed) {
    if (issue.path === issue.root && issue.reason.startsWith('not found')) {
      const gone = sourcesUnder(stmts, issue.root);
      if (gone.length > 0) {
        db.transaction(() => gone.forEach((g) => stmts.deleteSource.run(g.id)))();
        report.removed.push(...gone.map((g) => g.path));
        continue;
      }
    }
    report.failed.push({ path: issue.path, reason: issue.reason });
    upsertIssue(stmts, issue.path, issue.root, 'failed', issue.reason, now);
  }

  const total = walked.files.length;
  const bytesTotal = walked.files.reduce((s, f) => s + f.stats.size, 0);
  let done = 0;
  let bytesDone = 0;
  let lastYield = performance.now();
  const seen = new Set<string>([...walked.failed, ...walked.skipped].map((f) => f.path));
  for (const file of walked.files) {
    if (options.signal?.aborted) break;
    seen.add(file.path);
    await ingestOne(db, stmts, file, { maxBytes, chunkOptions, now, report });
    done++;
    bytesDone += file.stats.size;
    report.files++;
    report.bytes += file.stats.size;
    options.onProgress?.({ phase: 'index', filesDone: done, filesTotal: total, bytesDone, bytesTotal, path: file.path });
    // Give the event loop a turn now and then so progress reaches the UI and servers stay responsive.
    if (performance.now() - lastYield > 30) {
      await new Promise((r) => setImmediate(r));
      lastYield = performance.now();
    }
  }

  if (!options.signal?.aborted) {
    for (const folder of walked.walkedFolders) {
      const known = sourcesUnder(stmts, folder);
      const gone = known.filter((k) => !seen.has(k.path));
      if (gone.length === 0) continue;
      db.transaction(() => gone.forEach((g) => stmts.deleteSource.run(g.id)))();
      report.removed.push(...gone.map((g) => g.path));
    }
  }

  report.durationMs = Math.round(performance.now() - t0);
  db.prepare(
    `UPDATE ingest_log SET finished_at = ?, added = ?, updated = ?, unchanged = ?, removed = ?, failed = ?, skipped = ?,
     duration_ms = ?, report = ? WHERE id = ?`,
  ).run(
    now().toISOString(), report.added.length, report.updated.length, report.unchanged, report.removed.length,
    report.failed.length, report.skipped.length, report.durationMs, JSON.stringify(report), logId,
  );
  options.onProgress?.({ phase: 'done', filesDone: done, filesTotal: total, bytesDone, bytesTotal });
  return report;
}

/** Re-ingests every root the store knows, picking up edits, new files and deletions. */
export async function rescan(db: Database, options: IngestOptions & { rootFilter?: (root: string) => boolean } = {}): Promise<IngestReport> {
  const roots = (db.prepare('SELECT DISTINCT root FROM sources ORDER BY root').all() as { root: string }[]).map((r) => r.root);
  return ingestPaths(db, options.rootFilter ? roots.filter(options.rootFilter) : roots, options);
}

/**
 * Sources in `folder` or below it. Stored paths come from walk, which joins with the platform separator, so the
 * prefix must too: with '/' on Windows, deleted files would never leave the index.
 */
function sourcesUnder(stmts: ReturnType<typeof prepare>, folder: string): { id: number; path: string }[] {
  const prefix = folder.endsWith(sep) ? folder : folder + sep;
  return stmts.sourcesUnder.all({ folder, prefix }) as { id: number; path: string }[];
}

function prepare(db: Database) {
  return {
    existing: db.prepare('SELECT id, content_hash, size, mtime_ms, status, chunker_version FROM sources WHERE path = ?'),
    touch: db.prepare('UPDATE sources SET mtime_ms = ?, size = ? WHERE id = ?'),
    upsertSource: db.prepare(
      `INSERT INTO sources (path, root, content_hash, size, mtime_ms, type, language, status, error, chunker_version, indexed_at)
       VALUES (@path, @root, @hash, @size, @mtime, @type, @language, @status, @error, @chunker, @at)
       ON CONFLICT(path) DO UPDATE SET root = excluded.root, content_hash = excluded.content_hash, size = excluded.size,
         mtime_ms = excluded.mtime_ms, type = excluded.type, language = excluded.language, status = excluded.status,
         error = excluded.error, chunker_version = excluded.chunker_version, indexed_at = excluded.indexed_at
       RETURNING id`,
    ),
    deleteDocuments: db.prepare('DELETE FROM documents WHERE source_id = ?'),
    insertDocument: db.prepare('INSERT INTO documents (source_id, ordinal, external_id, title) VALUES (?, ?, ?, ?)'),
    insertChunk: db.prepare(
      `INSERT INTO chunks (document_id, ordinal, text, heading_path, anchor, line_start, line_end, token_count, chunker_version)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    deleteSource: db.prepare('DELETE FROM sources WHERE id = ?'),
    // length() in SQL, not JS .length: SQLite counts characters, JS counts UTF-16 units (they differ past U+FFFF).
    sourcesUnder: db.prepare('SELECT id, path FROM sources WHERE root = @folder OR path = @folder OR substr(path, 1, length(@prefix)) = @prefix'),
  };
}
type Statements = ReturnType<typeof prepare>;

function upsertIssue(stmts: Statements, path: string, root: string, status: 'skipped' | 'failed', reason: string, now: () => Date, kind?: { type: string; language: string | null }, size = 0, mtime = 0): void {
  const existing = stmts.existing.get(path) as ExistingSource | undefined;
  if (existing) stmts.deleteDocuments.run(existing.id);
  stmts.upsertSource.get({
    path, root, hash: null, size, mtime, type: kind?.type ?? 'unknown', language: kind?.language ?? null, status, error: reason,
    chunker: null, at: now().toISOString(),
  });
}

interface FileContext {
  maxBytes: number;
  chunkOptions: ChunkOptions;
  now: () => Date;
  report: IngestReport;
}

async function ingestOne(db: Database, stmts: Statements, file: WalkedFile, ctx: FileContext): Promise<void> {
  const { path, root, stats } = file;
  const mtime = Math.round(stats.mtimeMs);
  const existing = stmts.existing.get(path) as ExistingSource | undefined;
  const isCurrent = (e: ExistingSource | undefined) => e?.status === 'indexed' && e.chunker_version === CHUNKER_VERSION;
  if (existing && isCurrent(existing) && existing.size === stats.size && existing.mtime_ms === mtime) {
    ctx.report.unchanged++;
    return;
  }
  const kindOrBinary = classifyPath(path);
  const skip = (reason: string, kind?: { type: string; language: string | null }) => {
    ctx.report.skipped.push({ path, reason });
    db.transaction(() => upsertIssue(stmts, path, root, 'skipped', reason, ctx.now, kind ?? { type: 'binary', language: null }, stats.size, mtime))();
  };
  const fail = (issue: IngestFileIssue, kind: { type: string; language: string | null }) => {
    ctx.report.failed.push(issue);
    db.transaction(() => upsertIssue(stmts, path, root, 'failed', issue.reason, ctx.now, kind, stats.size, mtime))();
  };
  if (kindOrBinary === 'binary') return skip('binary file (by extension)');
  if (stats.size > ctx.maxBytes) return skip(`too big: ${stats.size} bytes > limit ${ctx.maxBytes}`, kindOrBinary);
  const kind = kindOrBinary;

  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    return fail({ path, reason: `unreadable: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` }, kind);
  }
  if (kind.type !== 'pdf' && looksBinary(bytes)) return skip('binary content (NUL bytes)');
  const hash = createHash('sha256').update(bytes).digest('hex');
  if (existing && isCurrent(existing) && existing.content_hash === hash) {
    stmts.touch.run(mtime, stats.size, existing.id);
    ctx.report.unchanged++;
    return;
  }

  let docs: ParsedDocument[];
  const warnings: string[] = [];
  try {
    docs = await readers[kind.type as SourceType](bytes, path, { ...ctx.chunkOptions, warn: (m) => warnings.push(m) });
  } catch (err) {
    const reason = err instanceof FileError ? err.message : `cannot read ${kind.type}: ${(err as Error).message}`;
    return fail({ path, reason }, kind);
  }

  let chunkCount = 0;
  db.transaction(() => {
    const sourceId = (stmts.upsertSource.get({
      path, root, hash, size: stats.size, mtime, type: kind.type, language: kind.language, status: 'indexed', error: null,
      chunker: CHUNKER_VERSION, at: ctx.now().toISOString(),
    }) as { id: number }).id;
    stmts.deleteDocuments.run(sourceId);
    docs.forEach((doc, ordinal) => {
      const docId = Number(stmts.insertDocument.run(sourceId, ordinal, doc.externalId, doc.title).lastInsertRowid);
      doc.chunks.forEach((c, i) => {
        stmts.insertChunk.run(docId, i, c.text, c.headingPath.join(' > '), c.anchor, c.lineStart, c.lineEnd, c.tokenCount, CHUNKER_VERSION);
      });
      chunkCount += doc.chunks.length;
    });
  })();
  ctx.report.chunks += chunkCount;
  for (const reason of warnings) ctx.report.warnings.push({ path, reason });
  if (existing?.status === 'indexed') ctx.report.updated.push(path);
  else ctx.report.added.push(path);
}

function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}
