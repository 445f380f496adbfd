import type { Migration } from '../migrate.ts';

// Project settings the user edits (the workbench's settings, `contextpack settings`): one JSON value per key. Kept
// apart from `meta`, which holds the engine's own bookkeeping.
export const settingsMigration: Migration = {
  version: 80,
  name: 'settings: project key-value settings',
  up: `
    CREATE TABLE settings (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
  `,
};
