import { join } from 'node:path';
import { explainStoreError, StoreReadOnlyError, type Store } from '../core/store/index.ts';
import { createDispatcher, type ApiHandlers } from './dispatch.ts';
import { createEventHub } from './event-hub.ts';
import { createApiHandlers, type ApiDeps } from './handlers.ts';
import { closeEngines, type Engines } from './engines.ts';
import { createEngines } from './wire-engines.ts';
import { createBackgroundJobs } from './background.ts';
import { allowedRoots, createLibrary } from './library.ts';
import { createModels } from './adapters/models.ts';
import { DEFAULT_HUB } from '../core/embed/download.ts';
import { ApiFailure } from './failure.ts';
import { createLiveLibrary, type LiveLibrary } from './watch.ts';
import { emitIngestChanges } from './library-events.ts';
import { createEmbedRuns } from './embed.ts';
import type { RetrievalOverrides } from '../core/search/index.ts';

export { createDispatcher, fieldIssues, type ApiHandlers, type Dispatch } from './dispatch.ts';
export { createApiHandlers, type ApiDeps } from './handlers.ts';
export { createEventHub, type EventHub } from './event-hub.ts';
export { ApiFailure } from './failure.ts';
export type { Engines } from './engines.ts';
export { createProjectHost, type ProjectHost, type ProjectsAccess } from './project-host.ts';
export type { Api } from './api-type.ts';
import type { Api } from './api-type.ts';

export interface ApiOptions {
  store: Store;
  dataDir: string;
  version: string;
  transport: 'ipc' | 'http' | 'mcp' | 'cli';
  desktop?: ApiDeps['desktop'];
  engines?: Engines;
  modelDirs?: readonly string[];
  /**
   * Benchmarks (bench/issues.ts --model): what search.query (mode best) and packets.build retrieve with, e.g. hybrid
   * with a given fusion even on a code-heavy store (`ignoreCodeShare`). Given to createEngines when `engines` is not.
   * Unset: the defaults (core/search/best-retriever.ts).
   */
  retrieval?: RetrievalOverrides;
  /** The embedding worker entry of the desktop bundle, for background embedding and for queries; plain Node uses the source file. */
  embedWorkerUrl?: URL;
  /** The handoff worker entry of the desktop bundle; plain Node uses the source file. */
  handoffWorkerUrl?: URL;
  /** Where the Models panel installs downloads (the user-data models folder, also in modelDirs) and where from. */
  modelDownloads?: { dir: string; baseUrl: string; fetch?: typeof fetch };
  /** The ContextPack home and open project, for the projects.* methods (see project-host.ts). */
  projects?: ApiDeps['projects'];
  /** Serve mode: the folders library.ingest may read (`serve --root`); empty refuses every path; undefined allows any. */
  ingestRoots?: readonly string[];
  /** Background work (embedding after ingest, daily memory maintenance); on unless false. */
  background?: boolean;
  /** Follow every root whose watch switch is on (#12); on unless false. Tests pass their debounce. */
  watch?: boolean | { debounceMs?: number; pollMs?: number };
  /** library.embed runs in the caller's thread (the CLI) instead of the embedding worker. */
  embedInProcess?: boolean;
  onError?: (method: string, err: unknown) => void;
}


