import type { Store } from '../../core/store/index.ts';
import { createHybridRetriever, createVectorRetriever } from '../../core/search/index.ts';
import { activeSpace, openQueryModel, openVectorIndex, semanticStatus, type QueryModel } from '../../core/vectors/index.ts';
import type { VectorSearch } from '../engines.ts';
import { unavailable } from '../failure.ts';

/**
 * Vector and hybrid search over the active vector space. Whether they are on depends on the store (vectors built
 * with `contextpack embed`) and on a local model folder, so it is asked each time rather than fixed at start-up;
 * the query model is opened once per active space and reused.
 */
export function createVectorAdapter(store: Store, modelDirs: readonly string[]): VectorSearch {
  const { db } = store;
  let opened: { key: string; model: Promise<QueryModel> } | null = null;

  function queryModel(): Promise<QueryModel> {
    const space = activeSpace(db);
    const key = space ? `${space.id}:${space.fingerprint}` : 'none';
    if (opened?.key !== key) {
      const previous = opened;
      opened = { key, model: openQueryModel(db, modelDirs) };
      void previous?.model.then((m) => (m.ok ? m.embedder.close() : undefined));
    }
    return opened.model;
  }

  return {
    async status() {
      const s = await semanticStatus(db, modelDirs, store.vec.loaded);
      return s.on ? { available: true } : { available: false, reason: s.reason ?? 'semantic search off' };
    },
    async search(req) {
      const m = await queryModel();
      if (!m.ok) throw unavailable(m.reason);
      const index = openVectorIndex(db, m.space.id);
      const embedQuery = (text: string) => m.embedder.embedQuery(text);
      const retriever =
        req.mode === 'vector'
          ? createVectorRetriever(db, { index, embedQuery, mmrLambda: req.mmrLambda })
          : createHybridRetriever(db, { index, embedQuery, ...(req.mmrLambda !== undefined ? { mmrLambda: req.mmrLambda } : { mmrLambda: 1 }) });
      return retriever.search({ text: req.text, k: req.k, filters: req.filters });
    },
  };
}
