// Whether semantic search can run, and why not: the one place that ties the configured model, the model folders
// and the vector spaces in the store together, for `search`, `stats`, `embed`, the benchmarks and later the UI.
import type { Database } from 'better-sqlite3';
import { getMeta, setMeta } from '../store/index.ts';
import type { Embedder, WorkerDeps } from '../embed/embedder.ts';
import { DEFAULT_MODEL_ID } from '../embed/models.ts';
import { probeModel, type ModelFound } from '../embed/probe.ts';
import { activeSpace, listSpaces, spaceCoverage, type VectorSpace } from './spaces.ts';

/** meta key holding the model `contextpack embed --model` last chose; searches follow the active space instead. */
export const MODEL_SETTING_KEY = 'embed.model_id';

export function configuredModelId(db: Database): string {
  return getMeta(db, MODEL_SETTING_KEY) ?? DEFAULT_MODEL_ID;
}

export function setConfiguredModelId(db: Database, modelId: string): void {
  setMeta(db, MODEL_SETTING_KEY, modelId);
}

export interface SpaceStatus {
  space: VectorSpace;
  vectors: number;
  chunks: number;
  missing: number;
}

export interface SemanticStatus {
  /** True when vector and hybrid search can run now. */
  on: boolean;
  configuredModelId: string;
  /** Why semantic search is off ("semantic search off: …"), when it is. */
  reason?: string;
  active?: SpaceStatus;
  building: SpaceStatus[];
  /** One line each, for `contextpack stats` and the UI. */
  notices: string[];
}

function describeSpace(db: Database, space: VectorSpace): SpaceStatus {
  const c = spaceCoverage(db, space);
  return { space, vectors: c.vectors, chunks: c.chunks, missing: c.missing + c.otherVersion };
}

/** The model a search must embed its query with: the active space's, checked by fingerprint. */
async function probeActive(space: VectorSpace, dirs: readonly string[]): Promise<ModelFound | { ok: false; reason: string }> {
  const found = await probeModel({ modelId: space.modelId, dirs });
  if (!found.ok) return found;
  if (found.fingerprint !== space.fingerprint || found.dims !== space.dims) {
    return {
      ok: false,
      reason:
        `semantic search off: the stored vectors were made by ${space.modelId} (fingerprint ${space.fingerprint}, ${space.dims}-d), ` +
        `but the model at ${found.dir} is ${found.fingerprint} (${found.dims}-d); run \`contextpack embed\` to re-embed`,
    };
  }
  return found;
}

export async function semanticStatus(db: Database, dirs: readonly string[], vecLoaded = true): Promise<SemanticStatus> {
  const configured = configuredModelId(db);
  const spaces = listSpaces(db);
  const active = spaces.find((s) => s.state === 'active');
  const building = spaces.filter((s) => s.state === 'building').map((s) => describeSpace(db, s));
  const activeStatus = active ? describeSpace(db, active) : undefined;
  const notices: string[] = [];
  let reason: string | undefined;
  if (!vecLoaded) reason = 'semantic search off: sqlite-vec is not loaded';
  else if (!active) {
    const probe = await probeModel({ modelId: configured, dirs });
    reason = probe.ok ? `semantic search off: no vectors yet for ${configured}; run \`contextpack embed\`` : probe.reason;
  } else {
    const probe = await probeActive(active, dirs);
    if (!probe.ok) reason = probe.reason;
  }
  if (reason) notices.push(reason);
  if (activeStatus) {
    const s = activeStatus.space;
    notices.push(
      `vectors    ${s.modelId} (${s.dims}-d, chunker v${s.chunkerVersion}): ${activeStatus.vectors}/${activeStatus.chunks} chunks` +
        (activeStatus.missing > 0 ? ` — ${activeStatus.missing} without a vector, run \`contextpack embed\`` : ''),
    );
  }
  for (const b of building) {
    notices.push(`re-embedding with ${b.space.modelId} (chunker v${b.space.chunkerVersion}): ${b.vectors}/${b.chunks} chunks; searches use the old vectors until it completes`);
  }
  return { on: reason === undefined, configuredModelId: configured, ...(reason ? { reason } : {}), ...(activeStatus ? { active: activeStatus } : {}), building, notices };
}

export type QueryModel = { ok: true; space: VectorSpace; embedder: Embedder } | { ok: false; reason: string };

/**
 * Opens the embedder for the active space's model, or says why semantic search is off. `inProcess` is for the CLI,
 * scripts and benchmarks; the app uses the worker (`worker` says where its entry is when it is not the source file).
 */
export async function openQueryModel(db: Database, dirs: readonly string[], options: { inProcess?: boolean; worker?: WorkerDeps } = {}): Promise<QueryModel> {
  const space = activeSpace(db);
  if (!space) {
    const status = await semanticStatus(db, dirs);
    return { ok: false, reason: status.reason ?? 'semantic search off: no vectors yet; run `contextpack embed`' };
  }
  const found = await probeActive(space, dirs);
  if (!found.ok) return found;
  try {
    // Loaded on demand: transformers.js and onnxruntime are heavy, and BM25-only callers never need them.
    const { openEmbedder, openInProcessEmbedder } = await import('../embed/embedder.ts');
    // Queries come one at a time: one lane (one worker, one copy of the model, ~175 MB) serves them; the backfill
    // opens its own embedder with a lane per core.
    const embedder = options.inProcess ? await openInProcessEmbedder(found) : await openEmbedder(found, { lanes: 1 }, options.worker);
    return { ok: true, space, embedder };
  } catch (err) {
    return { ok: false, reason: `semantic search off: ${(err as Error).message}` };
  }
}
