import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetchModel, parseArgs } from './fetch-models.ts';
import { REPO_RESOURCES_MODELS_DIR } from './model-dirs.ts';
import { probeModel } from './probe.ts';
import { buildTinyModel } from './testing/tiny-model.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cp-fetch-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const quiet = { log: () => {} };

// Serves a model folder as the hub would, recording the URLs asked for.
async function hubServing(modelDir: string, requested: string[], tamper?: (name: string, body: Uint8Array) => Response | undefined) {
  return (async (input: string | URL | Request) => {
    const url = String(input);
    requested.push(url);
    const name = url.split('/resolve/main/')[1]!;
    let body: Uint8Array;
    try {
      body = await readFile(join(modelDir, name));
    } catch {
      return new Response('not found', { status: 404 });
    }
    const digest = createHash('sha256').update(body).digest('hex');
    return tamper?.(name, body) ?? new Response(body, { headers: { 'content-length': String(body.length), 'x-linked-etag': `"${digest}"` } });
  }) as typeof fetch;
}

describe('fetchModel', () => {
  it('fails with a clear message when offline', async () => {
    const offline = (async () => {
      throw new TypeError('fetch failed', { cause: new Error('getaddrinfo ENOTFOUND huggingface.co') });
    }) as typeof fetch;
    await expect(fetchModel({ modelId: 'Xenova/gte-small', dir }, { fetch: offline, ...quiet })).rejects.toThrow(
      /cannot reach https:\/\/huggingface\.co \(getaddrinfo ENOTFOUND huggingface\.co\)\. This needs a networked machine/,
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('downloads the files of the dtype into <dir>/<model id>/, giving a folder the probe accepts', async () => {
    const source = await buildTinyModel({ root: join(dir, 'hub'), modelId: 'Xenova/gte-small', dim: 8 });
    const requested: string[] = [];
    const target = join(dir, 'models');
    const files = await fetchModel(
      { modelId: 'Xenova/gte-small', dir: target, hub: 'https://hub.example/' },
      { fetch: await hubServing(source.modelDir, requested), ...quiet },
    );
    expect(requested[0]).toBe('https://hub.example/Xenova/gte-small/resolve/main/config.json');
    expect(requested.at(-1)).toBe('https://hub.example/Xenova/gte-small/resolve/main/onnx/model_quantized.onnx');
    expect(files.map((f) => f.name)).toContain('onnx/model_quantized.onnx');
    const probe = await probeModel({ modelId: 'Xenova/gte-small', dirs: [target] });
    expect(probe).toMatchObject({ ok: true, dims: 8 });
  });

  it('rejects a body shorter than its Content-Length and installs nothing', async () => {
    const source = await buildTinyModel({ root: join(dir, 'hub'), modelId: 'Xenova/gte-small', dim: 8 });
    const fetchShort = await hubServing(source.modelDir, [], (name, body) =>
      name === 'tokenizer.json'
        ? new Response(body.slice(0, 100), { headers: { 'content-length': String(body.length), etag: `"${createHash('sha256').update(body).digest('hex')}"` } })
        : undefined,
    );
    await expect(fetchModel({ modelId: 'Xenova/gte-small', dir }, { fetch: fetchShort, ...quiet })).rejects.toThrow(
      /tokenizer\.json declared \d+ bytes but sent 100/,
    );
    // Nothing reaches the model folder until every file is complete; the finished config.json waits in staging.
    await expect(readdir(join(dir, 'Xenova/gte-small'))).rejects.toThrow(/ENOENT/);
    expect((await readdir(join(dir, '.downloads/Xenova/gte-small'))).sort()).toEqual(['config.json', 'contextpack-download.json']);
  });

  it('checks the published size and hash of all-MiniLM-L6-v2 files', async () => {
    const source = await buildTinyModel({ root: join(dir, 'hub'), dim: 8 });
    // The tiny model's config.json is not the published one, so its hash must not pass.
    await expect(
      fetchModel({ modelId: 'Xenova/all-MiniLM-L6-v2', dir }, { fetch: await hubServing(source.modelDir, []), ...quiet }),
    ).rejects.toThrow(/config\.json gave \d+ bytes .* expected 650/);
  });
});

describe('parseArgs', () => {
  it('defaults to all-MiniLM-L6-v2 into resources/models, and reads model, --dir, --dtype and HF_ENDPOINT', () => {
    expect(parseArgs([], {})).toEqual({ modelId: 'Xenova/all-MiniLM-L6-v2', dir: REPO_RESOURCES_MODELS_DIR, hub: 'https://huggingface.co' });
    expect(parseArgs(['Xenova/e5-small-v2', '--dir', '/m', '--dtype', 'fp32'], { HF_ENDPOINT: 'https://mirror' })).toEqual({
      modelId: 'Xenova/e5-small-v2',
      dir: '/m',
      dtype: 'fp32',
      hub: 'https://mirror',
    });
    expect(() => parseArgs(['--dtype', 'q3'], {})).toThrow(/--dtype must be one of/);
  });
});
