import type { Database } from 'better-sqlite3';
import { listRoots, setRootWatch } from '../core/ingest/index.ts';
import { createWatcher, parcelSubscribe, type Subscribe, type Watcher } from '../core/watch/index.ts';
import type { ApiEvent } from '../../shared/api/events.ts';
import type { IngestReport, RootRecord, WatchStatus } from '../../shared/types.ts';
import { ApiFailure } from './failure.ts';

export interface LiveLibraryDeps {
  db: Database;
  emit: (e: ApiEvent) => void;
  /** The library's job queue: watcher batches wait for a running ingest and vice versa. */
  exclusive: <T>(work: () => Promise<T>) => Promise<T>;
  /** Embeds new chunks in the worker after a batch (the app's background jobs). */
  afterBatch?: (r: IngestReport) => void;
  /** Off: roots can still be listed and switched, but nothing listens. */
  enabled: boolean;
  /** Serve with `--root`: only roots under the allowed folders are followed. */
  accept?: (rootPath: string) => boolean;
  subscribe?: Subscribe;
  debounceMs?: number;
  pollMs?: number;
  onError?: (what: string, err: unknown) => void;
}

/**
 * The watcher as the app runs it (desktop and serve): every root whose switch is on is followed; the switch is per
 * root and remembered in the store; batches reach open views as `library.changed`, the status line as `watch.status`.
 */
export function createLiveLibrary(deps: LiveLibraryDeps) {
  let watcher: Watcher | null = null;
  let started: Promise<void> | null = null;
  const idleStatus = (): WatchStatus => ({ watching: 0, roots: [], lastChange: null, queue: 0, busy: false, batches: 0 });

  if (deps.enabled) {
    watcher = createWatcher({
      db: deps.db,
      subscribe: deps.subscribe ?? parcelSubscribe,
      exclusive: deps.exclusive,
      accept: deps.accept ? (r) => deps.accept!(r.path) : undefined,
      debounceMs: deps.debounceMs,
      pollMs: deps.pollMs,
      afterBatch: deps.afterBatch,
      onChange: (payload) => deps.emit({ name: 'library.changed', payload }),
      onStatus: (payload) => deps.emit({ name: 'watch.status', payload }),
      onError: deps.onError,
    });
    started = watcher.start().catch((err) => deps.onError?.('watch start', err));
  }

  return {
    roots(): RootRecord[] {
      return listRoots(deps.db);
    },
    status(): WatchStatus {
      return watcher?.status() ?? idleStatus();
    },
    async setWatch(rootId: number, on: boolean): Promise<RootRecord> {
      let root: RootRecord;
      try {
        root = setRootWatch(deps.db, rootId, on);
      } catch (err) {
        throw new ApiFailure('not_found', (err as Error).message);
      }
      await started;
      if (watcher) await (on ? watcher.follow(root) : watcher.unfollow(rootId));
      return listRoots(deps.db).find((r) => r.id === rootId) ?? root;
    },
    /** After an ingest: roots it created start being followed (their switch is on by default). */
    async adoptNewRoots(): Promise<void> {
      if (!watcher) return;
      await started;
      const followed = new Set(watcher.status().roots.map((r) => r.id));
      for (const r of listRoots(deps.db)) if (r.watch && !followed.has(r.id)) await watcher.follow(r);
    },
    async close(): Promise<void> {
      await started;
      await watcher?.close();
    },
  };
}

export type LiveLibrary = ReturnType<typeof createLiveLibrary>;
