import type { Store } from '../core/store/index.ts';
import { bm25Fallback, chooseRetriever, createBm25Retriever, type Retriever, type RetrievalOverrides } from '../core/search/index.ts';
import { withGated } from '../core/search/gated-hit.ts';
import { createMemoryAdapter } from './adapters/memory.ts';
import { storeStats } from '../core/stats.ts';
import { createProjectsHandlers } from './adapters/projects.ts';
import type { ApiOutput } from '../../shared/api/index.ts';
import type { ApiHandlers } from './dispatch.ts';
import { renameSync, writeFileSync } from 'node:fs';
import { makeDir } from '../core/store/make-dir.ts';
import { join } from 'node:path';
import { getSettings, SettingsError, updateSettings } from '../core/settings/index.ts';
import { chunkContext, listSources, sourceChunks } from './corpus.ts';
import { createSessionHandlers } from './adapters/sessions.ts';
import { createDecisionFileHandlers } from './adapters/decision-files.ts';
import { createGoalsHandlers } from './adapters/goals.ts';
import { createRedactHandlers } from './adapters/redact.ts';
import { capabilities, type Engines } from './engines.ts';
import { ApiFailure, unavailable } from './failure.ts';
import type { Library } from './library.ts';
import type { Models } from './adapters/models.ts';
import type { LiveLibrary } from './watch.ts';
import { citedReport, resolveUnderRoots } from './refresh.ts';
import type { EmbedRuns } from './embed.ts';

export interface ApiDeps {
  store: Store;
  dataDir: string;
  version: string;
  transport: 'ipc' | 'http' | 'mcp' | 'cli';
  engines: Engines;
  /** Folders searched for a local embedding model (stats report why semantic search is off). */
  modelDirs?: readonly string[];
  /** Benchmarks: settings for search.query's best retriever (ApiOptions.retrieval); unset: the defaults. */
  retrieval?: RetrievalOverrides;
  /** Ingest jobs; the API owns it so that closing the API can stop a running ingest before the store closes. */
  library: Library;
  /** Registered embedding models: listing, downloads, choosing one. */
  models: Models;
  /** The ContextPack home and the open project (null when one database file was named); switchTo when this window may switch. */
  projects?: { home: string; current: string | null; switchTo?: (name: string) => Promise<void> };
  /** Embedding runs on request (library.embed). */
  embedRuns: EmbedRuns;
  /** The handoff worker entry of the desktop bundle; plain Node uses the source file (handoff-offload.ts). */
  handoffWorkerUrl?: URL;
  /** Roots and the watcher (#12). */
  live: LiveLibrary;
  /** Serve mode with `--root`: which paths decision files may be read from and written to; undefined: any. */
  allowedPaths?: (path: string) => boolean;
  /** Desktop-only abilities; absent in serve mode, where the browser does these itself. */
  desktop?: {
    pickPaths(kind: 'files' | 'folders'): Promise<string[]>;
    copyText(text: string): void;
  };
}

