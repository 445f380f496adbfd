import { statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { IngestReport, RootRecord } from '../../../shared/types.ts';
import { ingestPaths, ingestWithin, isUnder, listRoots, PROJECT_IGNORE_FILE, relativeTo, setRootStatus, type IngestOptions } from '../ingest/index.ts';
import { compactPaths } from './paths.ts';
import type { LibraryChange, WatchStatus } from './types.ts';

/** What the watcher needs from @parcel/watcher: subscribe to a folder's changes, recursively. */
export type Subscribe = (
  dir: string,
  fn: (err: Error | null, events: { path: string; type: 'create' | 'update' | 'delete' }[]) => unknown,
  opts?: { ignore?: string[] },
) => Promise<{ unsubscribe(): Promise<void> }>;

export interface WatcherDeps {
  db: Database;
  subscribe: Subscribe;
  /** Roots to follow; default: every root whose watch switch is on. */
  rootIds?: number[];
  /** Roots this watcher may follow at all (serve mode restricted to some folders); default: any. */
  accept?: (root: RootRecord) => boolean;
  /** Quiet time after the last event before a batch runs: a git checkout's burst of events becomes one batch. */
  debounceMs?: number;
  /** A batch runs at the latest this long after its first event, even if events keep coming. */
  maxWaitMs?: number;
  /** How often roots are checked for presence (a folder that disappears goes offline) and file roots for changes. */
  pollMs?: number;
  /** Serializes index writes with other ingest jobs (the app's library queue); default: run directly. */
  exclusive?: <T>(work: () => Promise<T>) => Promise<T>;
  ingestOptions?: Omit<IngestOptions, 'onProgress' | 'signal'>;
  /** After each batch that added or changed chunks (the app embeds them in its worker). */
  afterBatch?: (report: IngestReport) => void | Promise<void>;
  onChange?: (change: LibraryChange) => void;
  onStatus?: (status: WatchStatus) => void;
  onError?: (what: string, err: unknown) => void;
  now?: () => Date;
}

/** Folders the watcher never reports on: version-control internals and dependencies (the walker skips them too). */
const NATIVE_IGNORES = ['.git', '.hg', '.svn', 'node_modules'];
const IGNORE_FILES = new Set(['.gitignore', PROJECT_IGNORE_FILE]);

interface Followed {
  root: RootRecord;
  sub: { unsubscribe(): Promise<void> } | null;
  /** File roots are polled: subscribing to their folder could mean watching a whole home folder. */
  fileStamp: string | null;
}

function present(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function stamp(path: string): string | null {
  try {
    const st = statSync(path);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return null;
  }
}

/**
 * Keeps the index current for a set of roots: reconciles each with the index on start (the ingest fast path picks up
 * what changed while nothing watched), then follows file-system events, debounced into batches; each batch
 * re-ingests only the changed paths (one transaction per file) and removes what is gone. A root folder that
 * disappears is marked offline and keeps its sources; when it returns it is reconciled and followed again.
 */
export function createWatcher(deps: WatcherDeps) {
  const debounceMs = deps.debounceMs ?? 150;
  const maxWaitMs = deps.maxWaitMs ?? 2000;
  const pollMs = deps.pollMs ?? 2000;
  const now = deps.now ?? (() => new Date());
  const exclusive = deps.exclusive ?? (<T>(work: () => Promise<T>) => work());
  const followed = new Map<number, Followed>();
  const pending = new Map<number, Set<string>>();
  let firstPendingAt = 0;
  let quiet: NodeJS.Timeout | null = null;
  let poller: NodeJS.Timeout | null = null;
  let chain: Promise<void> = Promise.resolve();
  let busy = 0;
  let closed = false;
  let lastChange: string | null = null;
  let batches = 0;

  const error = (what: string, err: unknown) => deps.onError?.(what, err);

  function status(): WatchStatus {
    const roots = [...followed.values()].map((f) => ({ id: f.root.id, name: f.root.name, status: f.root.status, watching: f.sub !== null || (f.root.kind === 'file' && f.root.status === 'online') }));
    let queue = 0;
    for (const s of pending.values()) queue += s.size;
    return { watching: roots.filter((r) => r.watching).length, roots, lastChange, queue, busy: busy > 0, batches };
  }
  const emitStatus = () => deps.onStatus?.(status());

  /** Work on the index runs one piece at a time, in order: batches, reconciles and presence changes never interleave. */
  function serial(work: () => Promise<void>): Promise<void> {
    const run = chain.then(async () => {
      if (closed) return;
      busy++;
      try {
        await exclusive(work);
      } catch (err) {
        error('watch', err);
      } finally {
        busy--;
      }
    });
    chain = run;
    return run;
  }

  function report(root: RootRecord, r: IngestReport): void {
    batches++;
    const changed = r.added.length + r.updated.length + r.removed.length;
    if (changed > 0) {
      lastChange = now().toISOString();
      const rel = (ps: string[]) => ps.map((p) => relativeTo(root.path, p));
      deps.onChange?.({ rootId: root.id, root: root.name, added: rel(r.added), updated: rel(r.updated), removed: rel(r.removed), at: lastChange });
    }
  }

  async function afterBatch(r: IngestReport): Promise<void> {
    if (r.added.length + r.updated.length === 0 || !deps.afterBatch) return;
    try {
      await deps.afterBatch(r);
    } catch (err) {
      error('after batch', err);
    }
  }

  /** Whole-root pass with the ingest fast path (mtime/size, then hash): what changed while nobody watched. */
  async function reconcile(f: Followed): Promise<void> {
    const r = await ingestPaths(deps.db, [f.root.path], deps.ingestOptions);
    if (r.offline?.length) f.root = { ...f.root, status: 'offline' };
    else f.root = { ...f.root, status: 'online' };
    report(f.root, r);
    await afterBatch(r);
  }

  /** A root under another followed folder root is covered by that root's subscription. */
  function coveredByAnother(f: Followed): boolean {
    for (const o of followed.values()) {
      if (o !== f && o.root.kind === 'folder' && o.root.status === 'online' && o.root.path !== f.root.path && isUnder(f.root.path, o.root.path)) return true;
    }
    return false;
  }

  async function listen(f: Followed): Promise<void> {
    if (closed || f.root.status !== 'online') return;
    if (f.root.kind === 'file') {
      f.fileStamp = stamp(f.root.path);
      return;
    }
    if (f.sub || coveredByAnother(f)) return;
    try {
      f.sub = await deps.subscribe(f.root.path, (err, events) => {
        if (err) {
          // The folder itself went away (or the OS dropped the watch): the presence check decides what it means.
          void checkPresence();
          return;
        }
        for (const e of events) enqueue(e.path);
      }, { ignore: NATIVE_IGNORES });
    } catch (err) {
      error(`subscribe ${f.root.name}`, err);
    }
  }

  async function unlisten(f: Followed): Promise<void> {
    const sub = f.sub;
    f.sub = null;
    if (sub) await sub.unsubscribe().catch((err) => error(`unsubscribe ${f.root.name}`, err));
  }

  /** The followed root an event belongs to: the longest one containing it. */
  function ownerOf(path: string): Followed | null {
    let best: Followed | null = null;
    for (const f of followed.values()) {
      if (f.root.kind !== 'folder' || !isUnder(path, f.root.path)) continue;
      if (!best || f.root.path.length > best.root.path.length) best = f;
    }
    return best;
  }

  function enqueue(path: string): void {
    if (closed) return;
    const f = ownerOf(path);
    if (!f) return;
    // A changed ignore file can hide or reveal anything below its folder: that folder is walked again.
    const target = IGNORE_FILES.has(basename(path)) ? dirname(path) : path;
    const set = pending.get(f.root.id) ?? new Set<string>();
    if (set.size === 0 && pending.size === 0) firstPendingAt = Date.now();
    set.add(target);
    pending.set(f.root.id, set);
    if (quiet) clearTimeout(quiet);
    const wait = Math.max(0, Math.min(debounceMs, firstPendingAt + maxWaitMs - Date.now()));
    quiet = setTimeout(flush, wait);
  }

  function flush(): void {
    quiet = null;
    if (pending.size === 0) return;
    const work = [...pending.entries()];
    pending.clear();
    emitStatus();
    void serial(async () => {
      for (const [rootId, paths] of work) {
        const f = followed.get(rootId);
        if (!f || f.root.status !== 'online') continue;
        const r = await ingestWithin(deps.db, rootId, compactPaths([...paths]), deps.ingestOptions);
        if (r.offline?.length) {
          // The root folder itself went away (its own delete event came first): offline, sources kept.
          f.root = { ...f.root, status: 'offline' };
          await unlisten(f);
        }
        report(f.root, r);
        await afterBatch(r);
      }
    }).then(emitStatus);
  }

  /** Roots that vanished go offline (sources kept); roots that came back are reconciled and followed again. */
  let checking = false;
  async function checkPresence(): Promise<void> {
    if (closed || checking) return;
    checking = true;
    try {
      await presencePass();
    } finally {
      checking = false;
    }
  }

  async function presencePass(): Promise<void> {
    for (const f of followed.values()) {
      const there = present(f.root.path);
      if (f.root.status === 'online' && !there) {
        if (f.root.kind === 'file') {
          // A file root that is gone is a deleted file, not an unmounted drive: reconcile removes it.
          await serial(() => reconcile(f));
          f.fileStamp = null;
          continue;
        }
        await unlisten(f);
        pending.delete(f.root.id);
        await serial(async () => {
          setRootStatus(deps.db, f.root.id, 'offline');
          f.root = { ...f.root, status: 'offline' };
        });
        for (const o of followed.values()) if (o !== f) await listen(o);
        emitStatus();
      } else if (f.root.status === 'offline' && there) {
        await serial(() => reconcile(f));
        await listen(f);
        emitStatus();
      } else if (f.root.kind === 'file' && there) {
        const s = stamp(f.root.path);
        if (s !== f.fileStamp) {
          f.fileStamp = s;
          await serial(() => reconcile(f));
          emitStatus();
        }
      }
    }
  }

  async function follow(root: RootRecord): Promise<void> {
    if (followed.has(root.id) || (deps.accept && !deps.accept(root))) return;
    const f: Followed = { root, sub: null, fileStamp: null };
    followed.set(root.id, f);
    if (present(root.path)) await serial(() => reconcile(f));
    else if (root.kind === 'folder') {
      await serial(async () => {
        setRootStatus(deps.db, root.id, 'offline');
        f.root = { ...f.root, status: 'offline' };
      });
    } else await serial(() => reconcile(f));
    await listen(f);
    emitStatus();
  }

  async function unfollow(rootId: number): Promise<void> {
    const f = followed.get(rootId);
    if (!f) return;
    followed.delete(rootId);
    pending.delete(rootId);
    await unlisten(f);
    // A root this one covered needs its own subscription now.
    for (const o of followed.values()) await listen(o);
    emitStatus();
  }

  return {
    /** Reconciles every root, then listens; resolves once all are followed. */
    async start(): Promise<void> {
      const wanted = deps.rootIds;
      const roots = listRoots(deps.db).filter((r) => (wanted ? wanted.includes(r.id) : r.watch) && (!deps.accept || deps.accept(r)));
      // Outer folders first, so a nested root finds itself covered and needs no subscription of its own.
      roots.sort((a, b) => a.path.length - b.path.length);
      for (const r of roots) await follow(r);
      poller = setInterval(() => void checkPresence().catch((err) => error('presence', err)), pollMs);
      poller.unref?.();
      emitStatus();
    },
    follow,
    unfollow,
    status,
    /** Runs what is pending now and resolves when the index has caught up (tests, and a clean stop). */
    async idle(): Promise<void> {
      if (quiet) {
        clearTimeout(quiet);
        flush();
      }
      await chain;
    },
    /** Stops listening; the batch in progress finishes, pending events are dropped (the next start reconciles them). */
    async close(): Promise<void> {
      if (closed) return;
      if (quiet) clearTimeout(quiet);
      if (poller) clearInterval(poller);
      quiet = null;
      poller = null;
      await chain;
      closed = true;
      pending.clear();
      for (const f of followed.values()) await unlisten(f);
      followed.clear();
    },
  };
}

export type Watcher = ReturnType<typeof createWatcher>;
