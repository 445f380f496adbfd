export { openStore, getMeta, setMeta, type Store, type OpenStoreOptions } from './open.ts';
export { applyMigrations, listAppliedMigrations, type Migration, type AppliedMigration } from './migrate.ts';
export { migrations } from './migrations/index.ts';
