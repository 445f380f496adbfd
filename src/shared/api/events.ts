import type { IngestProgress, LibraryChange, WatchStatus } from '../types.ts';
import type { ApiEventName } from './methods.ts';

/** Pushed from main to the renderer: `webContents.send` in Electron, Server-Sent Events in serve mode. */
export interface EmbedProgress {
  /** `off`: no usable model (reason says why); `running` with counts; `done`; `failed` with the reason. */
  state: 'off' | 'running' | 'done' | 'failed';
  modelId: string;
  done: number;
  total: number;
  reason?: string;
}

/** A model download (the Models panel): per file, then installing, done, failed or cancelled. */
export interface ModelDownloadProgress {
  modelId: string;
  state: 'downloading' | 'verifying' | 'installing' | 'done' | 'failed' | 'cancelled';
  file?: string;
  fileIndex: number;
  fileCount: number;
  bytes: number;
  totalBytes: number | null;
  error?: string;
  /** Failed only because a file has no digest: the user may confirm an unverified model (models.download allowUnverified). */
  needsConfirmation?: 'unverified';
}

export interface ApiEvents {
  'ingest.progress': IngestProgress & { jobId: number };
  'embed.progress': EmbedProgress;
  'models.progress': ModelDownloadProgress;
  /** Files added / updated / removed by one watcher batch or ingest job (paths relative to the root). */
  'library.changed': LibraryChange;
  /** The watcher's status line: roots watched, last change, queue. */
  'watch.status': WatchStatus;
}

/** Discriminated by name, so a listener that checks `e.name` gets that event's payload type. */
export type ApiEvent = { [E in ApiEventName]: { name: E; payload: ApiEvents[E] } }[ApiEventName];
