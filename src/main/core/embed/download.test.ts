// The model downloader against a real local HTTP server in the Hugging Face layout, serving the tiny model.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testing/tmp.ts';
import { DOWNLOAD_RECORD, DownloadCancelled, downloadModel, readDownloadRecord, redirectAllowed, stagingDir, UnverifiedRefused, type DownloadProgress } from './download.ts';
import { probeModel } from './probe.ts';
import { startModelServer, type ModelServer, type ServerBehaviour } from './testing/model-server.ts';
import { buildTinyModel } from './testing/tiny-model.ts';

const tmp = tempDirs('cp-download-');
const MODEL = 'Xenova/gte-small';
const ONNX = 'onnx/model_quantized.onnx';

let source: string;
let server: ModelServer;
let base: string;
const behaviour = (b: ServerBehaviour) => void (server.behaviour = b);

beforeAll(async () => {
  const tiny = await buildTinyModel({ root: tmp.make(), modelId: MODEL, dim: 32 });
  source = tiny.modelDir;
  server = await startModelServer({ modelId: MODEL, modelDir: source });
  base = server.baseUrl;
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('downloadModel', () => {
  it('downloads every file with progress, verifies it and installs a folder the probe accepts', async () => {
    behaviour({});
    const modelsDir = tmp.make();
    const seen: DownloadProgress[] = [];
    const { modelDir, files } = await downloadModel({ modelId: MODEL, modelsDir, baseUrl: base, onProgress: (p) => seen.push(p) }, { fetch });
    expect(modelDir).toBe(join(modelsDir, MODEL));
    expect(files.find((f) => f.name === ONNX)).toMatchObject({ verified: 'server' });
    const onnx = seen.filter((p) => p.file === ONNX && p.state === 'downloading');
    expect(onnx.length).toBeGreaterThan(2);
    expect(onnx.at(-1)!.bytes).toBeGreaterThan(onnx[0]!.bytes);
    expect(onnx[0]!.totalBytes).toBe(statSync(join(source, ONNX)).size);
    expect(seen.at(-1)).toMatchObject({ state: 'done' });
    expect(await probeModel({ modelId: MODEL, dirs: [modelsDir] })).toMatchObject({ ok: true, dims: 32 });
    expect(existsSync(join(modelsDir, '.downloads'))).toBe(false);
  });

  it('cancels, keeps the partial file, and resumes with a Range request', async () => {
    behaviour({ slowMs: 5 });
    const modelsDir = tmp.make();
    const abort = new AbortController();
    const first = downloadModel(
      { modelId: MODEL, modelsDir, baseUrl: base, signal: abort.signal, onProgress: (p) => void (p.file === ONNX && p.bytes > 300_000 && abort.abort()) },
      { fetch },
    );
    await expect(first).rejects.toBeInstanceOf(DownloadCancelled);
    const partial = join(stagingDir(modelsDir, MODEL), `${ONNX}.part`);
    const kept = statSync(partial).size;
    expect(kept).toBeGreaterThan(300_000);
    expect(existsSync(join(modelsDir, MODEL))).toBe(false);

    behaviour({});
    server.ranges.length = 0;
    await downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch });
    expect(server.ranges).toEqual([`bytes=${kept}-`]);
    expect(readFileSync(join(modelsDir, MODEL, ONNX)).equals(readFileSync(join(source, ONNX)))).toBe(true);
  });

  it('resumes after the connection breaks off', async () => {
    behaviour({ cutAfter: 512 * 1024 });
    const modelsDir = tmp.make();
    await expect(downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch })).rejects.toThrow(/broke off after \d+ bytes \(kept; it resumes next time\)/);
    server.ranges.length = 0;
    await downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch });
    expect(server.ranges).toHaveLength(1);
    expect(await probeModel({ modelId: MODEL, dirs: [modelsDir] })).toMatchObject({ ok: true });
  });

  it('refuses a file whose sha256 is not the announced one and leaves the installed model as it was', async () => {
    behaviour({});
    const modelsDir = tmp.make();
    await downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch });
    const marker = join(modelsDir, MODEL, 'installed-before.txt');
    writeFileSync(marker, 'the earlier install');
    const before = readFileSync(join(modelsDir, MODEL, ONNX));

    behaviour({ corrupt: true });
    await expect(downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch })).rejects.toThrow(/model_quantized\.onnx gave \d+ bytes \(sha256 [0-9a-f]{64}\), expected sha256 [0-9a-f]{64}; refused/);
    expect(readFileSync(marker, 'utf8')).toBe('the earlier install');
    expect(readFileSync(join(modelsDir, MODEL, ONNX)).equals(before)).toBe(true);
    expect(existsSync(join(stagingDir(modelsDir, MODEL), `${ONNX}.part`))).toBe(false);
  });

  it('says what to do when the server cannot be reached', async () => {
    const modelsDir = tmp.make();
    await expect(downloadModel({ modelId: MODEL, modelsDir, baseUrl: 'http://127.0.0.1:9' }, { fetch })).rejects.toThrow(/cannot reach http:\/\/127\.0\.0\.1:9 .*CONTEXTPACK_MODEL_BASE_URL/);
  });

  it('installs the record of how each file was checked into the model folder', async () => {
    behaviour({});
    const modelsDir = tmp.make();
    await downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch });
    const record = await readDownloadRecord(join(modelsDir, MODEL));
    expect(record).toMatchObject({ modelId: MODEL, source: base, unverified: false });
    expect(record!.files.map((f) => f.verified)).toEqual(record!.files.map(() => 'server'));
  });
});

