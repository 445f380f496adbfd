// Downloads a model folder (tokenizer, config, ONNX weights) from a Hugging Face-layout server: the hub, a mirror
// (CONTEXTPACK_MODEL_BASE_URL / HF_ENDPOINT) or, in tests, a local server. Files land in a staging folder and move
// into <modelsDir>/<model id>/ only when every one is complete and verified and the set loads and embeds, so a
// failed, cancelled, corrupt or hostile download leaves whatever model was there before untouched. Partial files stay
// in staging and resume with Range.
//
// Nothing from the server is trusted by itself: every file needs a digest (pinned here, or announced by the hub as
// X-Linked-ETag / ETag) unless the user accepts an unverified model; every body is cut at a size cap (pinned or
// announced size, else a per-file maximum); redirects go only to the hub's CDN or the mirror's own host.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ModelDownloadProgress } from '../../../shared/api/events.ts';
import type { WorkerDeps } from './embedder.ts';
import { MODEL_SPECS, ONNX_FILE_BY_DTYPE, type ModelDtype } from './models.ts';

export const DEFAULT_HUB = 'https://huggingface.co';
export const MODEL_BASE_URL_ENV = 'CONTEXTPACK_MODEL_BASE_URL';
const CONNECT_TIMEOUT_MS = 30_000;
/**
 * The read timeout, as a rate (curl's --speed-limit / --speed-time): a body that brings fewer than `minBytes` in any
 * `windowMs` is cut, whether it sends nothing or trickles a byte every few seconds (an idle timeout alone never fires
 * on a trickle). What came stays as the part file and resumes with Range next time.
 */
export const READ_STALL = { windowMs: 30_000, minBytes: 30 * 1024 };

type Expected = { bytes: number; sha256: string };

// Published sizes and hashes we pin (test-fixtures/tokenizers and the model card); other files are checked against
// the digest the hub announces: sha256 (X-Linked-ETag, LFS files) or the git blob id (ETag, small files).
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

/** How a file was checked: against our pinned digest, the server's announced one, or (the user agreed) not at all. */
export type Verification = 'pinned' | 'server' | 'unverified';
export type DownloadedFile = { name: string; bytes: number; sha256: string; verified: Verification };

export type DownloadOptions = {
  modelId: string;
  /** Models root: the model is installed as <modelsDir>/<modelId>/. */
  modelsDir: string;
  baseUrl?: string;
  dtype?: ModelDtype;
  signal?: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
  onFile?: (f: DownloadedFile) => void;
  /** The user confirmed a model whose files have no digest: they are installed and marked unverified. */
  allowUnverified?: boolean;
  /** Per-file ceiling for files with neither a pinned nor an announced size (default: maxFileBytes(name)). */
  maxFileBytes?: number;
  /** The read timeout (default READ_STALL). */
  stall?: { windowMs: number; minBytes: number };
};

/** Loads the staged set and embeds two sentences; throws with the reason when it cannot. */
export type StagedProbe = (staged: { root: string; modelId: string; dtype: ModelDtype }) => Promise<void>;

export type DownloadDeps = { fetch: typeof fetch; probe?: StagedProbe; embedWorker?: WorkerDeps };

export class DownloadCancelled extends Error {
  constructor(modelId: string) {
    super(`download of ${modelId} cancelled; it resumes where it stopped next time`);
  }
}

/** A file without a pinned or announced digest, refused because the user did not accept an unverified model. */
export class UnverifiedRefused extends Error {
  readonly code = 'unverified';
}

/** The record written into an installed model folder: where it came from and how each file was checked. */
export const DOWNLOAD_RECORD = 'contextpack-download.json';
export type DownloadRecord = { modelId: string; source: string; dtype: ModelDtype; unverified: boolean; files: DownloadedFile[] };

export async function readDownloadRecord(modelDir: string): Promise<DownloadRecord | undefined> {
  try {
    return JSON.parse(await readFile(join(modelDir, DOWNLOAD_RECORD), 'utf8')) as DownloadRecord;
  } catch {
    return undefined;
  }
}

