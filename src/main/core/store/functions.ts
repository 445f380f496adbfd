import type { Database } from 'better-sqlite3';
import { pathPasses, relativeToRoot } from '../../../shared/globs.ts';

/** SQL function for include/exclude globs over a source's root-relative path (search and packet filters). */
export const PATH_FILTER_FN = 'cp_path_passes';

/**
 * Registers cp_path_passes(include_json, exclude_json, path, root) on a connection (openStore does, for every one).
 * A JS function, because SQLite's GLOB lets `*` cross folders and cannot say "at any folder boundary"; the engine
 * and the UI share one reading of a glob (src/shared/globs.ts).
 */
export function registerPathFilter(db: Database): void {
  db.function(PATH_FILTER_FN, { deterministic: true }, (include: unknown, exclude: unknown, path: unknown, root: unknown) => {
    const inc = JSON.parse(String(include)) as string[];
    const exc = JSON.parse(String(exclude)) as string[];
    const abs = String(path);
    return pathPasses(relativeToRoot(abs, String(root)), abs, inc, exc) ? 1 : 0;
  });
}
