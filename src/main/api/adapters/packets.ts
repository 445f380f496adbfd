import type { Database } from 'better-sqlite3';
import {
  assemble,
  createStoreSources,
  getPacket,
  listPackets,
  PacketRequestError,
  renderPacket,
  replay,
  SnapshotNotFoundError,
  type AssembleDeps,
} from '../../core/packet/index.ts';
import type { PacketView } from '../../../shared/api/index.ts';
import type { PacketsEngine } from '../engines.ts';
import { ApiFailure } from '../failure.ts';

export interface PacketsAdapterDeps {
  /** Defaults to the engine's own (RE2 rules); the desktop app passes one built on its Electron RE2 build. */
  redactor?: AssembleDeps['redactor'];
  now?: () => Date;
}

async function mapErrors<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof PacketRequestError) throw new ApiFailure('invalid_input', err.message, [{ field: err.field, message: err.message }]);
    if (err instanceof SnapshotNotFoundError) throw new ApiFailure('not_found', err.message);
    throw err;
  }
}

export function createPacketsAdapter(db: Database, deps: PacketsAdapterDeps = {}): PacketsEngine {
  // Sources are built per call: the store's tables (memories, hierarchy) may appear after start-up via migrations.
  const assembleDeps = (): Omit<AssembleDeps, 'db'> => ({ sources: createStoreSources(db), redactor: deps.redactor, now: deps.now });
  return {
    build: (input) =>
      mapErrors(async (): Promise<PacketView> => {
        const { bytes: _bytes, ...rest } = await assemble(input, { ...assembleDeps(), db }, 'md');
        return rest;
      }),
    list: (input) => listPackets(db, { limit: input.limit ?? 200 }),
    get: (hash) => {
      try {
        const p = getPacket(db, hash);
        return { hash: p.hash, packet: p.packet, manifest: p.manifest, text: renderPacket(p.packet, p.hash, 'md'), format: 'md' };
      } catch (err) {
        if (err instanceof SnapshotNotFoundError) throw new ApiFailure('not_found', err.message);
        throw err;
      }
    },
    replay: (hash) =>
      mapErrors(async () => {
        const r = await replay(db, hash, { reassemble: true }, assembleDeps());
        return r.diff!;
      }),
  };
}
