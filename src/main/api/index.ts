import type { Store } from '../core/store/index.ts';
import { createDispatcher, type Dispatch } from './dispatch.ts';
import { createEventHub, type EventHub } from './event-hub.ts';
import { createApiHandlers, type ApiDeps } from './handlers.ts';
import type { Engines } from './engines.ts';
import { createEngines } from './wire-engines.ts';

export { createDispatcher, fieldIssues, type ApiHandlers, type Dispatch } from './dispatch.ts';
export { createApiHandlers, type ApiDeps } from './handlers.ts';
export { createEventHub, type EventHub } from './event-hub.ts';
export { ApiFailure } from './failure.ts';
export type { Engines } from './engines.ts';

export interface ApiOptions {
  store: Store;
  dataDir: string;
  version: string;
  transport: 'ipc' | 'http';
  desktop?: ApiDeps['desktop'];
  engines?: Engines;
  modelDirs?: readonly string[];
  onError?: (method: string, err: unknown) => void;
}

export interface Api {
  dispatch: Dispatch;
  events: EventHub;
}

/** Everything a transport needs: the validated dispatcher over the one handler map, and the event hub. */
export function createApi(options: ApiOptions): Api {
  const events = createEventHub();
  const handlers = createApiHandlers({
    store: options.store,
    dataDir: options.dataDir,
    version: options.version,
    transport: options.transport,
    engines: options.engines ?? createEngines(options.store, { modelDirs: options.modelDirs }),
    emit: events.emit,
    desktop: options.desktop,
  });
  return { dispatch: createDispatcher(handlers, options.onError), events };
}
