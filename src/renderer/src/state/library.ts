import { create } from 'zustand';
import type { IngestProgress, IngestReport, LibraryChange, RootRecord, SourceRecord, StoreStats, WatchStatus } from '../../../shared/types.ts';
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
  /** When the running embedding was first seen, and how far it was then: the rate and time left count from here. */
  embeddingSince: { at: number; done: number } | null;
  onEmbedProgress(p: EmbedProgress): void;
  /** Indexed roots with their watch switch, and the watcher's live status line. */
  roots: RootRecord[];
  watch: WatchStatus | null;
  lastChange: LibraryChange | null;
  setWatch(rootId: number, on: boolean): Promise<void>;
  onLibraryChanged(c: LibraryChange): void;
  onWatchStatus(s: WatchStatus): void;
}

// Batches can arrive back to back (a burst, several roots): one refresh for what lands within this window.
let refreshTimer: ReturnType<typeof setTimeout> | null = null;

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
      const [sources, stats, roots, watch] = await Promise.all([
        api().call('sources.list', {}),
        api().call('stats.get', {}),
        api().call('roots.list', {}),
        api().call('watch.status', {}),
      ]);
      set({ sources, stats, roots, watch });
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
  roots: [],
  watch: null,
  lastChange: null,
  setWatch: async (rootId, on) => {
    try {
      const root = await api().call('roots.setWatch', { rootId, watch: on });
      set((s) => ({ roots: s.roots.map((r) => (r.id === root.id ? root : r)) }));
      set({ watch: await api().call('watch.status', {}) });
    } catch (err) {
      set({ error: errorText(err) });
    }
  },
  onLibraryChanged: (lastChange) => {
    set({ lastChange });
    if (refreshTimer) clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      void get().refresh();
    }, 150);
  },
  onWatchStatus: (watch) => set({ watch }),
  embedding: null,
  embeddingSince: null,
  onEmbedProgress: (embedding) => {
    const since = get().embeddingSince;
    const running = embedding.state === 'running';
    set({ embedding, embeddingSince: running ? (since && get().embedding?.state === 'running' ? since : { at: Date.now(), done: embedding.done }) : null });
    // Vector coverage shows in the stats notices; refresh them when a run ends.
    if (embedding.state !== 'running') void get().refresh();
  },
}));
