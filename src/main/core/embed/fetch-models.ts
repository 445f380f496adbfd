// `npm run models:fetch [-- <model id>] [--dir <models dir>] [--dtype q8|fp32|...] [--allow-unverified]`
// Downloads a model's tokenizer, config and ONNX weights from the Hugging Face hub into a models folder (default:
// this checkout's resources/models, which packaging copies into the app). The app's Models panel downloads with the
// same code (download.ts) into the user-data models folder.
import { pathToFileURL } from 'node:url';
import { downloadModel, modelBaseUrl } from './download.ts';
import { REPO_RESOURCES_MODELS_DIR } from './model-dirs.ts';
import { DEFAULT_MODEL_ID, MODEL_SPECS, ONNX_FILE_BY_DTYPE } from './models.ts';
import type { ModelDtype } from './models.ts';
import { probeModel } from './probe.ts';

export { DEFAULT_HUB, filesToFetch } from './download.ts';

export type FetchModelOptions = { modelId: string; dir: string; dtype?: ModelDtype; hub?: string; allowUnverified?: boolean };
export type FetchDeps = { fetch: typeof fetch; log: (line: string) => void };
export type FetchedFile = { name: string; bytes: number; sha256: string };

/** The script's face on the app's downloader (download.ts): the same staging, resume and verification. */
export async function fetchModel(options: FetchModelOptions, deps: FetchDeps): Promise<FetchedFile[]> {
  const { files } = await downloadModel(
    {
      modelId: options.modelId,
      modelsDir: options.dir,
      baseUrl: options.hub,
      ...(options.dtype ? { dtype: options.dtype } : {}),
      ...(options.allowUnverified ? { allowUnverified: true } : {}),
      onFile: (f) => deps.log(`  ${f.name}: ${f.bytes} bytes, ${f.verified === 'unverified' ? 'UNVERIFIED (no digest to check)' : 'digest verified'}`),
    },
    { fetch: deps.fetch },
  );
  return files.map(({ name, bytes, sha256 }) => ({ name, bytes, sha256 }));
}

export type CliArgs = { modelId: string; dir: string; dtype?: ModelDtype; hub: string; allowUnverified?: boolean };

export function parseArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CliArgs {
  let modelId = DEFAULT_MODEL_ID;
  let dir = REPO_RESOURCES_MODELS_DIR;
  let dtype: ModelDtype | undefined;
  let allowUnverified = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--dir') dir = need(argv[++i], a);
    else if (a === '--allow-unverified') allowUnverified = true;
    else if (a === '--dtype') {
      const d = need(argv[++i], a);
      if (!(d in ONNX_FILE_BY_DTYPE)) throw new Error(`--dtype must be one of ${Object.keys(ONNX_FILE_BY_DTYPE).join(', ')}`);
      dtype = d as ModelDtype;
    } else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else modelId = a;
  }
  // HF_ENDPOINT is the hub's own convention for mirrors; ours (the app's Models panel uses it too) wins.
  return { modelId, dir, hub: modelBaseUrl(env), ...(dtype ? { dtype } : {}), ...(allowUnverified ? { allowUnverified } : {}) };
}

function need(v: string | undefined, flag: string): string {
  if (!v) throw new Error(`${flag} needs a value`);
  return v;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), process.env);
  const known = args.modelId in MODEL_SPECS;
  console.log(`Fetching ${args.modelId}${known ? '' : ' (not a model ContextPack knows; pass its pooling in settings)'} into ${args.dir}`);
  await fetchModel(args, { fetch, log: (l) => console.log(l) });
  if (known) {
    const probe = await probeModel({ modelId: args.modelId, dirs: [args.dir], spec: args.dtype ? { dtype: args.dtype } : {} });
    if (!probe.ok) throw new Error(`downloaded, but the folder is not usable: ${probe.reason}`);
    console.log(`OK: ${probe.dims} dimensions, fingerprint ${probe.fingerprint}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error((err as Error).message);
    process.exit(1);
  });
}