// Each fault of a hostile or broken mirror, served for real over 127.0.0.1.
describe('downloadModel against a mirror that misbehaves', () => {
  const installed = async () => {
    behaviour({});
    const modelsDir = tmp.make();
    await downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch });
    writeFileSync(join(modelsDir, MODEL, 'installed-before.txt'), 'the earlier install');
    return { modelsDir, before: readFileSync(join(modelsDir, MODEL, ONNX)) };
  };
  const untouched = (modelsDir: string, before: Buffer) => {
    expect(readFileSync(join(modelsDir, MODEL, 'installed-before.txt'), 'utf8')).toBe('the earlier install');
    expect(readFileSync(join(modelsDir, MODEL, ONNX)).equals(before)).toBe(true);
  };

  it('refuses random bytes sent chunked with no Content-Length or digest, and keeps the installed model', async () => {
    const { modelsDir, before } = await installed();
    behaviour({ garbage: true });
    const run = downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch });
    await expect(run).rejects.toBeInstanceOf(UnverifiedRefused);
    await expect(run).rejects.toThrow(/config\.json comes with no digest .* refused/);
    untouched(modelsDir, before);
    expect(existsSync(join(stagingDir(modelsDir, MODEL), 'config.json.part'))).toBe(false);
  });

  it('even when the user accepts an unverified model, random bytes do not load, so nothing is replaced', async () => {
    const { modelsDir, before } = await installed();
    behaviour({ garbage: true });
    await expect(downloadModel({ modelId: MODEL, modelsDir, baseUrl: base, allowUnverified: true }, { fetch })).rejects.toThrow(
      /the downloaded Xenova\/gte-small does not load and embed \(.+\); removed it, and the installed model was left as it was/,
    );
    untouched(modelsDir, before);
    expect(existsSync(stagingDir(modelsDir, MODEL))).toBe(false);
  });

  it('refuses a file with no digest, and installs it marked unverified only when the user accepts that', async () => {
    behaviour({ noDigest: true });
    const modelsDir = tmp.make();
    await expect(downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch })).rejects.toThrow(/no digest/);
    expect(existsSync(join(modelsDir, MODEL))).toBe(false);
    const { files, unverified } = await downloadModel({ modelId: MODEL, modelsDir, baseUrl: base, allowUnverified: true }, { fetch });
    expect(unverified).toBe(true);
    expect(files.every((f) => f.verified === 'unverified')).toBe(true);
    expect(await readDownloadRecord(join(modelsDir, MODEL))).toMatchObject({ unverified: true });
    expect(await probeModel({ modelId: MODEL, dirs: [modelsDir] })).toMatchObject({ ok: true });
  });

  it('a file accepted unverified in a cancelled run is not taken over by a later run that did not accept it', async () => {
    behaviour({ noDigest: true, slowMs: 5 });
    const modelsDir = tmp.make();
    const abort = new AbortController();
    const first = downloadModel(
      { modelId: MODEL, modelsDir, baseUrl: base, allowUnverified: true, signal: abort.signal, onProgress: (p) => void (p.file === ONNX && abort.abort()) },
      { fetch },
    );
    await expect(first).rejects.toBeInstanceOf(DownloadCancelled);
    expect(existsSync(join(stagingDir(modelsDir, MODEL), 'config.json'))).toBe(true);
    await expect(downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch })).rejects.toThrow(/config\.json comes with no digest/);
  });

  it('stops an endless stream for a pinned 650-byte file at the pinned size and deletes the part', async () => {
    const mini = 'Xenova/all-MiniLM-L6-v2';
    const tiny = await buildTinyModel({ root: tmp.make(), modelId: mini, dim: 8 });
    const miniServer = await startModelServer({ modelId: mini, modelDir: tiny.modelDir });
    try {
      miniServer.behaviour = { endless: 'config.json' };
      const modelsDir = tmp.make();
      await expect(downloadModel({ modelId: mini, modelsDir, baseUrl: miniServer.baseUrl }, { fetch })).rejects.toThrow(
        /config\.json sent more than 650 bytes; refused and removed it/,
      );
      expect(existsSync(join(stagingDir(modelsDir, mini), 'config.json.part'))).toBe(false);
      // The client hung up: the server stopped long before its own safety limit.
      await new Promise((r) => setTimeout(r, 50));
      expect(miniServer.endlessSent).toBeLessThan(8 * 1024 * 1024);
    } finally {
      await miniServer.close();
    }
  });

  it('stops an endless stream with a digest but no size at the per-file maximum', async () => {
    behaviour({ endless: 'tokenizer.json' });
    const modelsDir = tmp.make();
    await expect(downloadModel({ modelId: MODEL, modelsDir, baseUrl: base, maxFileBytes: 1024 * 1024 }, { fetch })).rejects.toThrow(
      /tokenizer\.json sent more than 1048576 bytes \(the most a file of this kind may have\); refused and removed it/,
    );
    expect(existsSync(join(stagingDir(modelsDir, MODEL), 'tokenizer.json.part'))).toBe(false);
  });

  it('deletes a kept part that is already over the cap instead of resuming it', async () => {
    behaviour({});
    const modelsDir = tmp.make();
    const part = join(stagingDir(modelsDir, MODEL), 'config.json.part');
    mkdirSync(join(stagingDir(modelsDir, MODEL)), { recursive: true });
    writeFileSync(part, randomBytes(4096));
    server.ranges.length = 0;
    await downloadModel({ modelId: MODEL, modelsDir, baseUrl: base, maxFileBytes: 4096 }, { fetch }).catch(() => {});
    expect(server.ranges).toEqual([]);
    expect(existsSync(part)).toBe(false);
  });

  it('refuses a redirect to another host', async () => {
    const { modelsDir, before } = await installed();
    const other = base.replace('127.0.0.1', 'localhost');
    behaviour({ redirectTo: other });
    await expect(downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch })).rejects.toThrow(
      new RegExp(`config\\.json redirected to ${other.replace(/[.]/g, '\\.')}, which is neither 127\\.0\\.0\\.1:\\d+; refused`),
    );
    untouched(modelsDir, before);
  });

  it("follows a redirect within the mirror's own host, verified by the digest announced on the redirect", async () => {
    behaviour({ redirectSameHost: true, noDigest: true });
    const modelsDir = tmp.make();
    const { files } = await downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch });
    expect(files.every((f) => f.verified === 'server')).toBe(true);
  });

  it("verifies small files by the git blob id the hub sends as their ETag", async () => {
    behaviour({ gitEtag: true });
    const modelsDir = tmp.make();
    const { files } = await downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch });
    expect(files.every((f) => f.verified === 'server')).toBe(true);
    // A body that does not match that blob id is refused.
    const other = tmp.make();
    behaviour({ gitEtag: true, endless: 'tokenizer_config.json', endlessLimit: 300 });
    await expect(downloadModel({ modelId: MODEL, modelsDir: other, baseUrl: base }, { fetch })).rejects.toThrow(/tokenizer_config\.json gave 300 bytes .*expected git-sha1 [0-9a-f]{40}; refused/);
  });

  it('refuses a set whose files match their digests but do not load and embed', async () => {
    const { modelsDir, before } = await installed();
    behaviour({ onnxBody: randomBytes(100_000) });
    await expect(downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch })).rejects.toThrow(/does not load and embed/);
    untouched(modelsDir, before);
  });

  it('runs the probe on the staged set before the swap, and only then installs', async () => {
    behaviour({});
    const modelsDir = tmp.make();
    const probed: string[] = [];
    await downloadModel(
      { modelId: MODEL, modelsDir, baseUrl: base },
      {
        fetch,
        probe: async ({ root }) => {
          expect(existsSync(join(modelsDir, MODEL))).toBe(false);
          expect(existsSync(join(root, MODEL, DOWNLOAD_RECORD))).toBe(true);
          probed.push(root);
        },
      },
    );
    expect(probed).toEqual([join(modelsDir, '.downloads')]);
  });
});

describe('redirectAllowed', () => {
  const hub = new URL('https://huggingface.co');
  it("allows the hub's CDN and the mirror's own host only", () => {
    expect(redirectAllowed(new URL('https://cdn-lfs.huggingface.co/x'), hub)).toBe(true);
    expect(redirectAllowed(new URL('https://cas-bridge.xethub.hf.co/x'), hub)).toBe(true);
    expect(redirectAllowed(new URL('http://cdn-lfs.huggingface.co/x'), hub)).toBe(false);
    expect(redirectAllowed(new URL('https://huggingface.co.evil.example/x'), hub)).toBe(false);
    expect(redirectAllowed(new URL('https://evil.example/x'), hub)).toBe(false);
    const mirror = new URL('https://mirror.example:8443');
    expect(redirectAllowed(new URL('https://mirror.example:8443/lfs/x'), mirror)).toBe(true);
    expect(redirectAllowed(new URL('https://cdn-lfs.huggingface.co/x'), mirror)).toBe(false);
    expect(redirectAllowed(new URL('https://mirror.example:9443/x'), mirror)).toBe(false);
  });
});
