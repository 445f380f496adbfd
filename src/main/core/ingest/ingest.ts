import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { sep } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { IngestFileIssue, IngestProgress, IngestReport, RootRecord, SourceType } from '../../../shared/types.ts';
import { CHUNKER_VERSION, type ChunkOptions } from './chunker.ts';
import { docFieldsText } from './doc-fields.ts';
import { classifyPath } from './file-types.ts';
import { FileError, readers, type ParsedDocument } from './readers.ts';
import { walk, type WalkedFile } from './walk.ts';
import { SYMLINK_OUTSIDE_ROOT } from './containment.ts';
import { ensureRoot, getRoot, isUnder, listRoots, relativeTo, rootContaining, setRootStatus } from './roots.ts';
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
  /**
   * Serve mode (`--root DIR`): real folders no link may lead out of, whatever root the files are filed under (a
   * root may be wider than the folder serve was allowed to read).
   */
  allowedRoots?: readonly string[];
}

export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

interface ExistingSource {
  id: number;
  content_hash: string | null;
  size: number;
  mtime_ms: number;
  status: string;
  chunker_version: number | null;
  root_id: number | null;
}

let sharedCounter: WordPieceCounter | null = null;

/**
 * Ingests files and folders into the store. Each file is one transaction: a crash or a bad file never leaves a
 * half-indexed document, and every other file still goes in. Every path is filed under a root (see roots.ts): a
 * path inside a known root is walked as part of it, so its citations stay the same.
 */
export async function ingestPaths(db: Database, roots: string[], options: IngestOptions = {}): Promise<IngestReport> {
  const now = options.now ?? (() => new Date());
  const plan = new Map<number, { root: RootRecord; paths: string[] }>();
  const notFound: { path: string; reason: string }[] = [];
  for (const p of roots) {
    let known = rootContaining(db, p);
    if (!known && !exists(p)) {
      notFound.push({ path: p, reason: 'not found: ENOENT' });
      continue;
    }
    known ??= ensureRoot(db, p, now);
    const entry = plan.get(known.id) ?? { root: known, paths: [] };
    entry.paths.push(p);
    plan.set(known.id, entry);
  }
  return runIngest(db, roots, [...plan.values()], notFound, options);
}

/**
 * Re-ingests `paths` inside one root (the watcher's changed files and folders): what is there is indexed with the
 * root's ignore rules, what is gone leaves the index (a path's sources and everything under it).
 */
export async function ingestWithin(db: Database, rootId: number, paths: string[], options: IngestOptions = {}): Promise<IngestReport> {
  const root = getRoot(db, rootId);
  if (!root) throw new Error(`root ${rootId} not found`);
  // Logged (and later shown in a packet's HISTORY) as the root, not as the list of files a batch touched.
  return runIngest(db, [root.path], [{ root, paths }], [], options);
}

