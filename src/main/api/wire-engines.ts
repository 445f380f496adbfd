import type { WorkerDeps } from '../core/embed/embedder.ts';
import type { Store } from '../core/store/index.ts';
import { chooseRetriever, createBm25Retriever, type RetrievalOverrides } from '../core/search/index.ts';
import { createDecisionsAdapter } from './adapters/decisions.ts';
import { createHierarchyAdapter } from './adapters/hierarchy.ts';
import { createPacketsAdapter } from './adapters/packets.ts';
import { createVectorAdapter } from './adapters/vector.ts';
import type { Engines } from './engines.ts';

export interface EngineDeps {
  now?: () => Date;
  /** Folders holding local embedding models (see core/embed/model-dirs.ts); none → vector search stays off. */
  modelDirs?: readonly string[];
  /** Where the query embedder's worker comes from: the desktop bundle passes its own entry (see desktop.ts). */
  embedWorker?: WorkerDeps;
  /** Benchmarks: settings for the packets' best retriever (ApiOptions.retrieval); unset: the defaults. */
  retrieval?: RetrievalOverrides;
}

/**
 * Wires the engine parts into the API. An engine given as a string instead is reported as off with that reason
 * (the UI shows it); vector search decides per call, from the store and the model folders.
 */
export function createEngines(store: Store, deps: EngineDeps = {}): Engines {
  const vector = createVectorAdapter(store, deps.modelDirs ?? [], deps.embedWorker);
  const bm25 = createBm25Retriever(store.db);
  return {
    vector,
    decisions: createDecisionsAdapter(store.db, deps),
    hierarchy: createHierarchyAdapter(store.db, deps),
    packets: createPacketsAdapter(store.db, {
      ...deps,
      // An in-memory store has no folder to keep the audit logs beside.
      dbPath: store.path === ':memory:' ? undefined : store.path,
      retrieval: () => chooseRetriever({ db: store.db, vec: store.vec, openSemantic: () => vector.semantic(), bm25 }, { ...deps.retrieval, purpose: 'packet' }),
    }),
  };
}
