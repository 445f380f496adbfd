import type { IngestProgress } from '../types.ts';
import type { ApiEventName } from './methods.ts';

/** Pushed from main to the renderer: `webContents.send` in Electron, Server-Sent Events in serve mode. */
export interface ApiEvents {
  'ingest.progress': IngestProgress & { jobId: number };
}

export interface ApiEvent<E extends ApiEventName = ApiEventName> {
  name: E;
  payload: ApiEvents[E];
}
