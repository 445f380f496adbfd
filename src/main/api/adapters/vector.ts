import type { WorkerDeps } from '../../core/embed/embedder.ts';
import type { Store } from '../../core/store/index.ts';
import { openSemanticSearch, type OpenSemanticSearch } from '../../core/search/index.ts';
import { semanticStatus } from '../../core/vectors/index.ts';
import type { VectorSearch } from '../engines.ts';
import { unavailable } from '../failure.ts';

/**
 * Vector and hybrid search over the active vector space, through the one semantic search engine the CLI uses:
 * it keeps the query model and the vector index open, and follows a swap to a re-embedded space by itself.
 * Whether search is on depends on the store (vectors built) and on a local model folder, so the engine is opened
 * on the first search, and opened again on a later one when the last open failed (a model may have been added).
 */
export function createVectorAdapter(store: Store, modelDirs: readonly string[], worker?: WorkerDeps): VectorSearch {
  const { db } = store;
  let opening: Promise<OpenSemanticSearch> | null = null;
  let closed = false;

  function engine(): Promise<OpenSemanticSearch> {
    if (!opening) {
      const attempt = openSemanticSearch(db, { dirs: modelDirs, worker });
      opening = attempt;
      // A failed open is not kept: the next search tries again instead of answering the same reason until restart.
      const forget = () => {
        if (opening === attempt) opening = null;
      };
      attempt.then((r) => (r.ok ? undefined : forget()), forget);
    }
    return opening;
  }

  return {
    async status() {
      const s = await semanticStatus(db, modelDirs, store.vec.loaded);
      return s.on ? { available: true } : { available: false, reason: s.reason ?? 'semantic search off' };
    },
    async search(req) {
      if (closed) throw unavailable('semantic search is closed (the app is shutting down)');
      const opened = await engine();
      if (!opened.ok) throw unavailable(opened.reason);
      // No λ → the retriever's default: MMR 0.5 for hybrid (as in the CLI and docs/semantic-search.md), none for vector.
      return opened.engine.search({ text: req.text, k: req.k, mode: req.mode, mmrLambda: req.mmrLambda, filters: req.filters });
    },
    async semantic() {
      if (closed) return { ok: false, reason: 'semantic search is closed (the app is shutting down)' };
      return engine();
    },
    async close() {
      closed = true;
      const pending = opening;
      opening = null;
      const opened = await pending?.catch(() => null);
      if (opened?.ok) await opened.engine.close();
    },
  };
}
