import type { Store } from '../core/store/index.ts';
import { chooseRetriever, openSemanticSearch, type RetrievalChoice, type RetrievalOptions, type SemanticSearch } from '../core/search/index.ts';
import { defaultModelDirs } from '../paths.ts';

export interface CliRetrieval extends RetrievalChoice {
  /** Releases the query model when one was opened. */
  close(): Promise<void>;
}

/**
 * The retriever factory for one CLI run: the query model is opened in-process, and only when the store has a
 * complete vector space, so BM25-only stores never load transformers.js.
 */
export async function cliRetrieval(store: Store, env: NodeJS.ProcessEnv, options: RetrievalOptions): Promise<CliRetrieval> {
  let engine: SemanticSearch | undefined;
  const choice = await chooseRetriever(
    {
      db: store.db,
      vec: store.vec,
      openSemantic: async () => {
        const opened = await openSemanticSearch(store.db, { dirs: defaultModelDirs(env), inProcess: true });
        if (opened.ok) engine = opened.engine;
        return opened;
      },
    },
    options,
  );
  return { ...choice, close: async () => engine?.close() };
}
