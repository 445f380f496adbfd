// `npm run models:fetch [-- <model id>] [--dir <models dir>] [--dtype q8|fp32|...]`
// Downloads a model's tokenizer, config and ONNX weights from the Hugging Face hub into a models folder (default:
// this checkout's resources/models, which packaging copies into the app). This script is the one place ContextPack
// reaches for the network for models: run it on a networked machine, then copy the folder wherever it is needed.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_RESOURCES_MODELS_DIR } from './model-dirs.ts';
import { DEFAULT_MODEL_ID, MODEL_SPECS, ONNX_FILE_BY_DTYPE } from './models.ts';
import type { ModelDtype } from './models.ts';
import { probeModel } from './probe.ts';

export const DEFAULT_HUB = 'https://huggingface.co';
const CONNECT_TIMEOUT_MS = 30_000;

type Expected = { bytes: number; sha256: string };

// Published sizes and hashes we know (shared/models/README.md); other files are checked against Content-Length.
const KNOWN: Record<string, Record<string, Expected>> = {
  'Xenova/all-MiniLM-L6-v2': {
    'config.json': { bytes: 650, sha256: '7135149f7cffa1a573466c6e4d8423ed73b62fd2332c575bf738a0d033f70df7' },
    'special_tokens_map.json': { bytes: 125, sha256: 'b6d346be366a7d1d48332dbc9fdf3bf8960b5d879522b7799ddba59e76237ee3' },
    'tokenizer.json': { bytes: 711661, sha256: 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0' },
    'tokenizer_config.json': { bytes: 366, sha256: '9261e7d79b44c8195c1cada2b453e55b00aeb81e907a6664974b4d7776172ab3' },
    'vocab.txt': { bytes: 231508, sha256: '07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3' },
    'onnx/model_quantized.onnx': { bytes: 22972370, sha256: 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1' },
    'onnx/model.onnx': { bytes: 90387606, sha256: '759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e' },
  },
};

export type FetchModelOptions = { modelId: string; dir: string; dtype?: ModelDtype; hub?: string };
export type FetchDeps = { fetch: typeof fetch; log: (line: string) => void };
export type FetchedFile = { name: string; bytes: number; sha256: string };

export function filesToFetch(dtype: ModelDtype): { name: string; optional: boolean }[] {
  return [
    { name: 'config.json', optional: false },
    { name: 'tokenizer.json', optional: false },
    { name: 'tokenizer_config.json', optional: false },
    // Not every repository has these; the tokenizer works from tokenizer.json alone.
    { name: 'special_tokens_map.json', optional: true },
    { name: 'vocab.txt', optional: true },
    // Last, so an interrupted download leaves no ONNX file and the folder never probes as a usable model.
    { name: `onnx/${ONNX_FILE_BY_DTYPE[dtype]}`, optional: false },
  ];
}

export async function fetchModel(options: FetchModelOptions, deps: FetchDeps): Promise<FetchedFile[]> {
  const hub = (options.hub ?? DEFAULT_HUB).replace(/\/+$/, '');
  const dtype = options.dtype ?? MODEL_SPECS[options.modelId]?.dtype ?? 'q8';
  const modelDir = join(options.dir, options.modelId);
  const fetched: FetchedFile[] = [];
  for (const { name, optional } of filesToFetch(dtype)) {
    const url = `${hub}/${options.modelId}/resolve/main/${name}`;
    let res: Response;
    // A firewall that drops packets would otherwise hang here for minutes; the body itself may take long.
    const connect = new AbortController();
    const timer = setTimeout(() => connect.abort(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS);
    try {
      res = await deps.fetch(url, { redirect: 'follow', signal: connect.signal });
    } catch (err) {
      const cause = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
      throw new Error(
        `models:fetch: cannot reach ${hub} (${cause}). This needs a networked machine; on an offline one, copy a ` +
          `downloaded model folder to ${modelDir}/ instead.`,
      );
    } finally {
      clearTimeout(timer);
    }
    if (res.status === 404 && optional) {
      deps.log(`  ${name}: not in the repository, skipped`);
      continue;
    }
    if (!res.ok || !res.body) throw new Error(`models:fetch: ${url} answered HTTP ${res.status}`);
    const file = await download(res, join(modelDir, name), url);
    const known = KNOWN[options.modelId]?.[name];
    if (known && (known.bytes !== file.bytes || known.sha256 !== file.sha256)) {
      await rm(join(modelDir, name), { force: true });
      throw new Error(
        `models:fetch: ${url} gave ${file.bytes} bytes (sha256 ${file.sha256}), expected ${known.bytes} (${known.sha256}); removed it`,
      );
    }
    deps.log(`  ${name}: ${file.bytes} bytes${known ? ', sha256 verified' : ''}`);
    fetched.push({ name, ...file });
  }
  return fetched;
}

async function download(res: Response, target: string, url: string): Promise<{ bytes: number; sha256: string }> {
  await mkdir(dirname(target), { recursive: true });
  const partial = `${target}.part`;
  const hash = createHash('sha256');
  let bytes = 0;
  const out = createWriteStream(partial);
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      bytes += chunk.length;
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  } catch (err) {
    out.destroy();
    await rm(partial, { force: true });
    throw new Error(`models:fetch: download of ${url} broke off after ${bytes} bytes: ${(err as Error).message}`);
  }
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > 0 && declared !== bytes) {
    await rm(partial, { force: true });
    throw new Error(`models:fetch: ${url} declared ${declared} bytes but sent ${bytes}`);
  }
  await rename(partial, target);
  return { bytes, sha256: hash.digest('hex') };
}

export type CliArgs = { modelId: string; dir: string; dtype?: ModelDtype; hub: string };

export function parseArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CliArgs {
  let modelId = DEFAULT_MODEL_ID;
  let dir = REPO_RESOURCES_MODELS_DIR;
  let dtype: ModelDtype | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--dir') dir = need(argv[++i], a);
    else if (a === '--dtype') {
      const d = need(argv[++i], a);
      if (!(d in ONNX_FILE_BY_DTYPE)) throw new Error(`--dtype must be one of ${Object.keys(ONNX_FILE_BY_DTYPE).join(', ')}`);
      dtype = d as ModelDtype;
    } else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else modelId = a;
  }
  // HF_ENDPOINT is the hub's own convention for mirrors.
  return { modelId, dir, hub: env.HF_ENDPOINT || DEFAULT_HUB, ...(dtype ? { dtype } : {}) };
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
