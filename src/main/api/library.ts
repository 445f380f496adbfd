import { existsSync, lstatSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import type { Database } from 'better-sqlite3';
import { getSourceRef, ingestPaths, ingestWithin, markForReindex, removeSource, rescan, rootContaining } from '../core/ingest/index.ts';
import type { IngestFileIssue, IngestProgress, IngestReport } from '../../shared/types.ts';
import type { ImportReport, RemovedSource } from '../../shared/api/index.ts';
import { UPLOAD_FILE_MAX_BYTES } from '../../shared/limits.ts';
import { makeDir } from '../core/store/make-dir.ts';
import { isContained, realLocation } from '../core/store/containment.ts';
import { ApiFailure } from './failure.ts';

export interface LibraryDeps {
  db: Database;
  /** Managed folder that receives files uploaded by a browser (which has no file paths to give). */
  importsDir: string;
  onProgress: (p: IngestProgress & { jobId: number }) => void;
  /** Called after every ingest job that changed something (the app embeds new chunks then). */
  afterIngest?: (report: IngestReport) => void;
  /**
   * Serve mode: the folders `library.ingest` may read (`contextpack serve --root DIR`), as real paths; empty refuses
   * every path. Undefined (desktop, where the user picks the paths) allows any. The imports folder is always allowed.
   */
  ingestRoots?: readonly string[];
  /** Called after every ingest job, changed or not (the watcher adopts roots the job created). */
  afterJob?: (report: IngestReport) => void;
}

export interface UploadedFile {
  /** Relative, already validated by the contract (no `..`, no absolute paths). */
  path: string;
  base64: string;
}

/** One request of a folder upload sent in batches: files are staged until the final batch, then swapped in at once. */
export interface UploadBatch {
  id: string;
  final: boolean;
}

/** How an ingest reads files (the contract's maxFileMb / followSymlinks). */
export interface ReadOptions {
  maxFileMb?: number;
  followSymlinks?: boolean;
}

const readOptions = (r: ReadOptions) => ({
  ...(r.maxFileMb !== undefined ? { maxFileBytes: r.maxFileMb * 1024 * 1024 } : {}),
  ...(r.followSymlinks !== undefined ? { followSymlinks: r.followSymlinks } : {}),
});

const emptyReport = (roots: string[]): IngestReport => ({ roots, added: [], updated: [], unchanged: 0, removed: [], skipped: [], failed: [], warnings: [], files: 0, bytes: 0, chunks: 0, durationMs: 0 });

/**
 * Ingest jobs run one at a time (a second drop waits for the first), each reporting progress with its job id.
 * SQLite has one writer anyway; queueing keeps reports and progress bars from interleaving. `close()` stops the
 * running job between files (what was committed stays) and refuses the queued ones, so the store can close after.
 */
export function createLibrary(deps: LibraryDeps) {
  let tail: Promise<unknown> = Promise.resolve();
  let jobs = 0;
  const abort = new AbortController();
  const closing = () => new ApiFailure('unavailable', 'the library is closing (the app is shutting down)');

  function enqueue<T>(work: (onProgress: (p: IngestProgress) => void, signal: AbortSignal) => Promise<T>): Promise<T> {
    if (abort.signal.aborted) return Promise.reject(closing());
    const jobId = ++jobs;
    const run = tail.then(async () => {
      if (abort.signal.aborted) throw closing();
      const result = await work((p) => deps.onProgress({ ...p, jobId }), abort.signal);
      // Only ingest jobs return a report (a removal does not): those that changed something get embedded after.
      const r = result as Partial<IngestReport>;
      if (!abort.signal.aborted && Array.isArray(r.added) && Array.isArray(r.updated) && r.added.length + r.updated.length > 0) deps.afterIngest?.(r as IngestReport);
      if (!abort.signal.aborted && Array.isArray(r.added)) deps.afterJob?.(r as IngestReport);
      return result;
    });
    tail = run.catch(() => undefined);
    return run;
  }

  // Serve mode: no link, followed or not, leads a walk out of the folders named at start (a root filed earlier by the
  // CLI may be wider than they are, and followSymlinks only widens a root, never these).
  const bounds = () => (deps.ingestRoots ? { allowedRoots: [...deps.ingestRoots, deps.importsDir].map((r) => realLocation(r)) } : {});

  return {
    ingest(paths: string[], read: ReadOptions = {}): Promise<IngestReport> {
      if (deps.ingestRoots) checkUnderRoots(paths, deps.ingestRoots, deps.importsDir);
      return enqueue((onProgress, signal) => ingestPaths(deps.db, paths, { ...readOptions(read), ...bounds(), onProgress, signal }));
    },
    /** Runs other index work (watcher batches) in the same queue, without a job id or progress events. */
    exclusive<T>(work: () => Promise<T>): Promise<T> {
      if (abort.signal.aborted) return Promise.reject(closing());
      const run = tail.then(() => work());
      tail = run.catch(() => undefined);
      return run;
    },
    rescan(read: ReadOptions = {}): Promise<IngestReport> {
      // Restricted, a rescan re-reads only what lies under the allowed roots (sources indexed by the CLI elsewhere stay as they are).
      const rootFilter = allowedRoots(deps.ingestRoots, deps.importsDir);
      return enqueue((onProgress, signal) => rescan(deps.db, { ...readOptions(read), ...bounds(), onProgress, signal, rootFilter }));
    },
    /**
     * Writes uploaded files under the imports folder and ingests them there. A dropped folder replaces the previous
     * upload of the same name as a whole (staged, then swapped), so files deleted since the last drop leave the index.
     * With `batch`, a large folder arrives in several requests: each is staged, the final one swaps and ingests. The
     * imports folder itself is the ingest root, so L4 markers keep the dropped folder's name (§4.lib/router.js).
     * Files over the upload limit and the ones the browser left out (`skipped`) are reported by name.
     */
    importFiles(files: UploadedFile[], batch?: UploadBatch, clientSkipped: IngestFileIssue[] = []): Promise<ImportReport> {
      const stagingRoot = `${deps.importsDir}.staging`;
      const staging = join(stagingRoot, batch?.id ?? `single-${process.pid}-${Date.now()}`);
      if (!existsSync(staging)) dropAbandoned(stagingRoot);
      let tooBig: IngestFileIssue[];
      try {
        checkUploadClashes(deps.importsDir, staging, files);
        tooBig = stageUploads(staging, files);
      } catch (err) {
        // A refused upload leaves nothing staged: its earlier batches go too, so no half folder can be swapped in later.
        rmSync(staging, { recursive: true, force: true });
        throw err;
      }
      const skipped = [...clientSkipped, ...tooBig];
      if (batch && !batch.final) {
        const staged = files.length - tooBig.length;
        return Promise.resolve({ ...emptyReport([]), skipped, folder: deps.importsDir, staged });
      }
      return enqueue(async (onProgress, signal) => {
        try {
          swapStaged(staging, deps.importsDir);
        } finally {
          rmSync(staging, { recursive: true, force: true });
        }
        // Sources uploaded before the imports folder became the root keep their old root until they change.
        const prefix = deps.importsDir + sep;
        deps.db.prepare('UPDATE sources SET root = ? WHERE substr(path, 1, length(?)) = ? AND root <> ?').run(deps.importsDir, prefix, prefix, deps.importsDir);
        const report = await ingestPaths(deps.db, [deps.importsDir], { onProgress, signal });
        return { ...report, skipped: [...skipped, ...report.skipped], folder: deps.importsDir };
      });
    },
    /** Removes one source from the index; an uploaded file also leaves the imports folder, so a rescan does not bring it back. */
    removeSource(id: number): Promise<RemovedSource> {
      return enqueue(async () => {
        const ref = removeSource(deps.db, id);
        if (!ref) throw new ApiFailure('not_found', `source ${id} not found (already removed?)`);
        const uploaded = ref.path.startsWith(deps.importsDir + sep);
        if (uploaded) rmSync(ref.path, { force: true });
        return { id: ref.id, path: ref.path, chunks: ref.chunks, deletedFile: uploaded };
      });
    },
    /**
     * Reads, chunks and (in the app) embeds one source again, with its root's ignore and containment rules: that one
     * file, never a walk of its root. Restricted (serve --root), a source outside every allowed root is refused.
     */
    reindexSource(id: number): Promise<IngestReport> {
      return enqueue(async (onProgress, signal) => {
        const ref = getSourceRef(deps.db, id);
        if (!ref) throw new ApiFailure('not_found', `source ${id} not found`);
        const allowed = allowedRoots(deps.ingestRoots, deps.importsDir);
        if (allowed && !allowed(ref.path)) {
          throw new ApiFailure('forbidden', `sources.reindex: ${ref.path} is outside the allowed roots (${deps.ingestRoots!.join(', ') || 'none named'}); ` +
            'serve mode re-reads only files under `contextpack serve --root DIR`', [{ field: 'id', message: 'outside the allowed roots' }]);
        }
        const root = rootContaining(deps.db, ref.path);
        markForReindex(deps.db, id);
        return root ? ingestWithin(deps.db, root.id, [ref.path], { ...bounds(), onProgress, signal }) : ingestPaths(deps.db, [ref.path], { ...bounds(), onProgress, signal });
      });
    },
    /** Stops the running job after its current file, refuses queued and new ones, and resolves once none runs. */
    async close(): Promise<void> {
      abort.abort();
      await tail;
    },
  };
}

export type Library = ReturnType<typeof createLibrary>;

/** Writes a batch into the staging folder; files over the upload limit are left out and named. */
export function stageUploads(staging: string, files: UploadedFile[]): IngestFileIssue[] {
  const skipped: IngestFileIssue[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) throw new ApiFailure('invalid_input', `files: ${f.path} given twice`, [{ field: 'files', message: `${f.path} given twice` }]);
    seen.add(f.path);
  }
  for (const f of files) {
    const bytes = Buffer.from(f.base64, 'base64');
    if (bytes.length > UPLOAD_FILE_MAX_BYTES) {
      skipped.push({ path: f.path, reason: `too big to upload: ${bytes.length} bytes > limit ${UPLOAD_FILE_MAX_BYTES}` });
      continue;
    }
    const p = join(staging, f.path);
    // Owner-only, like the database: uploads are the user's documents.
    makeDir(dirname(p));
    writeFileSync(p, bytes, { mode: 0o600 });
  }
  return skipped;
}

