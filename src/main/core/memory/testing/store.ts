import { join } from 'node:path';
import { openStore, type Store } from '../../store/index.ts';
import { coreMigration } from '../../store/migrations/001-core.ts';
import { memoryMigration } from '../../store/migrations/020-memory.ts';
import { rootsMigration } from '../../store/migrations/040-roots.ts';
import { tempDirs } from '../../testing/tmp.ts';

/** Only the migrations memory and hierarchy need, so these tests do not depend on other capabilities' work. */
// Roots come with the core tables: ingest files every source under one.
export const MEMORY_MIGRATIONS = [coreMigration, memoryMigration, rootsMigration];

export function memoryStores(prefix = 'cp-mem-') {
  const tmp = tempDirs(prefix);
  const opened: Store[] = [];
  return {
    open(name = 'memory.db'): Store {
      const s = openStore(join(tmp.make(), name), { migrations: MEMORY_MIGRATIONS, loadVec: false });
      opened.push(s);
      return s;
    },
    dir: () => tmp.make(),
    cleanup(): void {
      for (const s of opened.splice(0)) s.close();
      tmp.cleanup();
    },
  };
}

/** A settable clock for lifecycle and ranking tests. */
export function fixedClock(iso: string) {
  let t = Date.parse(iso);
  return {
    now: () => new Date(t),
    set: (next: string) => void (t = Date.parse(next)),
    advanceDays: (d: number) => void (t += d * 86_400_000),
  };
}
