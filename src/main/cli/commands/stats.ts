import { statSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import { openStore } from '../../core/store/index.ts';
import { semanticStatus } from '../../core/vectors/index.ts';
import type { StoreStats } from '../../../shared/types.ts';
import { defaultModelDirs } from '../../paths.ts';
import { printJson, type Command } from '../command.ts';

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

export const statsCommand: Command = {
  name: 'stats',
  summary: 'Show what the index holds and which capabilities are on',
  usage: 'contextpack stats [--db FILE] [--json]',
  options: {},
  async run(ctx) {
    const store = openStore(ctx.dbPath);
    try {
      const notices = store.vec.loaded ? [] : [store.vec.reason];
      // "semantic search off: no model at <path>" when there is no usable model, else the vector coverage.
      const dirs = defaultModelDirs(ctx.io.env);
      notices.push(...(await semanticStatus(store.db, dirs, store.vec.loaded)).notices);
      const s = collectStats(store.db, ctx.dbPath, notices);
      if (ctx.json) printJson(ctx, s);
      else {
        ctx.io.stdout(
          [
            `database   ${s.dbPath} (${(s.dbBytes / 1024 / 1024).toFixed(1)} MB)`,
            `sources    ${s.sources.indexed} indexed, ${s.sources.skipped} skipped, ${s.sources.failed} failed`,
            `documents  ${s.documents}`,
            `chunks     ${s.chunks}`,
            `last ingest ${s.lastIngest ? `${s.lastIngest.startedAt} (${s.lastIngest.durationMs ?? '?'} ms)` : 'never'}`,
            ...s.notices,
          ].join('\n') + '\n',
        );
      }
      return 0;
    } finally {
      store.close();
    }
  },
};
