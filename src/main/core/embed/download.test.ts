// The model downloader against a real local HTTP server in the Hugging Face layout, serving the tiny model.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testing/tmp.ts';
import { DownloadCancelled, downloadModel, stagingDir, type DownloadProgress } from './download.ts';
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
});
