// The Models panel's engine side: which registered models are installed, the active vector space, and downloads
// that run in the background with progress events, then hand over to the embedding job.
import type { Database } from 'better-sqlite3';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelEntry, ModelsView } from '../../../shared/api/index.ts';
import type { ApiEvent, ModelDownloadProgress } from '../../../shared/api/events.ts';
import { DownloadCancelled, downloadModel, readDownloadRecord, UnverifiedRefused } from '../../core/embed/download.ts';
import type { WorkerDeps } from '../../core/embed/embedder.ts';
import { MODEL_SPECS } from '../../core/embed/models.ts';
import { probeModel } from '../../core/embed/probe.ts';
import { semanticStatus, setConfiguredModelId } from '../../core/vectors/index.ts';
import { ApiFailure, unavailable } from '../failure.ts';

export type ModelsDeps = {
  db: Database;
  vecLoaded: boolean;
  modelDirs: readonly string[];
  /** Where downloads are installed; absent: this window lists models but cannot download. */
  downloadDir?: string;
  baseUrl: string;
  emit: (e: ApiEvent) => void;
  /** Starts (or schedules) embedding with the configured model. */
  embed?: () => void;
  fetch?: typeof fetch;
  /** Where the embedding worker is (the probe of a downloaded set runs there, off the main thread). */
  embedWorker?: WorkerDeps;
};

function folderBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? folderBytes(p) : statSync(p).size;
  }
  return total;
}

export function createModels(deps: ModelsDeps) {
  const downloads = new Map<string, { abort: AbortController; last: ModelDownloadProgress; running: Promise<void> }>();
  const known = (modelId: string) => {
    if (!MODEL_SPECS[modelId]) throw new ApiFailure('invalid_input', `${modelId} is not a model ContextPack knows (${Object.keys(MODEL_SPECS).join(', ')})`, [{ field: 'modelId', message: 'not a registered model' }]);
    return modelId;
  };

  async function list(): Promise<ModelsView> {
    const status = await semanticStatus(deps.db, deps.modelDirs, deps.vecLoaded);
    const models: ModelEntry[] = [];
    for (const spec of Object.values(MODEL_SPECS)) {
      const probe = await probeModel({ modelId: spec.id, dirs: deps.modelDirs });
      const d = downloads.get(spec.id);
      models.push({
        id: spec.id,
        dims: probe.ok ? probe.dims : spec.dims,
        installed: probe.ok,
        ...(probe.ok ? { dir: probe.dir, sizeBytes: folderBytes(probe.dir) } : {}),
        ...(probe.ok && (await readDownloadRecord(probe.dir))?.unverified ? { unverified: true } : {}),
        ...(d ? { download: d.last } : {}),
      });
    }
    const active = status.active;
    return {
      configured: status.configuredModelId,
      semantic: {
        on: status.on,
        ...(status.reason ? { reason: status.reason } : {}),
        ...(active ? { active: { modelId: active.space.modelId, dims: active.space.dims, vectors: active.vectors, chunks: active.chunks } } : {}),
      },
      downloadDir: deps.downloadDir ?? null,
      baseUrl: deps.baseUrl,
      models,
    };
  }

  function download(modelId: string, allowUnverified = false): { started: boolean } {
    known(modelId);
    const downloadDir = deps.downloadDir;
    if (!downloadDir) throw unavailable('this window has no models folder to download into');
    if (downloads.get(modelId)?.last.state === 'downloading') return { started: false };
    const abort = new AbortController();
    const emit = (p: ModelDownloadProgress) => {
      entry.last = p;
      deps.emit({ name: 'models.progress', payload: p });
    };
    const entry = {
      abort,
      last: { modelId, state: 'downloading', fileIndex: 0, fileCount: 0, bytes: 0, totalBytes: null } as ModelDownloadProgress,
      running: Promise.resolve(),
    };
    downloads.set(modelId, entry);
    entry.running = (async () => {
      try {
        await downloadModel(
          { modelId, modelsDir: downloadDir, baseUrl: deps.baseUrl, signal: abort.signal, onProgress: emit, allowUnverified },
          { fetch: deps.fetch ?? fetch, ...(deps.embedWorker ? { embedWorker: deps.embedWorker } : {}) },
        );
        // The user asked for this model: new vectors are made with it, and searches switch once it covers every chunk.
        setConfiguredModelId(deps.db, modelId);
        deps.embed?.();
      } catch (err) {
        const cancelled = err instanceof DownloadCancelled;
        emit({ ...entry.last, state: cancelled ? 'cancelled' : 'failed', error: (err as Error).message, ...(err instanceof UnverifiedRefused ? { needsConfirmation: 'unverified' as const } : {}) });
      }
    })();
    return { started: true };
  }

  return {
    list,
    download,
    cancel(modelId: string): { cancelled: boolean } {
      const d = downloads.get(known(modelId));
      if (!d || d.abort.signal.aborted || !['downloading', 'verifying'].includes(d.last.state)) return { cancelled: false };
      d.abort.abort();
      return { cancelled: true };
    },
    async use(modelId: string): Promise<{ configured: string }> {
      const probe = await probeModel({ modelId: known(modelId), dirs: deps.modelDirs });
      if (!probe.ok) throw new ApiFailure('not_found', `${modelId} is not installed: ${probe.reason}`, [{ field: 'modelId', message: 'not installed' }]);
      setConfiguredModelId(deps.db, modelId);
      deps.embed?.();
      return { configured: modelId };
    },
    /** Cancels running downloads (they resume next time) and waits for them to stop. */
    async close(): Promise<void> {
      for (const d of downloads.values()) d.abort.abort();
      await Promise.all([...downloads.values()].map((d) => d.running));
    },
  };
}

export type Models = ReturnType<typeof createModels>;
