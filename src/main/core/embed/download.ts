// Downloads a model folder (tokenizer, config, ONNX weights) from a Hugging Face-layout server: the hub, a mirror
// (CONTEXTPACK_MODEL_BASE_URL / HF_ENDPOINT) or, in tests, a local server. Files land in a staging folder and move
// into <modelsDir>/<model id>/ only when every one is complete and verified, so a failed, cancelled or corrupt
// download leaves whatever model was there before untouched. Partial files stay in staging and resume with Range.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ModelDownloadProgress } from '../../../shared/api/events.ts';
import { MODEL_SPECS, ONNX_FILE_BY_DTYPE, type ModelDtype } from './models.ts';

export const DEFAULT_HUB = 'https://huggingface.co';
export const MODEL_BASE_URL_ENV = 'CONTEXTPACK_MODEL_BASE_URL';
const CONNECT_TIMEOUT_MS = 30_000;

type Expected = { bytes: number; sha256: string };

// Published sizes and hashes we pin (test-fixtures/tokenizers and the model card); other files are checked against
// the server's own sha256 (the hub's X-Linked-ETag for large files) and their Content-Length.
export const PINNED: Readonly<Record<string, Record<string, Expected>>> = {
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

export type DownloadProgress = ModelDownloadProgress;
export type DownloadState = DownloadProgress['state'];

export type DownloadedFile = { name: string; bytes: number; sha256: string; verified: 'pinned' | 'server' | 'size' };

export type DownloadOptions = {
  modelId: string;
  /** Models root: the model is installed as <modelsDir>/<modelId>/. */
  modelsDir: string;
  baseUrl?: string;
  dtype?: ModelDtype;
  signal?: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
  onFile?: (f: DownloadedFile) => void;
};

export type DownloadDeps = { fetch: typeof fetch };

export class DownloadCancelled extends Error {
  constructor(modelId: string) {
    super(`download of ${modelId} cancelled; it resumes where it stopped next time`);
  }
}

export function filesToFetch(dtype: ModelDtype): { name: string; optional: boolean }[] {
  return [
    { name: 'config.json', optional: false },
    { name: 'tokenizer.json', optional: false },
    { name: 'tokenizer_config.json', optional: false },
    // Not every repository has these; the tokenizer works from tokenizer.json alone.
    { name: 'special_tokens_map.json', optional: true },
    { name: 'vocab.txt', optional: true },
    { name: `onnx/${ONNX_FILE_BY_DTYPE[dtype]}`, optional: false },
  ];
}

/** Where downloads come from: our variable, then the hub's own mirror convention, then the hub. */
export function modelBaseUrl(env: Readonly<Record<string, string | undefined>>): string {
  return env[MODEL_BASE_URL_ENV]?.trim() || env.HF_ENDPOINT?.trim() || DEFAULT_HUB;
}

export const stagingDir = (modelsDir: string, modelId: string): string => join(modelsDir, '.downloads', modelId);

async function sha256Of(path: string): Promise<{ bytes: number; hash: ReturnType<typeof createHash> }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, hash };
}

/** The server's own digest of a file: the hub sends it as X-Linked-ETag (large files) or ETag, quoted hex. */
function serverSha256(res: Response): string | undefined {
  for (const h of ['x-linked-etag', 'etag']) {
    const m = /^(?:W\/)?"?([0-9a-f]{64})"?$/.exec(res.headers.get(h)?.trim() ?? '');
    if (m) return m[1];
  }
  return undefined;
}