/**
 * Moves what was staged into the imports folder: each top-level folder replaces the one of the same name as a whole
 * (renamed aside, then removed), loose files replace theirs one by one.
 */
export function swapStaged(staging: string, importsDir: string): void {
  makeDir(importsDir);
  if (!existsSync(staging)) return;
  const stamp = `${process.pid}-${Date.now()}`;
  const names = readdirSync(staging);
  // Checked for all names before any moves, so a clash (made since the batch was staged) swaps in nothing.
  for (const name of names) {
    const have = kindAt(join(importsDir, name));
    const incoming = statSync(join(staging, name)).isDirectory() ? 'folder' : 'file';
    if (have && have !== incoming) throw clash(name, `is already an uploaded ${have}`);
  }
  for (const name of names) {
    const from = join(staging, name);
    const target = join(importsDir, name);
    if (!statSync(from).isDirectory()) {
      renameSync(from, target);
      continue;
    }
    const old = join(`${importsDir}.staging`, `.old-${stamp}-${name}`);
    let hadOld = true;
    try {
      renameSync(target, old);
    } catch {
      hadOld = false;
    }
    renameSync(from, target);
    if (hadOld) rmSync(old, { recursive: true, force: true });
  }
}

function checkUnderRoots(paths: string[], named: readonly string[], importsDir: string): void {
  const outside = paths.filter((p) => !isContained(p, [...named, importsDir]));
  if (outside.length === 0) return;
  if (named.length === 0) {
    throw new ApiFailure('forbidden', 'library.ingest: serve mode reads paths only under the folders named when it started, and none was named. ' +
      'Restart with `contextpack serve --root DIR` (repeatable) to allow a folder, or upload the files (drop them on the Library view)');
  }
  throw new ApiFailure('forbidden', `library.ingest: ${outside.join(', ')} ${outside.length === 1 ? 'is' : 'are'} outside the allowed roots ` +
    `(${named.join(', ')}); restart with another \`contextpack serve --root DIR\` to allow it, or upload the files`,
  outside.map(() => ({ field: 'paths', message: 'outside the allowed roots' })));
}

