// What `contextpack stats` and the app's stats view report: counts from the store plus one line per capability
// state. One function for both, so they cannot drift apart.
import { statSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import type { StoreStats } from '../../shared/types.ts';
import { spoolNotice } from './hooks/spool.ts';
import type { Store } from './store/index.ts';
import { semanticStatus } from './vectors/index.ts';
import { codeBlocker } from './search/best-retriever.ts';

/** The index's counts and size; `notices` are passed through as given. */
export function collectStats(db: Database, dbPath: string, notices: string[] = []): StoreStats {
  const sources = { indexed: 0, skipped: 0, failed: 0 };
  for (const r of db.prepare('SELECT status, count(*) AS n FROM sources GROUP BY status').all() as { status: keyof typeof sources; n: number }[]) {
    sources[r.status] = r.n;
  }
  const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  const last = db.prepare('SELECT started_at, finished_at, duration_ms FROM ingest_log ORDER BY id DESC LIMIT 1').get() as
    | { started_at: string; finished_at: string | null; duration_ms: number | null }
    | undefined;
  let dbBytes = 0;
  for (const suffix of ['', '-wal']) {
    try {
      dbBytes += statSync(dbPath + suffix).size;
    } catch {
      // a missing WAL file just means nothing is pending
    }
  }
  return {
    dbPath,
    sources,
    documents: count('documents'),
    chunks: count('chunks'),
    dbBytes,
    lastIngest: last ? { startedAt: last.started_at, finishedAt: last.finished_at, durationMs: last.duration_ms } : null,
    notices,
  };
}

/**
 * One line per capability state: why semantic search is off ("semantic search off: no model at <path>", or the
 * sqlite-vec load error, said once), else the vector coverage, and any re-embedding in progress.
 */
export async function storeNotices(store: Store, modelDirs: readonly string[]): Promise<string[]> {
  const semantic = await semanticStatus(store.db, modelDirs, store.vec.loaded);
  // Hook captures that wait in the spool or failed (core/hooks/spool.ts): a user learns that a session was not saved.
  const captures = store.path && store.path !== ':memory:' ? spoolNotice(store.path) : null;
  // On a code-heavy project search "best" stays BM25 even with vectors: said here (stats, the Library view), not only
  // in --json's retrieval fields.
  const code = codeBlocker(store.db);
  const extra = [...(code ? [`search mode "best" is bm25 here, not hybrid: ${code}`] : []), ...(captures ? [captures] : [])];
  if (store.vec.loaded) return [...semantic.notices, ...extra];
  // semanticStatus only knows that sqlite-vec is missing; the store knows why. One line carries both.
  return [`semantic search off: ${store.vec.reason}`, ...semantic.notices.filter((n) => n !== semantic.reason), ...extra];
}

export async function storeStats(store: Store, modelDirs: readonly string[]): Promise<StoreStats> {
  return collectStats(store.db, store.path, await storeNotices(store, modelDirs));
}