export async function downloadModel(options: DownloadOptions, deps: DownloadDeps): Promise<{ modelDir: string; files: DownloadedFile[] }> {
  const { modelId, modelsDir, signal } = options;
  const base = (options.baseUrl ?? DEFAULT_HUB).replace(/\/+$/, '');
  const dtype = options.dtype ?? MODEL_SPECS[modelId]?.dtype ?? 'q8';
  const staging = stagingDir(modelsDir, modelId);
  const list = filesToFetch(dtype);
  const files: DownloadedFile[] = [];
  const report = (p: Omit<DownloadProgress, 'modelId' | 'fileCount'>) => options.onProgress?.({ modelId, fileCount: list.length, ...p });

  for (const [fileIndex, { name, optional }] of list.entries()) {
    if (signal?.aborted) throw new DownloadCancelled(modelId);
    const target = join(staging, name);
    const partial = `${target}.part`;
    const pinned = PINNED[modelId]?.[name];
    if (existsSync(target)) {
      // Finished in an earlier run: it was verified before it got its final name.
      const done = await sha256Of(target);
      files.push({ name, bytes: done.bytes, sha256: done.hash.digest('hex'), verified: pinned ? 'pinned' : 'size' });
      continue;
    }
    const have = existsSync(partial) ? (await stat(partial)).size : 0;
    const url = `${base}/${modelId}/resolve/main/${name}`;
    const connect = new AbortController();
    const timer = setTimeout(() => connect.abort(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS);
    const onAbort = () => connect.abort(new DownloadCancelled(modelId));
    signal?.addEventListener('abort', onAbort, { once: true });
    let res: Response;
    try {
      res = await deps.fetch(url, { redirect: 'follow', signal: connect.signal, headers: have > 0 ? { range: `bytes=${have}-` } : {} });
    } catch (err) {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) throw new DownloadCancelled(modelId);
      const cause = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
      throw new Error(`models: cannot reach ${base} (${cause}). This needs a networked machine (or ${MODEL_BASE_URL_ENV} pointing at a mirror); on an offline one, copy a downloaded model folder to ${join(modelsDir, modelId)}/ instead.`);
    } finally {
      clearTimeout(timer);
    }
    try {
      if (res.status === 404 && optional) continue;
      if (!(res.ok || res.status === 206) || !res.body) throw new Error(`models: ${url} answered HTTP ${res.status}`);
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      const resumed = res.status === 206 && have > 0;
      const declared = Number(res.headers.get('content-length'));
      const totalBytes = Number.isFinite(declared) && declared > 0 ? declared + (resumed ? have : 0) : (pinned?.bytes ?? null);
      const hash = resumed ? (await sha256Of(partial)).hash : createHash('sha256');
      let bytes = resumed ? have : 0;
      const out = createWriteStream(partial, { flags: resumed ? 'a' : 'w', mode: 0o600 });
      report({ state: 'downloading', file: name, fileIndex, bytes, totalBytes });
      let lastReport = 0;
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          hash.update(chunk);
          bytes += chunk.length;
          if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
          if (bytes - lastReport >= 256 * 1024) {
            lastReport = bytes;
            report({ state: 'downloading', file: name, fileIndex, bytes, totalBytes });
          }
        }
        await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
      } catch (err) {
        out.destroy();
        // The partial file stays: the next run asks for the rest.
        if (signal?.aborted) throw new DownloadCancelled(modelId);
        throw new Error(`models: download of ${url} broke off after ${bytes} bytes (kept; it resumes next time): ${(err as Error).message}`);
      }
      report({ state: 'verifying', file: name, fileIndex, bytes, totalBytes });
      if (totalBytes !== null && !pinned && totalBytes !== bytes) {
        await rm(partial, { force: true });
        throw new Error(`models: ${url} declared ${totalBytes} bytes but sent ${bytes}`);
      }
      const sha256 = hash.digest('hex');
      const expected = pinned?.sha256 ?? serverSha256(res);
      if ((pinned && pinned.bytes !== bytes) || (expected && expected !== sha256)) {
        await rm(partial, { force: true });
        throw new Error(`models: ${url} gave ${bytes} bytes (sha256 ${sha256}), expected ${pinned ? `${pinned.bytes} (${pinned.sha256})` : `sha256 ${expected}`}; refused and removed it`);
      }
      await rename(partial, target);
      const file: DownloadedFile = { name, bytes, sha256, verified: pinned ? 'pinned' : expected ? 'server' : 'size' };
      files.push(file);
      options.onFile?.(file);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  if (signal?.aborted) throw new DownloadCancelled(modelId);
  report({ state: 'installing', fileIndex: list.length - 1, bytes: 0, totalBytes: null });
  const modelDir = join(modelsDir, modelId);
  const previous = `${modelDir}.previous`;
  await rm(previous, { recursive: true, force: true });
  await mkdir(dirname(modelDir), { recursive: true });
  // Swap: the old folder moves aside and goes only once the new one is in place.
  if (existsSync(modelDir)) await rename(modelDir, previous);
  await rename(staging, modelDir);
  await rm(previous, { recursive: true, force: true });
  await removeEmptyParents(dirname(staging), join(modelsDir, '.downloads'));
  report({ state: 'done', fileIndex: list.length - 1, bytes: 0, totalBytes: null });
  return { modelDir, files };
}

async function removeEmptyParents(dir: string, stopAfter: string): Promise<void> {
  for (let d = dir; d.startsWith(stopAfter); d = dirname(d)) {
    if ((await readdir(d).catch(() => ['?'])).length > 0) return;
    await rmdir(d).catch(() => {});
    if (d === stopAfter) return;
  }
}
