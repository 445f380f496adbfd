import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { percentile } from './trec-eval.ts';

/**
 * LanceDB's full-text search over the same chunk texts, for issue #15's query-speed comparison. @lancedb/lancedb is
 * not a dependency of the project: install it in a folder of its own (`npm i --prefix /tmp/lancedb
 * @lancedb/lancedb`) and point CONTEXTPACK_LANCEDB_DIR there. Returns null (printed as "not run") without it.
 */
export async function lancedbFtsP50(store: Database, queries: string[], dir: string | undefined, workDir: string, k: number): Promise<{ p50: number; p95: number; indexS: number; version: string } | null> {
  if (!dir) return null;
  const require = createRequire(join(dir, 'node_modules', 'noop.js'));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const lancedb: any = require('@lancedb/lancedb');
  const version: string = JSON.parse(readFileSync(join(dir, 'node_modules', '@lancedb', 'lancedb', 'package.json'), 'utf8')).version;
  const rows = store
    .prepare("SELECT c.id AS id, d.title || ' ' || c.heading_path || ' ' || c.text AS text FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY c.id")
    .all() as { id: number; text: string }[];
  const t0 = performance.now();
  const db = await lancedb.connect(join(workDir, 'lancedb'));
  const table = await db.createTable('chunks', rows, { mode: 'overwrite' });
  // The same text treatment as ours: lowercase, ASCII folding, English stemming and stop words.
  await table.createIndex('text', { config: lancedb.Index.fts({ stem: true, removeStopWords: true, asciiFolding: true, lowercase: true, withPosition: false }) });
  const indexS = (performance.now() - t0) / 1000;
  const run = (q: string) => table.query().fullTextSearch(q).select(['id']).limit(k).toArray();
  for (const q of queries.slice(0, 10)) await run(q);
  const times: number[] = [];
  for (const q of queries) {
    const s = performance.now();
    await run(q);
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), indexS, version };
}
