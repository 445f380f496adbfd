import { create } from 'zustand';
import type { ChunkContext } from '../../../shared/api/index.ts';
import type { SearchFilters, SearchHit, SearchMode } from '../../../shared/types.ts';
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
  /** The hit the keyboard is on (and the one opened), or -1. */
  active: number;
  set(patch: Partial<Pick<SearchState, 'query' | 'mode' | 'mmrLambda'>>): void;
  search(filters?: SearchFilters): Promise<void>;
  open(index: number): Promise<void>;
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
  active: -1,
  set: (patch) => set(patch),
  search: async (filters) => {
    const { query, mode, mmrLambda } = get();
    if (query.trim() === '') return;
    set({ loading: true, error: null });
    try {
      const r = await api().call('search.query', { query, mode, k: 50, ...(mmrLambda !== null && mode !== 'bm25' ? { mmrLambda } : {}), ...(filters ? { filters } : {}) });
      set({ hits: r.hits, searched: query, context: null, active: -1 });
    } catch (err) {
      set({ error: errorText(err), hits: [] });
    } finally {
      set({ loading: false });
    }
  },
  open: async (index) => {
    const hit = get().hits[index];
    if (!hit) return;
    set({ active: index });
    try {
      const context = await api().call('chunks.context', { chunkId: hit.chunkId, radius: 3 });
      // A later open wins: arrows can outrun the engine.
      if (get().active === index) set({ context });
    } catch (err) {
      set({ error: errorText(err) });
    }
  },
  closeContext: () => set({ context: null }),
}));