async function runIngest(
  db: Database,
  given: string[],
  plan: { root: RootRecord; paths: string[] }[],
  notFound: { path: string; reason: string }[],
  options: IngestOptions,
): Promise<IngestReport> {
  const t0 = performance.now();
  const now = options.now ?? (() => new Date());
  const counter = options.counter ?? (sharedCounter ??= createWordPieceCounter());
  const chunkOptions: ChunkOptions = { counter };
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const report: IngestReport = {
    roots: given, added: [], updated: [], unchanged: 0, removed: [], skipped: [], failed: [], warnings: [], files: 0, bytes: 0, chunks: 0, durationMs: 0,
  };
  const logId = Number(
    db.prepare('INSERT INTO ingest_log (started_at, roots) VALUES (?, ?)').run(now().toISOString(), JSON.stringify(given)).lastInsertRowid,
  );

  options.onProgress?.({ phase: 'scan', filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 });
  const stmts = prepare(db);
  const removeUnder = (path: string, keep?: Set<string>) => {
    const gone = sourcesUnder(stmts, path).filter((g) => !keep?.has(g.path));
    if (gone.length === 0) return;
    db.transaction(() => gone.forEach((g) => stmts.deleteSource.run(g.id)))();
    report.removed.push(...gone.map((g) => g.path));
  };

  // A file belongs to the longest root that contains it, whichever root's walk found it: nested roots keep their files.
  const allRoots = listRoots(db).sort((a, b) => b.path.length - a.path.length);
  const owner = (path: string, fallback: RootRecord) => allRoots.find((r) => r.path === path || (r.kind === 'folder' && isUnder(path, r.path))) ?? fallback;
  const work: { file: WalkedFile; root: RootRecord }[] = [];
  const skippedPaths = new Set<string>();
  const walkedFolders: { root: RootRecord; folder: string }[] = [];
  for (const issue of notFound) report.failed.push(issue);
  for (const { root, paths } of plan) {
    const whole = paths.includes(root.path);
    // A folder root that vanished (an unmounted drive) goes offline and keeps its sources until it returns.
    if (whole && !exists(root.path)) {
      if (root.kind === 'folder') {
        setRootStatus(db, root.id, 'offline');
        (report.offline ??= []).push(root.path);
      } else removeUnder(root.path);
      continue;
    }
    if (whole) setRootStatus(db, root.id, 'online');
    const walkOptions = { followSymlinks: options.followSymlinks, allowedRoots: options.allowedRoots };
    const walked = whole ? walk([root.path], walkOptions) : walk(paths, { ...walkOptions, within: root.path });
    for (const missing of walked.missing ?? []) removeUnder(missing);
    // Skipped on purpose (a link out of the root, a credential file): recorded like a binary, and anything indexed
    // from that path before (by an older build) leaves the index in the same step.
    for (const issue of walked.skipped) {
      // A folder that became a link out of the root: what was indexed below it can no longer be reached inside.
      if (issue.reason === SYMLINK_OUTSIDE_ROOT) removeUnder(issue.path, new Set([issue.path]));
      report.skipped.push({ path: issue.path, reason: issue.reason });
      skippedPaths.add(issue.path);
      db.transaction(() => upsertIssue(stmts, issue.path, owner(issue.path, root), 'skipped', issue.reason, now))();
    }
    for (const issue of walked.failed) {
      report.failed.push({ path: issue.path, reason: issue.reason });
      upsertIssue(stmts, issue.path, owner(issue.path, root), 'failed', issue.reason, now);
    }
    for (const file of walked.files) work.push({ file, root: owner(file.path, root) });
    for (const folder of walked.walkedFolders) walkedFolders.push({ root, folder });
  }

  const total = work.length;
  const bytesTotal = work.reduce((s, w) => s + w.file.stats.size, 0);
  let done = 0;
  let bytesDone = 0;
  let lastYield = performance.now();
  const seen = new Set<string>([...report.failed.map((f) => f.path), ...skippedPaths]);
  for (const { file, root } of work) {
    if (options.signal?.aborted) break;
    seen.add(file.path);
    await ingestOne(db, stmts, file, root, { maxBytes, chunkOptions, now, report });
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

  if (!options.signal?.aborted) for (const { folder } of walkedFolders) removeUnder(folder, seen);

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

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Re-ingests every root the store knows (a project remembers them in `roots`), picking up edits, new files and deletions. */
export async function rescan(db: Database, options: IngestOptions & { rootFilter?: (root: string) => boolean } = {}): Promise<IngestReport> {
  const roots = (db.prepare('SELECT path FROM roots ORDER BY path').all() as { path: string }[]).map((r) => r.path);
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
    existing: db.prepare('SELECT id, content_hash, size, mtime_ms, status, chunker_version, root_id FROM sources WHERE path = ?'),
    touch: db.prepare('UPDATE sources SET mtime_ms = ?, size = ? WHERE id = ?'),
    refile: db.prepare('UPDATE sources SET root_id = ?, rel_path = ?, root = ? WHERE id = ?'),
    upsertSource: db.prepare(
      `INSERT INTO sources (path, root, root_id, rel_path, content_hash, size, mtime_ms, type, language, status, error, chunker_version, indexed_at)
       VALUES (@path, @root, @rootId, @relPath, @hash, @size, @mtime, @type, @language, @status, @error, @chunker, @at)
       ON CONFLICT(path) DO UPDATE SET root = excluded.root, root_id = excluded.root_id, rel_path = excluded.rel_path, content_hash = excluded.content_hash, size = excluded.size,
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
    insertFts: db.prepare('INSERT INTO chunks_fts (rowid, title, headings, body) VALUES (?, ?, ?, ?)'),
    // A store opened with a subset of the migrations (tests, tools) may lack the ranking fields: then none are written.
    insertDocFields: db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'doc_fields_fts'").get()
      ? db.prepare('INSERT INTO doc_fields_fts (rowid, path, symbols) VALUES (?, ?, ?)')
      : null,
    // length() in SQL, not JS .length: SQLite counts characters, JS counts UTF-16 units (they differ past U+FFFF).
    sourcesUnder: db.prepare('SELECT id, path FROM sources WHERE root = @folder OR path = @folder OR substr(path, 1, length(@prefix)) = @prefix'),
  };
}
type Statements = ReturnType<typeof prepare>;

function upsertIssue(stmts: Statements, path: string, root: RootRecord, status: 'skipped' | 'failed', reason: string, now: () => Date, kind?: { type: string; language: string | null }, size = 0, mtime = 0): void {
  const existing = stmts.existing.get(path) as ExistingSource | undefined;
  if (existing) stmts.deleteDocuments.run(existing.id);
  stmts.upsertSource.get({
    path, root: root.path, rootId: root.id, relPath: relativeTo(root.path, path), hash: null, size, mtime, type: kind?.type ?? 'unknown', language: kind?.language ?? null, status, error: reason,
    chunker: null, at: now().toISOString(),
  });
}

interface FileContext {
  maxBytes: number;
  chunkOptions: ChunkOptions;
  now: () => Date;
  report: IngestReport;
}

async function ingestOne(db: Database, stmts: Statements, file: WalkedFile, root: RootRecord, ctx: FileContext): Promise<void> {
  const { path, stats } = file;
  const mtime = Math.round(stats.mtimeMs);
  const existing = stmts.existing.get(path) as ExistingSource | undefined;
  const isCurrent = (e: ExistingSource | undefined) => e?.status === 'indexed' && e.chunker_version === CHUNKER_VERSION;
  if (existing && existing.root_id !== root.id) stmts.refile.run(root.id, relativeTo(root.path, path), root.path, existing.id);
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
    // The file-size limit bounds extracted text too: a small compressed file (PDF) must not inflate past it.
    docs = await readers[kind.type as SourceType](bytes, path, { ...ctx.chunkOptions, warn: (m) => warnings.push(m), maxTextChars: ctx.maxBytes });
  } catch (err) {
    // Content that is not text at all (an Illustrator file, FITS data past a text header) is skipped as binary, not
    // failed: nothing readable was lost, and a healthy repository's ingest exits 0.
    if (kind.type !== 'pdf' && mostlyNotText(bytes)) return skip('binary content (not text)');
    const reason = err instanceof FileError ? err.message : `cannot read ${kind.type}: ${(err as Error).message}`;
    return fail({ path, reason }, kind);
  }

  let chunkCount = 0;
  const relPath = relativeTo(root.path, path);
  db.transaction(() => {
    const sourceId = (stmts.upsertSource.get({
      path, root: root.path, rootId: root.id, relPath, hash, size: stats.size, mtime, type: kind.type, language: kind.language, status: 'indexed', error: null,
      chunker: CHUNKER_VERSION, at: ctx.now().toISOString(),
    }) as { id: number }).id;
    stmts.deleteDocuments.run(sourceId);
    const total = docs.reduce((n, d) => n + d.chunks.length, 0);
    const trigger = total >= BULK_CHUNKS ? ftsTriggerSql(db) : null;
    // Bulk path: FTS5 flushes its pending index at every statement savepoint, and the insert trigger gives every
    // chunk insert one, so a big file is written with the trigger lifted (inside this transaction: no other
    // connection ever sees it missing) and its FTS rows inserted directly, exactly as the trigger would.
    if (trigger) db.exec('DROP TRIGGER chunks_fts_insert');
    docs.forEach((doc, ordinal) => {
      const docId = Number(stmts.insertDocument.run(sourceId, ordinal, doc.externalId, doc.title).lastInsertRowid);
      doc.chunks.forEach((c, i) => {
        const headings = c.headingPath.join(' > ');
        const id = stmts.insertChunk.run(docId, i, c.text, headings, c.anchor, c.lineStart, c.lineEnd, c.tokenCount, CHUNKER_VERSION).lastInsertRowid;
        if (trigger) stmts.insertFts.run(id, doc.title, headings, c.text);
      });
      chunkCount += doc.chunks.length;
      // A file's own path and symbols rank it (code-aware search); documents of a collection share one file, so
      // its path says nothing about any of them.
      if (doc.externalId === null && stmts.insertDocFields) {
        const fields = docFieldsText(relPath, kind.type === 'code' ? doc.chunks.flatMap((c) => c.headingPath) : []);
        stmts.insertDocFields.run(docId, fields.path, fields.symbols);
      }
    });
    if (trigger) db.exec(trigger);
  })();
  ctx.report.chunks += chunkCount;
  for (const reason of warnings) ctx.report.warnings.push({ path, reason });
  if (existing?.status === 'indexed') ctx.report.updated.push(path);
  else ctx.report.added.push(path);
}

/** Files with at least this many chunks take the bulk path (below it, lifting the trigger costs more than it saves). */
const BULK_CHUNKS = 256;
const KNOWN_FTS_TRIGGER = 'CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN INSERT INTO chunks_fts (rowid, title, headings, body) VALUES (new.id, (SELECT title FROM documents WHERE id = new.document_id), new.heading_path, new.text); END';

/**
 * The insert trigger's SQL when it is the one the bulk path reproduces (migration 001's), else null: a store whose
 * trigger indexes something else keeps using the trigger.
 */
function ftsTriggerSql(db: Database): string | null {
  const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'chunks_fts_insert'").get() as { sql: string } | undefined;
  if (!row) return null;
  return row.sql.replace(/\s+/g, ' ').replace(/;?\s*$/, '').replace(/\s*;\s*END$/, '; END') === KNOWN_FTS_TRIGGER ? row.sql : null;
}

/** A NUL byte anywhere (memchr, fast on any size): text files have none, binary formats a text header hides do. */
function looksBinary(bytes: Uint8Array): boolean {
  return bytes.indexOf(0) !== -1;
}

/**
 * Whether a file a text reader refused is binary rather than text it cannot decode: of its first 8 KiB, more than
 * one byte in ten is a control character other than tab, newline, carriage return, form feed or escape, or more
 * than three in ten are not valid UTF-8. A Latin-1 text file has few of either and stays a failure worth reporting;
 * a file of a few bytes is too short to tell.
 */
function mostlyNotText(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  if (n < 64) return false;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if ((b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 27) || b === 127) control++;
  }
  if (control * 10 > n) return true;
  const invalid = new TextDecoder('utf-8').decode(bytes.subarray(0, n)).split('\uFFFD').length - 1;
  return invalid * 10 > n * 3;
}