// ONNX protobufs cannot exceed 2 GiB; external weight files are larger; configs and tokenizers are a few MB at most.
const GIB = 1024 ** 3;
export function maxFileBytes(name: string): number {
  if (name.endsWith('.onnx')) return 2 * GIB;
  if (/\.onnx_data(?:_\d+)?$/.test(name)) return 8 * GIB;
  return 64 * 1024 * 1024;
}

// The hub answers /resolve/ for large files with a redirect to its CDN; a mirror may redirect only within itself.
const HUB_HOSTS = new Set(['huggingface.co', 'hf.co']);
const HUB_CDN_SUFFIXES = ['.huggingface.co', '.hf.co'];
const MAX_REDIRECTS = 5;

export function redirectAllowed(to: URL, base: URL): boolean {
  if (to.protocol !== 'https:' && to.protocol !== base.protocol) return false;
  if (to.host === base.host) return true;
  return HUB_HOSTS.has(base.hostname) && to.protocol === 'https:' && HUB_CDN_SUFFIXES.some((s) => to.hostname.endsWith(s));
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

/** Git's blob id (what the hub sends as the ETag of a file kept in git rather than LFS). */
async function gitBlobSha1(path: string, bytes: number): Promise<string> {
  const hash = createHash('sha1').update(`blob ${bytes}\0`);
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

type Announced = { digest?: { kind: 'sha256' | 'git-sha1'; hex: string }; size?: number };

/** What the server says the file is: the hub sends X-Linked-ETag/X-Linked-Size on its redirect, ETag on the file. */
function announced(res: Response, into: Announced): void {
  const tag = (h: string) => /^(?:W\/)?"?([0-9a-f]{40}|[0-9a-f]{64})"?$/.exec(res.headers.get(h)?.trim() ?? '')?.[1];
  const hex = tag('x-linked-etag') ?? (res.status >= 300 && res.status < 400 ? undefined : tag('etag'));
  if (hex && !into.digest) into.digest = { kind: hex.length === 64 ? 'sha256' : 'git-sha1', hex };
  const size = Number(res.headers.get('x-linked-size'));
  if (Number.isSafeInteger(size) && size > 0 && into.size === undefined) into.size = size;
}

/** GET with redirects followed by hand, each checked against the allowed hosts. */
async function getChecked(
  fetchFn: typeof fetch,
  url: string,
  base: URL,
  init: { signal: AbortSignal; headers: Record<string, string> },
): Promise<{ res: Response; seen: Announced }> {
  const seen: Announced = {};
  let current = new URL(url);
  for (let hop = 0; ; hop++) {
    const res = await fetchFn(current, { ...init, redirect: 'manual' });
    announced(res, seen);
    if (![301, 302, 303, 307, 308].includes(res.status)) return { res, seen };
    await res.body?.cancel().catch(() => {});
    const location = res.headers.get('location');
    if (!location) throw new Error(`models: ${current.href} answered HTTP ${res.status} without a Location`);
    const next = new URL(location, current);
    if (!redirectAllowed(next, base)) {
      throw new Error(`models: ${current.href} redirected to ${next.origin}, which is neither ${base.host}${HUB_HOSTS.has(base.hostname) ? " nor the hub's CDN" : ''}; refused`);
    }
    if (hop >= MAX_REDIRECTS) throw new Error(`models: ${url} redirected more than ${MAX_REDIRECTS} times; refused`);
    current = next;
  }
}

const PROBE_SENTENCES = ['The volcano erupted and ash covered the village.', 'Quarterly interest rates were raised by the central bank.'];

/** The default probe: open the staged folder the way search will, and embed two different sentences. */
export function embedTwoSentences(worker: WorkerDeps = {}): StagedProbe {
  return async ({ root, modelId, dtype }) => {
    const { tryOpenEmbedder } = await import('./embedder.ts');
    // An unregistered model has no known pooling; any pooling shows whether the weights load and run.
    const spec = MODEL_SPECS[modelId] ? { dtype } : { dtype, pooling: 'mean' as const };
    const opened = await tryOpenEmbedder({ modelId, dirs: [root], spec }, {}, worker);
    if (!opened.ok) throw new Error(opened.reason.replace(/^semantic search off: /, ''));
    try {
      const [a, b] = await opened.embedder.embedPassages(PROBE_SENTENCES);
      for (const v of [a, b]) {
        if (!v || v.length !== opened.embedder.dims || !v.every(Number.isFinite)) throw new Error('it gave a vector that is not finite or has the wrong length');
      }
      if (!a!.some((x) => x !== 0)) throw new Error('it gave an all-zero vector');
    } finally {
      await opened.embedder.close();
    }
  };
}

type Manifest = Record<string, DownloadedFile>;

export async function downloadModel(options: DownloadOptions, deps: DownloadDeps): Promise<{ modelDir: string; files: DownloadedFile[]; unverified: boolean }> {
  const { modelId, modelsDir, signal } = options;
  const base = (options.baseUrl ?? DEFAULT_HUB).replace(/\/+$/, '');
  const baseUrl = new URL(base);
  const dtype = options.dtype ?? MODEL_SPECS[modelId]?.dtype ?? 'q8';
  const staging = stagingDir(modelsDir, modelId);
  const list = filesToFetch(dtype);
  const files: DownloadedFile[] = [];
  const report = (p: Omit<DownloadProgress, 'modelId' | 'fileCount'>) => options.onProgress?.({ modelId, fileCount: list.length, ...p });
  // Files finished in an earlier run, with how each was checked then (the record grows file by file in staging and
  // moves into the model folder with the set).
  const manifest: Manifest = (await readDownloadRecord(staging))?.files.reduce<Manifest>((m, f) => ((m[f.name] = f), m), {}) ?? {};
  const saveManifest = async () => {
    await mkdir(staging, { recursive: true, mode: 0o700 });
    const record: DownloadRecord = { modelId, source: base, dtype, unverified: files.some((f) => f.verified === 'unverified'), files };
    await writeFile(join(staging, DOWNLOAD_RECORD), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  };

  for (const [fileIndex, { name, optional }] of list.entries()) {
    if (signal?.aborted) throw new DownloadCancelled(modelId);
    const target = join(staging, name);
    const partial = `${target}.part`;
    const pinned = PINNED[modelId]?.[name];
    if (existsSync(target)) {
      // Finished in an earlier run: kept only if it is still the file that was checked then.
      const before = manifest[name];
      const now = await sha256Of(target);
      const sha256 = now.hash.digest('hex');
      const stillGood = before && before.sha256 === sha256 && (!pinned || pinned.sha256 === sha256) && (before.verified !== 'unverified' || options.allowUnverified);
      if (stillGood) {
        files.push(before);
        continue;
      }
      await rm(target, { force: true });
    }
    let have = existsSync(partial) ? (await stat(partial)).size : 0;
    const ceiling = Math.min(pinned?.bytes ?? Infinity, options.maxFileBytes ?? maxFileBytes(name));
    if (have >= ceiling) {
      // Nothing past the cap is worth resuming (a file that grew to it was either complete, and renamed, or hostile).
      await rm(partial, { force: true });
      have = 0;
    }
    const url = `${base}/${modelId}/resolve/main/${name}`;
    const connect = new AbortController();
    const timer = setTimeout(() => connect.abort(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS);
    const onAbort = () => connect.abort(new DownloadCancelled(modelId));
    signal?.addEventListener('abort', onAbort, { once: true });
    let res: Response;
    let seen: Announced;
    try {
      ({ res, seen } = await getChecked(deps.fetch, url, baseUrl, { signal: connect.signal, headers: have > 0 ? { range: `bytes=${have}-` } : {} }));
    } catch (err) {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) throw new DownloadCancelled(modelId);
      if ((err as Error).message.startsWith('models: ')) throw err;
      const cause = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
      throw new Error(`models: cannot reach ${base} (${cause}). This needs a networked machine (or ${MODEL_BASE_URL_ENV} pointing at a mirror); on an offline one, copy a downloaded model folder to ${join(modelsDir, modelId)}/ instead.`);
    } finally {
      clearTimeout(timer);
    }
    try {
      if (res.status === 404 && optional) {
        await res.body?.cancel().catch(() => {});
        continue;
      }
      if (!(res.ok || res.status === 206) || !res.body) throw new Error(`models: ${url} answered HTTP ${res.status}`);
      const expected = pinned ? { kind: 'sha256' as const, hex: pinned.sha256 } : seen.digest;
      if (!expected && !options.allowUnverified) {
        await res.body.cancel().catch(() => {});
        await rm(partial, { force: true });
        throw new UnverifiedRefused(
          `models: ${url} comes with no digest (no pinned sha256, no X-Linked-ETag or ETag), so it cannot be verified; refused. ` +
            `Install it anyway only if you trust ${baseUrl.host}: it is then marked unverified (models:fetch --allow-unverified, or "Download unverified" in the Models panel).`,
        );
      }
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      const resumed = res.status === 206 && have > 0;
      const declared = Number(res.headers.get('content-length'));
      const sentSize = Number.isSafeInteger(declared) && declared > 0 && res.headers.get('content-length') !== null ? declared + (resumed ? have : 0) : undefined;
      // The size we hold the file to: ours, else the hub's announced size, else what this answer declares.
      const size = pinned?.bytes ?? seen.size ?? sentSize;
      const cap = Math.min(size ?? Infinity, options.maxFileBytes ?? maxFileBytes(name));
      const totalBytes = size ?? null;
      const hash = resumed ? (await sha256Of(partial)).hash : createHash('sha256');
      let bytes = resumed ? have : 0;
      const out = createWriteStream(partial, { flags: resumed ? 'a' : 'w', mode: 0o600 });
      // A write error reaches the loop through `once(out, 'drain')` or `end`; this listener keeps the one a write still
      // pending at destroy() raises (ERR_STREAM_DESTROYED) from becoming an uncaught exception.
      out.on('error', () => {});
      report({ state: 'downloading', file: name, fileIndex, bytes, totalBytes });
      let lastReport = 0;
      const stall = readWatchdog(connect, options.stall ?? READ_STALL);
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          stall.saw(chunk.length);
          if (bytes + chunk.length > cap) {
            // Closed before removal (a stream still opening would create the file again afterwards), and ended, not
            // destroyed: writes still buffered finish first instead of failing against a closed file.
            await closeWhenFlushed(out);
            await rm(partial, { force: true });
            await res.body.cancel().catch(() => {});
            throw new OverCap(`models: ${url} sent more than ${cap} bytes${size === undefined ? ' (the most a file of this kind may have)' : ''}; refused and removed it`);
          }
          hash.update(chunk);
          bytes += chunk.length;
          if (!out.write(chunk)) await once(out, 'drain');
          if (bytes - lastReport >= 256 * 1024) {
            lastReport = bytes;
            report({ state: 'downloading', file: name, fileIndex, bytes, totalBytes });
          }
        }
        await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
      } catch (err) {
        out.destroy();
        if (err instanceof OverCap) throw new Error(err.message);
        if (stall.fired) throw new Error(`models: download of ${url} stalled after ${bytes} bytes (kept; it resumes next time): ${stall.fired}`);
        // The partial file stays (it is under the cap): the next run asks for the rest.
        if (signal?.aborted) throw new DownloadCancelled(modelId);
        throw new Error(`models: download of ${url} broke off after ${bytes} bytes (kept; it resumes next time): ${(err as Error).message}`);
      } finally {
        stall.stop();
      }
      report({ state: 'verifying', file: name, fileIndex, bytes, totalBytes });
      if (size !== undefined && size !== bytes && !pinned) {
        await rm(partial, { force: true });
        throw new Error(`models: ${url} declared ${size} bytes but sent ${bytes}`);
      }
      const sha256 = hash.digest('hex');
      const got = expected?.kind === 'git-sha1' ? await gitBlobSha1(partial, bytes) : sha256;
      if ((pinned && pinned.bytes !== bytes) || (expected && expected.hex !== got)) {
        await rm(partial, { force: true });
        throw new Error(
          `models: ${url} gave ${bytes} bytes (sha256 ${sha256}), expected ${pinned ? `${pinned.bytes} (${pinned.sha256})` : `${expected!.kind} ${expected!.hex}`}; refused and removed it`,
        );
      }
      await rename(partial, target);
      const file: DownloadedFile = { name, bytes, sha256, verified: pinned ? 'pinned' : expected ? 'server' : 'unverified' };
      files.push(file);
      await saveManifest();
      options.onFile?.(file);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  if (signal?.aborted) throw new DownloadCancelled(modelId);
  report({ state: 'verifying', fileIndex: list.length - 1, bytes: 0, totalBytes: null });
  await saveManifest();
  try {
    await (deps.probe ?? embedTwoSentences(deps.embedWorker))({ root: join(modelsDir, '.downloads'), modelId, dtype });
  } catch (err) {
    // Every file matched its digest, yet the set does not work: fetching it again gives the same, so it goes.
    await rm(staging, { recursive: true, force: true });
    await removeEmptyParents(dirname(staging), join(modelsDir, '.downloads'));
    // The reason may quote bytes of a hostile file (a JSON parse error does): shown printable and short.
    const reason = (err as Error).message.replace(/[^\x20-\x7e]+/g, '?').slice(0, 300);
    throw new Error(`models: the downloaded ${modelId} does not load and embed (${reason}); removed it, and the installed model was left as it was`);
  }
  if (signal?.aborted) throw new DownloadCancelled(modelId);
  report({ state: 'installing', fileIndex: list.length - 1, bytes: 0, totalBytes: null });
  const modelDir = join(modelsDir, modelId);
  const previous = `${modelDir}.previous`;
  await rm(previous, { recursive: true, force: true });
  await mkdir(dirname(modelDir), { recursive: true });
  // Swap: the old folder moves aside and goes only once the new one is in place.
  const hadOne = existsSync(modelDir);
  if (hadOne) await rename(modelDir, previous);
  try {
    await rename(staging, modelDir);
  } catch (err) {
    // The new set could not take its place: the old one goes back, so a failed swap never leaves nothing installed.
    if (hadOne) await rename(previous, modelDir).catch(() => {});
    throw new Error(`models: could not install ${modelId} into ${modelDir} (${(err as Error).message}); the installed model was left as it was`);
  }
  await rm(previous, { recursive: true, force: true });
  await removeEmptyParents(dirname(staging), join(modelsDir, '.downloads'));
  report({ state: 'done', fileIndex: list.length - 1, bytes: 0, totalBytes: null });
  return { modelDir, files, unverified: files.some((f) => f.verified === 'unverified') };
}

class OverCap extends Error {}

async function removeEmptyParents(dir: string, stopAfter: string): Promise<void> {
  for (let d = dir; d.startsWith(stopAfter); d = dirname(d)) {
    if ((await readdir(d).catch(() => ['?'])).length > 0) return;
    await rmdir(d).catch(() => {});
    if (d === stopAfter) return;
  }
}

/** Ends the stream and resolves once its file is closed, whether the writes still buffered succeeded or failed. */
function closeWhenFlushed(out: WriteStream): Promise<void> {
  return new Promise<void>((resolve) => {
    if (out.closed) return resolve();
    out.once('close', () => resolve());
    out.end();
  });
}

/**
 * Aborts `connect` (which ends the body stream) when a window passes with fewer than `minBytes` read; `fired` says why.
 * Checked on a timer, not per chunk, so a server that sends nothing at all is cut too.
 */
function readWatchdog(connect: AbortController, limit: { windowMs: number; minBytes: number }) {
  let inWindow = 0;
  const state = { fired: null as string | null };
  const timer = setInterval(() => {
    if (inWindow < limit.minBytes) {
      state.fired = `too slow: ${inWindow} bytes in ${limit.windowMs / 1000} s (a download must bring at least ${limit.minBytes} bytes every ${limit.windowMs / 1000} s)`;
      clearInterval(timer);
      connect.abort(new Error(state.fired));
    }
    inWindow = 0;
  }, limit.windowMs);
  timer.unref();
  return {
    saw(n: number) {
      inWindow += n;
    },
    get fired() {
      return state.fired;
    },
    stop: () => clearInterval(timer),
  };
}