/** Everything a transport needs: the validated dispatcher over the one handler map, and the event hub. */
export function createApi(options: ApiOptions): Api {
  const events = createEventHub();
  const modelDirs = options.modelDirs ?? [];
  const embedRuns = createEmbedRuns({
    store: options.store,
    modelDirs,
    emit: events.emit,
    inProcess: options.embedInProcess,
    ...(options.embedWorkerUrl ? { embedWorker: { workerUrl: options.embedWorkerUrl } } : {}),
    embeddingElsewhere: () => background?.embedding() ?? false,
  });
  // A damaged store is open read-only: background writers (embedding, maintenance) would only fail.
  const background = options.background === false || options.store.readOnlyReason
    ? null
    : createBackgroundJobs({
        db: options.store.db,
        vecLoaded: options.store.vec.loaded,
        modelDirs,
        emit: events.emit,
        embedWorkerUrl: options.embedWorkerUrl,
        onError: options.onError,
        embeddingElsewhere: () => embedRuns.running(),
      });
  const engines = options.engines ?? createEngines(options.store, { modelDirs, embedWorker: options.embedWorkerUrl ? { workerUrl: options.embedWorkerUrl } : undefined, retrieval: options.retrieval });
  let live: LiveLibrary | null = null;
  const library = createLibrary({
    db: options.store.db,
    importsDir: join(options.dataDir, 'imports'),
    onProgress: (payload) => events.emit({ name: 'ingest.progress', payload }),
    afterIngest: background ? () => void background.embedPending() : undefined,
    ingestRoots: options.ingestRoots,
    afterJob: (r) => {
      emitIngestChanges(options.store.db, r, events.emit);
      void live?.adoptNewRoots().catch((err) => options.onError?.('watch', err));
    },
  });
  const watchOpts = typeof options.watch === 'object' ? options.watch : {};
  live = createLiveLibrary({
    db: options.store.db,
    emit: events.emit,
    exclusive: (work) => library.exclusive(work),
    afterBatch: background ? () => void background.embedPending() : undefined,
    // A store opened read-only (damaged) is not written to by anyone, the watcher included.
    enabled: options.watch !== false && !options.store.readOnlyReason,
    accept: allowedRoots(options.ingestRoots, join(options.dataDir, 'imports')),
    debounceMs: watchOpts.debounceMs,
    pollMs: watchOpts.pollMs,
    onError: options.onError,
  });
  const models = createModels({
    db: options.store.db,
    vecLoaded: options.store.vec.loaded,
    modelDirs,
    ...(options.modelDownloads ? { downloadDir: options.modelDownloads.dir, fetch: options.modelDownloads.fetch } : {}),
    baseUrl: options.modelDownloads?.baseUrl ?? DEFAULT_HUB,
    emit: events.emit,
    embed: background ? () => void background.embedPending() : undefined,
    ...(options.embedWorkerUrl ? { embedWorker: { workerUrl: options.embedWorkerUrl } } : {}),
  });
  const handlers = explainReadOnly(options.store, createApiHandlers({
    store: options.store,
    dataDir: options.dataDir,
    version: options.version,
    transport: options.transport,
    engines,
    modelDirs,
    retrieval: options.retrieval,
    library,
    live,
    embedRuns,
    handoffWorkerUrl: options.handoffWorkerUrl,
    allowedPaths: allowedRoots(options.ingestRoots, join(options.dataDir, 'imports')),
    desktop: options.desktop,
    projects: options.projects,
    models,
  }));
  return {
    dispatch: createDispatcher(handlers, options.onError),
    events,
    interrupt: () => embedRuns.interrupt(),
    close: async () => {
      embedRuns.interrupt();
      // Ingest first: a job that finishes during the drain may still schedule embedding, which the next step stops.
      await live?.close();
      await library.close();
      await models.close();
      await background?.close();
      await closeEngines(engines);
    },
  };
}

// Methods that write files (uploads into imports/) before the database refuses them: refused up front instead.
const FILE_WRITES_BEFORE_STORE = new Set(['library.import', 'library.ingest']);

/** On a store opened read-only because it is damaged, a write answers with that reason instead of SQLite's. */
function explainReadOnly(store: Store, handlers: ApiHandlers): ApiHandlers {
  if (!store.readOnlyReason && !store.db.readonly) return handlers;
  const reason = store.readOnlyReason ?? `database ${store.path} is open read-only; changes are refused`;
  const wrapped: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const [method, handler] of Object.entries(handlers) as [string, (input: unknown) => Promise<unknown>][]) {
    wrapped[method] = async (input) => {
      if (FILE_WRITES_BEFORE_STORE.has(method)) throw new ApiFailure('unavailable', reason);
      try {
        return await handler(input);
      } catch (err) {
        const explained = explainStoreError(store, err);
        throw explained instanceof StoreReadOnlyError ? new ApiFailure('unavailable', explained.message) : err;
      }
    };
  }
  return wrapped as unknown as ApiHandlers;
}