/** One handler map for both transports (ipcMain.handle and HTTP); inputs arrive validated by the dispatcher. */
export function createApiHandlers(deps: ApiDeps): ApiHandlers {
  const { store, engines, library } = deps;
  const bm25 = createBm25Retriever(store.db);
  const memory = createMemoryAdapter(store.db);
  const openSemantic = () =>
    typeof engines.vector === 'string' ? Promise.resolve({ ok: false as const, reason: engines.vector }) : engines.vector.semantic();
  const need = <T extends object>(engine: T | string): T => {
    if (typeof engine === 'string') throw unavailable(engine);
    return engine;
  };
  const desktop = () => {
    if (!deps.desktop) throw unavailable('only in the desktop app; the browser does this itself');
    return deps.desktop;
  };

  return {
    'app.info': async () => ({
      version: deps.version,
      transport: deps.transport,
      dataDir: deps.dataDir,
      dbPath: store.path,
      capabilities: await capabilities(engines),
    }),
    'stats.get': async () => ({ ...(await storeStats(store, deps.modelDirs ?? [])), integrity: store.readOnlyReason ? 'damaged' : store.integrity }),
    'sources.list': async () => listSources(store.db),
    'library.ingest': (input) => library.ingest(input.paths, input),
    'library.import': (input) => library.importFiles(input.files, input.batch, input.skipped),
    'library.rescan': (input) => library.rescan(input),
    'library.refresh': async (input) => {
      const { roots, absolute } = resolveUnderRoots(store.db, input.paths ?? []);
      const report = absolute.length === 0 ? await library.rescan() : await library.ingest(absolute);
      return citedReport(store.db, report, roots);
    },
    'library.embed': (input) => deps.embedRuns.embed(input),
    'sources.remove': (input) => library.removeSource(input.id),
    'sources.reindex': (input) => library.reindexSource(input.id),
    'sources.chunks': async (input) => sourceChunks(store.db, input.path),
    'settings.get': async () => getSettings(store.db),
    'settings.set': async (input) => {
      try {
        return updateSettings(store.db, input);
      } catch (err) {
        if (err instanceof SettingsError) throw new ApiFailure('invalid_input', err.message, [{ field: err.field, message: err.message }]);
        throw err;
      }
    },
    'search.query': async (input): Promise<ApiOutput<'search.query'>> => {
      const mode = input.mode ?? 'best';
      const k = input.k ?? 20;
      const query = { text: input.query, k, filters: input.filters };
      const answer = async (retriever: Retriever, fallbackReason: string | null): Promise<ApiOutput<'search.query'>> => ({
        mode: retriever.mode,
        // Each hit carries its gated fields: the workbench masks secrets by default (issue #10).
        hits: (await retriever.search(query)).map((h) => withGated(h)),
        retrieval: { fusion: retriever.params?.fusion ?? null, mmr: retriever.params?.mmr ?? null, fallback_reason: fallbackReason },
      });
      // Best available, as packets retrieve: hybrid when the vectors are complete and the model is here, else bm25.
      if (mode === 'best') {
        const choice = await chooseRetriever({ db: store.db, vec: store.vec, openSemantic, bm25 }, { ...deps.retrieval, purpose: 'search', mmrLambda: input.mmrLambda });
        return answer(choice.retriever, choice.fallbackReason);
      }
      // bm25 with a λ: MMR over the chunks' own words (no vectors needed).
      if (mode === 'bm25') return answer(bm25Fallback(bm25, { purpose: 'search', mmrLambda: input.mmrLambda }), null);
      const hits = await need(engines.vector).search({ text: input.query, k, mode, mmrLambda: input.mmrLambda, filters: input.filters });
      // Each hit carries its gated fields: the workbench masks secrets by default (issue #10).
      return { mode, hits: hits.map((h) => withGated(h)) };
    },
    'chunks.context': async (input) => chunkContext(store.db, input.chunkId, input.radius),
    'decisions.list': async (input) => need(engines.decisions).list(input),
    'decisions.create': async (input) => need(engines.decisions).create(input),
    'decisions.supersede': async (input) => need(engines.decisions).supersede(input),
    'decisions.exportMarkdown': async (input) => {
      const out = need(engines.decisions).exportMarkdown(input);
      if (!input.write) return out;
      // The desktop app has a folder to write to; the toast names it. (The browser downloads the text instead.)
      const path = join(deps.dataDir, 'exports', 'decisions.md');
      makeDir(join(deps.dataDir, 'exports'), 0o777);
      writeFileSync(`${path}.tmp`, out.markdown);
      renameSync(`${path}.tmp`, path);
      return { ...out, path };
    },
    'hierarchy.tree': async () => need(engines.hierarchy).tree(),
    'hierarchy.summary': async (input) => need(engines.hierarchy).setSummary(input),
    'hierarchy.show': async (input) => need(engines.hierarchy).show(input.marker),
    'memory.create': async (input) => memory.create(input),
    'memory.rehydrate': async (input) => memory.rehydrate(input),
    'packets.build': (input) => need(engines.packets).build(input),
    'packets.list': async (input) => need(engines.packets).list(input),
    'packets.get': async (input) => need(engines.packets).get(input.hash, input),
    'packets.replay': (input) => need(engines.packets).replay(input.hash),
    'models.list': () => deps.models.list(),
    'models.download': async (input) => deps.models.download(input.modelId, input.allowUnverified === true),
    'models.cancel': async (input) => deps.models.cancel(input.modelId),
    'models.use': (input) => deps.models.use(input.modelId),
    'roots.list': async () => deps.live.roots(),
    'roots.setWatch': (input) => deps.live.setWatch(input.rootId, input.watch),
    'watch.status': async () => deps.live.status(),
    'desktop.pickPaths': (input) => desktop().pickPaths(input.kind),
    'desktop.copyText': async (input) => {
      desktop().copyText(input.text);
      return { copied: input.text.length };
    },
    // An in-memory store has no folder for logs/redaction.jsonl.
    ...createSessionHandlers(store.db, { dbPath: store.path === ':memory:' ? undefined : store.path, handoffWorkerUrl: deps.handoffWorkerUrl }),
    ...createDecisionFileHandlers(store.db, { allowed: deps.allowedPaths }),
    ...createGoalsHandlers(store.db),
    ...createRedactHandlers(),
    ...createProjectsHandlers(deps.projects),
  };
}
