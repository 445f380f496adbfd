import { basename, dirname, join } from 'node:path';

/** A database's own data folder: `FILE-data/` beside `FILE.db` (logs, and for --db also uploads and exports). */
export function dataFolderOf(dbPath: string): string {
  return join(dirname(dbPath), `${basename(dbPath).replace(/\.db$/, '')}-data`);
}
