// How a hook's writes reach a store that others write to at the same time (serve, the watcher, an MCP server, other
// hooks, a `memory add` loop). The mechanism chosen, and why:
// - No writer queue of our own and no hand-off to a running server: neither is guaranteed to be there when an agent
//   compacts (a server may not run; a queue needs a process to own it), and SQLite's write lock already is a queue
//   that every door of the project shares.
// - What lost captures was the transaction shape, not the lock: a deferred transaction that read (for seconds, while
//   the handoff was built) and then wrote fails at once with SQLITE_BUSY when another writer committed meanwhile (WAL
//   cannot upgrade a stale read snapshot; the busy handler is never consulted). So the work is built outside any
//   transaction, and only the writes run, in a short BEGIN IMMEDIATE transaction that takes the write lock first and
//   waits for it through busy_timeout.
// - Around that, retries with jittered exponential back-off until a deadline: a writer that holds the lock longer than
//   busy_timeout (a big ingest batch) delays a capture, it does not lose it.
// - Past the deadline the capture is spooled on disk (spool.ts) and stored by the next hook or command: never dropped.

/** How long a detached hook worker keeps trying before it spools its capture (CONTEXTPACK_HOOK_DEADLINE_MS overrides). */
export const HOOK_WRITE_DEADLINE_MS = 60_000;

export function hookDeadlineMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env.CONTEXTPACK_HOOK_DEADLINE_MS);
  return Number.isFinite(v) && v >= 0 ? v : HOOK_WRITE_DEADLINE_MS;
}

/** SQLite's "someone else holds the lock" answers: worth another try, unlike every other error. */
export function isBusyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))) return true;
  return err instanceof Error && /database is locked|database table is locked|SQLITE_BUSY/i.test(err.message);
}

/** The deadline passed while the store stayed busy: the caller spools the capture. */
export class WriteDeadlineError extends Error {
  readonly attempts: number;
  constructor(message: string, attempts: number) {
    super(message);
    this.name = 'WriteDeadlineError';
    this.attempts = attempts;
  }
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, ms));

export interface RetryOptions {
  deadlineMs: number;
  /** First back-off; doubles per try up to maxBackoffMs, each with ±50 % jitter so retrying workers spread out. */
  backoffMs?: number;
  maxBackoffMs?: number;
  now?: () => number;
  sleep?: (ms: number) => void;
  random?: () => number;
}

/**
 * Runs `fn` until it does not fail busy or the deadline passes (then WriteDeadlineError). Synchronous: it runs in a
 * hook's own short-lived process, never on a server's event loop.
 */
export function retryBusy<T>(fn: () => T, o: RetryOptions): T {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? sleepSync;
  const random = o.random ?? Math.random;
  const until = now() + o.deadlineMs;
  let backoff = o.backoffMs ?? 50;
  for (let attempt = 1; ; attempt++) {
    try {
      return fn();
    } catch (err) {
      if (!isBusyError(err)) throw err;
      const left = until - now();
      if (left <= 0) throw new WriteDeadlineError(`the store stayed busy for ${o.deadlineMs} ms (${attempt} tries; last: ${(err as Error).message})`, attempt);
      sleep(Math.min(left, backoff * (0.5 + random())));
      backoff = Math.min(o.maxBackoffMs ?? 2_000, backoff * 2);
    }
  }
}
