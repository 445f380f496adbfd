import { create } from 'zustand';
import type { IngestProgress, IngestReport, SourceRecord, StoreStats } from '../../../shared/types.ts';
import type { EmbedProgress } from '../../../shared/api/index.ts';
import { api, errorText } from '../api/client.ts';
import type { UploadOutcome, UploadProgress } from '../api/platform.ts';

export type LibraryReport = IngestReport & Partial<Pick<UploadOutcome, 'ignoredCount' | 'sensitive'>>;

interface LibraryState {
  sources: SourceRecord[];
  stats: StoreStats | null;
  busy: null | 'uploading' | 'indexing';
  progress: IngestProgress | null;
  report: LibraryReport | null;
  error: string | null;
  /** Browser uploads: batches sent so far. */
  upload: UploadProgress | null;
  onUpload(p: UploadProgress): void;
  refresh(): Promise<void>;
  /** Runs one ingest (drop, picker, rescan) and keeps its report; progress arrives as events meanwhile. */
  run(label: 'uploading' | 'indexing', job: () => Promise<LibraryReport>): Promise<LibraryReport | null>;
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
  upload: null,
  onUpload: (upload) => set({ upload }),
  refresh: async () => {
    try {
      const [sources, stats] = await Promise.all([api().call('sources.list', {}), api().call('stats.get', {})]);
      set({ sources, stats });
    } catch (err) {
      set({ error: errorText(err) });
    }
  },
  run: async (label, job) => {
    set({ busy: label, progress: null, error: null, report: null, upload: null });
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
  // While batches are still going up, the server's progress events belong to the final swap-and-index only.
  onProgress: (progress) => set((s) => ({ progress, busy: s.busy === 'uploading' && (!s.upload || s.upload.batch === s.upload.batches) ? 'indexing' : s.busy })),
  embedding: null,
  onEmbedProgress: (embedding) => {
    set({ embedding });
    // Vector coverage shows in the stats notices; refresh them when a run ends.
    if (embedding.state !== 'running') void get().refresh();
  },
}));
