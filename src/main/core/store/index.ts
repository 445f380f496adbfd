export { openStore, getMeta, setMeta, explainStoreError, StoreOpenError, StoreReadOnlyError, type Store, type OpenStoreOptions } from './open.ts';
export { applyMigrations, listAppliedMigrations, unknownMigrationVersions, type Migration, type AppliedMigration } from './migrate.ts';
export { migrations } from './migrations/index.ts';
export { makeDir, explainMkdir, MakeDirError } from './make-dir.ts';
