import type { Store } from '../core/store/index.ts';
import { createDecisionsAdapter } from './adapters/decisions.ts';
import { createHierarchyAdapter } from './adapters/hierarchy.ts';
import { createPacketsAdapter } from './adapters/packets.ts';
import type { Engines } from './engines.ts';

export interface EngineDeps {
  now?: () => Date;
}

/**
 * Wires the engine parts that exist. A part still being built elsewhere is reported as off, with the reason the UI
 * shows, until its core module lands and an adapter here replaces the string.
 */
export function createEngines(store: Store, deps: EngineDeps = {}): Engines {
  return {
    vector: 'vector and hybrid search are not wired in yet (issue #3); BM25 works',
    decisions: createDecisionsAdapter(store.db, deps),
    hierarchy: createHierarchyAdapter(store.db),
    packets: createPacketsAdapter(store.db, deps),
  };
}
