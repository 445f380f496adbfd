import { create } from 'zustand';
import type { ChunkContext } from '../../../shared/api/index.ts';
import type { SearchHit, SearchMode } from '../../../shared/types.ts';
import { api, errorText } from '../api/client.ts';

interface SearchState {
  query: string;
  mode: SearchMode;
  /** null: no MMR (plain ranking). */
  mmrLambda: number | null;
  hits: SearchHit[];
  searched: string | null;
  error: string | null;
  loading: boolean;
  context: ChunkContext | null;
  set(patch: Partial<Pick<SearchState, 'query' | 'mode' | 'mmrLambda'>>): void;
  search(): Promise<void>;
  open(chunkId: number): Promise<void>;
  closeContext(): void;
}

export const useSearch = create<SearchState>((set, get) => ({
  query: '',
  mode: 'bm25',
  mmrLambda: null,
  hits: [],
  searched: null,
  error: null,
  loading: false,
  context: null,
  set: (patch) => set(patch),
  search: async () => {
    const { query, mode, mmrLambda } = get();
    if (query.trim() === '') return;
    set({ loading: true, error: null });
    try {
      const r = await api().call('search.query', { query, mode, k: 50, ...(mmrLambda !== null && mode !== 'bm25' ? { mmrLambda } : {}) });
      set({ hits: r.hits, searched: query, context: null });
    } catch (err) {
      set({ error: errorText(err), hits: [] });
    } finally {
      set({ loading: false });
    }
  },
  open: async (chunkId) => {
    try {
      set({ context: await api().call('chunks.context', { chunkId, radius: 3 }) });
    } catch (err) {
      set({ error: errorText(err) });
    }
  },
  closeContext: () => set({ context: null }),
}));