const clash = (name: string, why: string) =>
  new ApiFailure('conflict', `files: ${name} ${why}; rename it or remove the other first`, [{ field: 'files', message: `${name} ${why}` }]);

/**
 * An upload replaces earlier uploads of the same name, but a file never replaces a folder or a folder a file: not in
 * the imports folder, not among the batches staged so far, not within this request.
 */
function checkUploadClashes(importsDir: string, staging: string, files: UploadedFile[]): void {
  const incoming = new Set(files.map((f) => f.path));
  const folders = new Set(files.flatMap((f) => f.path.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
  for (const f of files) {
    if (folders.has(f.path)) throw clash(f.path, 'is given both as a file and as a folder');
    const staged = kindAt(join(staging, f.path));
    if (staged === 'folder') throw clash(f.path, 'is given both as a file and as a folder');
    const [top, ...rest] = f.path.split('/');
    const have = kindAt(join(importsDir, top!));
    if (rest.length === 0 && have === 'folder') throw clash(top!, 'is already an uploaded folder');
    if (rest.length > 0 && have === 'file') throw clash(top!, 'is already an uploaded file');
  }
  for (const folder of folders) {
    if (incoming.has(folder) || kindAt(join(staging, folder)) === 'file') throw clash(folder, 'is given both as a file and as a folder');
  }
}

function kindAt(p: string): 'file' | 'folder' | null {
  try {
    return lstatSync(p).isDirectory() ? 'folder' : 'file';
  } catch {
    return null;
  }
}

/** Batches of an upload that never sent its final request (a closed tab) are dropped after an hour. */
function dropAbandoned(stagingRoot: string, maxAgeMs = 60 * 60 * 1000): void {
  let names: string[];
  try {
    names = readdirSync(stagingRoot);
  } catch {
    return;
  }
  for (const name of names) {
    const p = join(stagingRoot, name);
    try {
      if (Date.now() - statSync(p).mtimeMs > maxAgeMs) rmSync(p, { recursive: true, force: true });
    } catch {
      // gone meanwhile
    }
  }
}

/** Serve mode with `--root`: which indexed roots the app may re-read (rescan, the watcher); undefined: all of them. */
export function allowedRoots(ingestRoots: readonly string[] | undefined, importsDir: string): ((root: string) => boolean) | undefined {
  if (!ingestRoots) return undefined;
  const allowed = [...ingestRoots, importsDir];
  return (path: string) => isContained(path, allowed);
}
