// The model downloader against a real local HTTP server in the Hugging Face layout, serving the tiny model.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testing/tmp.ts';
import { DownloadCancelled, downloadModel, stagingDir, type DownloadProgress } from './download.ts';
import { probeModel } from './probe.ts';
import { buildTinyModel } from './testing/tiny-model.ts';

const tmp = tempDirs('cp-download-');
const MODEL = 'Xenova/gte-small';
const ONNX = 'onnx/model_quantized.onnx';

type Behaviour = {
  // Bytes of the ONNX body after which the server stops sending (the socket is destroyed), once.
  cutAfter?: number;
  // Serve a body that does not match the digest the server announces.
  corrupt?: boolean;
  // Pause between 64 KiB pieces of the ONNX body.
  slowMs?: number;
};

let source: string;
let server: Server;
let base: string;
const ranges: string[] = [];
let behaviour: Behaviour = {};

function serve(req: IncomingMessage, res: ServerResponse): void {
  const m = /^\/(.+?)\/resolve\/main\/(.+)$/.exec(req.url ?? '');
  const file = m && m[1] === MODEL ? join(source, m[2]!) : '';
  if (!file || !existsSync(file)) {
    res.writeHead(404).end('not found');
    return;
  }
  let body = readFileSync(file);
  const sha = createHash('sha256').update(body).digest('hex');
  const isOnnx = m![2] === ONNX;
  if (isOnnx && behaviour.corrupt) body = Buffer.concat([body.subarray(0, body.length - 1), Buffer.from([body.at(-1)! ^ 0xff])]);
  const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
  if (isOnnx && req.headers.range) ranges.push(req.headers.range);
  const start = range ? Number(range[1]) : 0;
  const part = body.subarray(start);
  res.writeHead(range ? 206 : 200, { 'content-length': String(part.length), 'x-linked-etag': `"${sha}"`, ...(range ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}) });
  if (!isOnnx) {
    res.end(part);
    return;
  }
  const cut = behaviour.cutAfter;
  behaviour.cutAfter = undefined;
  let sent = 0;
  const step = () => {
    if (res.destroyed) return;
    if (cut !== undefined && sent >= cut) {
      res.destroy();
      return;
    }
    const piece = part.subarray(sent, sent + 64 * 1024);
    sent += piece.length;
    if (sent >= part.length) res.end(piece);
    else {
      res.write(piece);
      setTimeout(step, behaviour.slowMs ?? 0);
    }
  };
  step();
}

beforeAll(async () => {
  const tiny = await buildTinyModel({ root: tmp.make(), modelId: MODEL, dim: 32 });
  source = tiny.modelDir;
  server = createServer(serve);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  tmp.cleanup();
});

describe('downloadModel', () => {
  it('downloads every file with progress, verifies it and installs a folder the probe accepts', async () => {
    behaviour = {};
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
    behaviour = { slowMs: 5 };
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

    behaviour = {};
    ranges.length = 0;
    await downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch });
    expect(ranges).toEqual([`bytes=${kept}-`]);
    expect(readFileSync(join(modelsDir, MODEL, ONNX)).equals(readFileSync(join(source, ONNX)))).toBe(true);
  });

  it('resumes after the connection breaks off', async () => {
    behaviour = { cutAfter: 512 * 1024 };
    const modelsDir = tmp.make();
    await expect(downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch })).rejects.toThrow(/broke off after \d+ bytes \(kept; it resumes next time\)/);
    ranges.length = 0;
    await downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch });
    expect(ranges).toHaveLength(1);
    expect(await probeModel({ modelId: MODEL, dirs: [modelsDir] })).toMatchObject({ ok: true });
  });

  it('refuses a file whose sha256 is not the announced one and leaves the installed model as it was', async () => {
    behaviour = {};
    const modelsDir = tmp.make();
    await downloadModel({ modelId: MODEL, modelsDir, baseUrl: base }, { fetch });
    const marker = join(modelsDir, MODEL, 'installed-before.txt');
    writeFileSync(marker, 'the earlier install');
    const before = readFileSync(join(modelsDir, MODEL, ONNX));

    behaviour = { corrupt: true };
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
