import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { ingestPaths, rescan } from '../core/ingest/index.ts';
import type { IngestProgress, IngestReport } from '../../shared/types.ts';
import type { ImportReport } from '../../shared/api/index.ts';
import { ApiFailure } from './failure.ts';

export interface LibraryDeps {
  db: Database;
  /** Managed folder that receives files uploaded by a browser (which has no file paths to give). */
  importsDir: string;
  onProgress: (p: IngestProgress & { jobId: number }) => void;
  /** Called after every ingest job that changed something (the app embeds new chunks then). */
  afterIngest?: (report: IngestReport) => void;
}

export interface UploadedFile {
  /** Relative, already validated by the contract (no `..`, no absolute paths). */
  path: string;
  base64: string;
}

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
      const r = result as IngestReport;
      if (!abort.signal.aborted && r.added.length + r.updated.length > 0) deps.afterIngest?.(r);
      return result;
    });
    tail = run.catch(() => undefined);
    return run;
  }

  return {
    ingest(paths: string[]): Promise<IngestReport> {
      return enqueue((onProgress, signal) => ingestPaths(deps.db, paths, { onProgress, signal }));
    },
    rescan(): Promise<IngestReport> {
      return enqueue((onProgress, signal) => rescan(deps.db, { onProgress, signal }));
    },
    /**
     * Writes uploaded files under the imports folder and ingests them there. A dropped folder replaces the previous
     * upload of the same name as a whole (staged, then swapped), so files deleted since the last drop leave the index.
     */
    importFiles(files: UploadedFile[]): Promise<ImportReport> {
      return enqueue(async (onProgress, signal) => {
        const roots = writeUploads(deps.importsDir, files);
        const report = await ingestPaths(deps.db, roots, { onProgress, signal });
        return { ...report, folder: deps.importsDir };
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

/** Returns the ingest roots: one per top-level folder dropped, and each loose file. */
export function writeUploads(importsDir: string, files: UploadedFile[]): string[] {
  const groups = new Map<string, { rel: string; bytes: Buffer }[]>();
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) throw new ApiFailure('invalid_input', `files: ${f.path} given twice`, [{ field: 'files', message: `${f.path} given twice` }]);
    seen.add(f.path);
    const [top, ...rest] = f.path.split('/');
    const key = rest.length === 0 ? '' : top!;
    const list = groups.get(key) ?? [];
    list.push({ rel: rest.length === 0 ? f.path : rest.join('/'), bytes: Buffer.from(f.base64, 'base64') });
    groups.set(key, list);
  }
  mkdirSync(importsDir, { recursive: true });
  const roots: string[] = [];
  const stamp = `${process.pid}-${Date.now()}`;
  for (const [top, list] of groups) {
    if (top === '') {
      for (const f of list) {
        const target = join(importsDir, f.rel);
        const tmp = `${target}.${stamp}.part`;
        writeFileSync(tmp, f.bytes);
        renameSync(tmp, target);
        roots.push(target);
      }
      continue;
    }
    const target = join(importsDir, top);
    const staging = join(importsDir, `.staging-${stamp}-${top}`);
    try {
      for (const f of list) {
        const p = join(staging, f.rel);
        mkdirSync(dirname(p), { recursive: true });
        writeFileSync(p, f.bytes);
      }
      const old = join(importsDir, `.old-${stamp}-${top}`);
      let hadOld = true;
      try {
        renameSync(target, old);
      } catch {
        hadOld = false;
      }
      renameSync(staging, target);
      if (hadOld) rmSync(old, { recursive: true, force: true });
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
    roots.push(target);
  }
  return roots;
}
