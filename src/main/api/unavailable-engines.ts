import type { Store } from '../core/store/index.ts';
import type { Engines } from './engines.ts';

/**
 * Wires the engine parts that exist. Parts still being built elsewhere are reported as off, with the reason the
 * UI shows, until their core modules land and an adapter here replaces the string.
 */
export function createEngines(_store: Store): Engines {
  return {
    vector: 'vector and hybrid search are not built yet (issue #3); BM25 works',
    decisions: 'decisions are not built yet (issue #4)',
    hierarchy: 'the L1–L4 hierarchy is not built yet (issue #4)',
    packets: 'context packets are not built yet (issue #5)',
  };
}
