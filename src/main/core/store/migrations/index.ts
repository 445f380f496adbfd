import type { Migration } from '../migrate.ts';
import { coreMigration } from './001-core.ts';
import { vectorsMigration } from './010-vectors.ts';
import { memoryMigration } from './020-memory.ts';
import { packetsMigration } from './030-packets.ts';
import { rootsMigration } from './040-roots.ts';
import { sessionsMigration } from './050-sessions.ts';
import { goalsMigration } from './060-goals.ts';
import { docFieldsMigration } from './070-doc-fields.ts';
import { settingsMigration } from './080-settings.ts';

/** Every capability's migrations, in one list; each capability owns its own version range (see Migration). */
export const migrations: readonly Migration[] = [coreMigration, vectorsMigration, memoryMigration, packetsMigration, rootsMigration, sessionsMigration, goalsMigration, docFieldsMigration, settingsMigration];
