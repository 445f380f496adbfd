import { create } from 'zustand';
import type { IngestProgress, IngestReport, SourceRecord, StoreStats } from '../../../shared/types.ts';
import type { EmbedProgress } from '../../../shared/api/index.ts';
import { api, errorText } from '../api/client.ts';

interface LibraryState {
  sources: SourceRecord[];
  stats: StoreStats | null;
  busy: null | 'uploading' | 'indexing';
  progress: IngestProgress | null;
  report: IngestReport | null;
  error: string | null;
  refresh(): Promise<void>;
  /** Runs one ingest (drop, picker, rescan) and keeps its report; progress arrives as events meanwhile. */
  run(label: 'uploading' | 'indexing', job: () => Promise<IngestReport>): Promise<IngestReport | null>;
  onProgress(p: IngestProgress): void;
  /** Background embedding after an ingest (desktop or serve with a local model). */
  embedding: EmbedProgress | null;
  onEmbedProgress(p: EmbedProgress): void;
}

export const useLibrary = create<LibraryState>((set, get) => ({
  sources: [],
  stats: null,
  busy: null,
  progress: null,
  report: null,
  error: null,
  refresh: async () => {
    try {
      const [sources, stats] = await Promise.all([api().call('sources.list', {}), api().call('stats.get', {})]);
      set({ sources, stats });
    } catch (err) {
      set({ error: errorText(err) });
    }
  },
  run: async (label, job) => {
    set({ busy: label, progress: null, error: null, report: null });
    try {
      const report = await job();
      set({ report });
      return report;
    } catch (err) {
      set({ error: errorText(err) });
      return null;
    } finally {
      set({ busy: null });
      await get().refresh();
    }
  },
  onProgress: (progress) => set((s) => ({ progress, busy: s.busy === 'uploading' ? 'indexing' : s.busy })),
  embedding: null,
  onEmbedProgress: (embedding) => {
    set({ embedding });
    // Vector coverage shows in the stats notices; refresh them when a run ends.
    if (embedding.state !== 'running') void get().refresh();
  },
}));
