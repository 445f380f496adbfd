// The model variants (model-variants.ts): each rewrite of a q4 graph loads through the real transformers.js /
// onnxruntime path and embeds like the q4 graph it came from (cosine >= 0.99, the same nearest neighbours); the
// derived files are checked against pinned digests. On a tiny model built like the shipped export, and on the real
// weights when the user cache holds them (the real-model tier fetches them; nothing here reaches the network).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testing/tmp.ts';
import { openInProcessEmbedder } from './embedder.ts';
import { deriveVariantBytes, dequantiseNBits, quantisePerColumn, writeDerivedVariant } from './model-variants.ts';
import { DataType, readOnnxModel, tensorBytes } from './onnx-rewrite.ts';
import { checkNpmModel, ensureDerivedFile, MINILM_NPM, realModelCacheDir, type NpmModelPin } from './npm-model.ts';
import { probeModel } from './probe.ts';
import type { ModelDtype } from './models.ts';
import { buildTinyQ4Model } from './testing/tiny-q4-model.ts';

const tmp = tempDirs('cp-variants-');
afterAll(() => tmp.cleanup());

const SENTENCES = [
  'The retry loop gives up after three attempts and logs the last error.',
  'Retries stop after the third failed attempt; the final error is logged.',
  'Pelicans nest on the coast in large colonies.',
  'Coastal colonies of pelicans build their nests together.',
  'The parser rejects a heading that imitates our own markers.',
  'Headings that look like ours are refused by the parser.',
];

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const nearest = (vs: Float32Array[]) => vs.map((v, i) => vs.map((w, j) => (i === j ? -2 : cos(v, w))).reduce((best, c, j, all) => (c > all[best]! ? j : best), 0));

async function embedWith(root: string, modelId: string, dtype: ModelDtype, spec: object = {}): Promise<Float32Array[]> {
  const probe = await probeModel({ modelId, dirs: [root], spec: { ...spec, dtype }, env: {} });
  if (!probe.ok) throw new Error(probe.reason);
  const embedder = await openInProcessEmbedder(probe);
  try {
    return await embedder.embedPassages(SENTENCES);
  } finally {
    await embedder.close();
  }
}

describe('model variants of a tiny q4 graph built like the shipped export', () => {
  let model: Awaited<ReturnType<typeof buildTinyQ4Model>>;
  beforeAll(async () => {
    model = await buildTinyQ4Model({ root: tmp.make() });
  });

  it('int8 and fp32 load and embed to the q4 vectors (cosine >= 0.99) with the same nearest neighbours', async () => {
    await writeDerivedVariant(model.onnxPath, 'int8', join(model.modelDir, 'onnx', 'model_int8.onnx'));
    await writeDerivedVariant(model.onnxPath, 'fp32', join(model.modelDir, 'onnx', 'model.onnx'));
    const spec = { pooling: 'mean' as const, maxTokens: 128 };
    const q4 = await embedWith(model.root, model.modelId, 'q4', spec);
    for (const dtype of ['int8', 'fp32'] as const) {
      const v = await embedWith(model.root, model.modelId, dtype, spec);
      const sims = v.map((x, i) => cos(x, q4[i]!));
      // fp32 differs from q4 only by q4's own int8 activations (accuracy level 4), which the tiny model's outlier channel strains.
      expect(Math.min(...sims), dtype).toBeGreaterThanOrEqual(dtype === 'fp32' ? 0.999 : 0.99);
      expect(nearest(v), dtype).toEqual(nearest(q4));
    }
  }, 60_000);

  it("a text's vector does not depend on what else is embedded with it (q4, int8, fp32), though int8's scale is per run", async () => {
    const spec = { pooling: 'mean' as const, maxTokens: 128 };
    await writeDerivedVariant(model.onnxPath, 'int8', join(model.modelDir, 'onnx', 'model_int8.onnx'));
    await writeDerivedVariant(model.onnxPath, 'fp32', join(model.modelDir, 'onnx', 'model.onnx'));
    for (const dtype of ['q4', 'int8', 'fp32'] as const) {
      const probe = await probeModel({ modelId: model.modelId, dirs: [model.root], spec: { ...spec, dtype }, env: {} });
      if (!probe.ok) throw new Error(probe.reason);
      const e = await openInProcessEmbedder(probe);
      const one = (await e.embedPassages([SENTENCES[0]!]))[0]!;
      const among = (await e.embedPassages([...SENTENCES].reverse())).at(-1)!;
      await e.close();
      expect([...one], dtype).toEqual([...among]);
    }
    // Why the embedder runs every text alone: in one run of two texts, int8 quantises both with one activation scale,
    // so the first text's output moves when a text of other values shares the run.
    const session = await ort.InferenceSession.create(join(model.modelDir, 'onnx', 'model_int8.onnx'));
    const run = async (rows: number[][]) => {
      const n = rows[0]!.length;
      const t = (v: number[]) => new ort.Tensor('int64', BigInt64Array.from(v.map(BigInt)), [rows.length, n]);
      const out = await session.run({ input_ids: t(rows.flat()), attention_mask: t(rows.flat().map(() => 1)), token_type_ids: t(rows.flat().map(() => 0)) });
      return [...(out.last_hidden_state!.data as Float32Array).slice(0, out.last_hidden_state!.dims[2]!)];
    };
    const text = [101, 7, 8, 9, 10, 102];
    const alone = await run([text]);
    expect(await run([text, text])).toEqual(alone);
    expect(await run([text, [101, 50, 51, 52, 53, 102]])).not.toEqual(alone);
    await session.release();
  }, 60_000);

  it('rewrites what it says: projections, folded biases, attention without a mask, nothing dead left', async () => {
    const q4 = await readOnnxModel(model.onnxPath);
    const ops = (m: typeof q4) => m.nodes.reduce<Record<string, number>>((c, n) => ({ ...c, [n.opType]: (c[n.opType] ?? 0) + 1 }), {});
    const rowsPath = join(tmp.make(), 'int8-rows.onnx');
    await writeFile(rowsPath, await deriveVariantBytes(model.onnxPath, 'int8-rows'));
    const rows = ops(await readOnnxModel(rowsPath));
    expect(rows.MatMulNBits).toBeUndefined();
    expect(rows.MatMulInteger).toBe(12);
    expect(rows.QuantizeLinear).toBe(12);
    const path = join(tmp.make(), 'int8.onnx');
    await writeFile(path, await deriveVariantBytes(model.onnxPath, 'int8'));
    const int8 = ops(await readOnnxModel(path));
    expect(ops(q4).MatMulNBits).toBe(12);
    expect(int8.MatMulNBits).toBeUndefined();
    expect(int8.DynamicQuantizeMatMul).toBe(12);
    // The 12 bias Adds went into DynamicQuantizeMatMul; the 4 residual Adds and the embeddings' Add stay.
    expect(int8.Add).toBe(ops(q4).Add! - 12);
    // The [batch, heads, seq, seq] mask and everything that built it is gone; attention reads q, k and v only.
    expect(int8.Expand).toBeUndefined();
    expect(int8.Concat).toBeUndefined();
    expect(int8.Cast).toBeUndefined();
    const mha = (await readOnnxModel(path)).nodes.filter((n) => n.opType === 'MultiHeadAttention');
    expect(mha.length).toBe(ops(q4).MultiHeadAttention);
    expect(mha.every((n) => n.inputs.length === 3)).toBe(true);
  });

  it('int8 smoothing: LayerNorm-fed projections read their input divided by powers of two, once per LayerNorm, and still embed like q4', async () => {
    const q4 = await readOnnxModel(model.onnxPath);
    const reads = (name: string) => q4.nodes.filter((n) => n.inputs.includes(name));
    const lnFeedingProjections = q4.nodes.filter((n) => n.opType === 'LayerNormalization' && reads(n.outputs[0]!).some((c) => c.opType === 'MatMulNBits'));
    expect(lnFeedingProjections.length).toBeGreaterThan(1);
    // 3 is not a power of two and 999 is past the model's width: both are ignored, not guessed at.
    const path = join(tmp.make(), 'smoothed.onnx');
    await writeFile(path, await deriveVariantBytes(model.onnxPath, 'int8', { smoothChannels: { 3: 4, 5: 3, 999: 2 } }));
    const smoothed = await readOnnxModel(path);
    const muls = smoothed.nodes.filter((n) => n.opType === 'Mul' && n.outputs[0]!.endsWith('_smoothed'));
    expect(muls.map((n) => n.inputs[0]).sort()).toEqual(lnFeedingProjections.map((n) => n.outputs[0]).sort());
    const inverse = smoothed.initializers.find((t) => t.name === muls[0]!.inputs[1])!;
    const values = [...new Float32Array((await tensorBytes(smoothed, inverse)).slice().buffer)];
    expect(values.map((v, c) => (v === 1 ? null : [c, v])).filter(Boolean)).toEqual([[3, 0.25]]);
    // Without smoothing the graph is the plain int8 one.
    expect(Buffer.from(await deriveVariantBytes(model.onnxPath, 'int8', { smoothChannels: { 5: 3 } })).equals(Buffer.from(await deriveVariantBytes(model.onnxPath, 'int8')))).toBe(true);
    await writeFile(join(model.modelDir, 'onnx', 'model_int8.onnx'), await readFile(path));
    const spec = { pooling: 'mean' as const, maxTokens: 128 };
    const ref = await embedWith(model.root, model.modelId, 'q4', spec);
    const v = await embedWith(model.root, model.modelId, 'int8', spec);
    expect(Math.min(...v.map((x, i) => cos(x, ref[i]!)))).toBeGreaterThanOrEqual(0.99);
    expect(nearest(v)).toEqual(nearest(ref));
    await writeDerivedVariant(model.onnxPath, 'int8', join(model.modelDir, 'onnx', 'model_int8.onnx'));
  }, 60_000);

  it('the same q4 file gives the same bytes every time (the digest can be pinned)', async () => {
    const a = await deriveVariantBytes(model.onnxPath, 'int8');
    const b = await deriveVariantBytes(model.onnxPath, 'int8');
    expect(createHash('sha256').update(a).digest('hex')).toBe(createHash('sha256').update(b).digest('hex'));
  });

  it('ensureDerivedFile: writes a missing or damaged derived file from its verified source; a digest mismatch is refused and leaves nothing', async () => {
    const dir = join(tmp.make(), 'm');
    await mkdir(join(dir, 'onnx'), { recursive: true });
    await copyFile(model.onnxPath, join(dir, 'onnx', 'model_q4.onnx'));
    const source = await readFile(join(dir, 'onnx', 'model_q4.onnx'));
    const derived = await deriveVariantBytes(model.onnxPath, 'int8');
    const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
    const pin = (derivedSha: string): NpmModelPin => ({
      spec: 'tiny@1',
      tarballSha256: '',
      from: '',
      modelId: 'm',
      files: { 'onnx/model_q4.onnx': { bytes: source.length, sha256: sha(source) } },
      derived: { 'onnx/model_int8.onnx': { from: 'onnx/model_q4.onnx', variant: 'int8', bytes: derived.length, sha256: derivedSha } },
    });
    const good = pin(sha(derived));
    const target = join(dir, 'onnx', 'model_int8.onnx');
    expect((await ensureDerivedFile(dir, 'onnx/model_int8.onnx', good)).written).toBe(true);
    expect(sha(await readFile(target))).toBe(sha(derived));
    expect((await ensureDerivedFile(dir, 'onnx/model_int8.onnx', good)).written).toBe(false);
    // A damaged copy is rewritten.
    const damaged = Buffer.from(await readFile(target));
    damaged[damaged.length - 1] ^= 0xff;
    await writeFile(target, damaged);
    expect((await ensureDerivedFile(dir, 'onnx/model_int8.onnx', good)).written).toBe(true);
    expect(sha(await readFile(target))).toBe(sha(derived));
    // What we produce must match the pin: otherwise refused, by name and digest, and nothing is left under the name.
    await rm(target);
    await expect(ensureDerivedFile(dir, 'onnx/model_int8.onnx', pin('0'.repeat(64)))).rejects.toThrow(/refused the derived .*model_int8\.onnx: .*sha256 [0-9a-f]{64}; pinned .*0{64}/);
    expect(existsSync(target)).toBe(false);
    // A source that is not the pinned one is not derived from.
    await writeFile(join(dir, 'onnx', 'model_q4.onnx'), Buffer.concat([source, Buffer.from([0])]));
    await expect(ensureDerivedFile(dir, 'onnx/model_int8.onnx', good)).rejects.toThrow(/cannot derive .*model_q4\.onnx has \d+ bytes, expected/);
  });
});

it('dequantises 4-bit blocks (low nibble first, zero point 8) and requantises per column', () => {
  // K = 4 in one block of 4, N = 2: column 0 nibbles 8, 9, 7, 15; column 1 nibbles 0, 8, 8, 8.
  const q = Uint8Array.of(0x98, 0xf7, 0x80, 0x88);
  const w = dequantiseNBits(q, Float32Array.of(0.5, 2), 4, 2, 4);
  expect([...w]).toEqual([0, -16, 0.5, 0, -0.5, 0, 3.5, 0]);
  const { q: q8, scales } = quantisePerColumn(w, 4, 2);
  expect([...scales]).toEqual([Math.fround(3.5 / 127), Math.fround(16 / 127)]);
  expect([...q8]).toEqual([0, -127, 18, 0, -18, 0, 127, 0]);
  expect(DataType.INT8).toBe(3);
});

// The real weights, when the real-model tier (or `contextpack models fetch`) has put them in the user cache.
const realRoot = realModelCacheDir();
const haveReal = (await checkNpmModel(realRoot).catch(() => 'no')) === null;
describe.skipIf(!haveReal)('model variants of the real all-MiniLM-L6-v2 q4 weights', () => {
  it('the derived int8 and fp32 graphs match their pinned digests and embed to the q4 vectors (cosine >= 0.99)', async () => {
    const dir = join(realRoot, MINILM_NPM.modelId);
    const copy = join(tmp.make(), MINILM_NPM.modelId);
    await mkdir(join(copy, 'onnx'), { recursive: true });
    for (const f of Object.keys(MINILM_NPM.files)) await copyFile(join(dir, f), join(copy, f));
    for (const name of Object.keys(MINILM_NPM.derived!)) {
      await ensureDerivedFile(copy, name);
      expect((await stat(join(copy, name))).size).toBe(MINILM_NPM.derived![name]!.bytes);
    }
    const root = join(copy, '..', '..');
    // First use of a folder with the q4 files only: the probe writes int8 (pinned digest) and picks it.
    await rm(join(copy, 'onnx', 'model_int8.onnx'));
    const first = await probeModel({ modelId: MINILM_NPM.modelId, dirs: [root], env: {} });
    expect(first.ok && first.spec.dtype).toBe('int8');
    expect(await checkNpmModel(root)).toBeNull();
    expect(createHash('sha256').update(await readFile(join(copy, 'onnx', 'model_int8.onnx'))).digest('hex')).toBe(MINILM_NPM.derived!['onnx/model_int8.onnx']!.sha256);
    // CONTEXTPACK_MODEL_DTYPE picks another.
    const q4Probe = await probeModel({ modelId: MINILM_NPM.modelId, dirs: [root], env: { CONTEXTPACK_MODEL_DTYPE: 'q4' } });
    expect(q4Probe.ok && q4Probe.spec.dtype).toBe('q4');
    expect(await probeModel({ modelId: MINILM_NPM.modelId, dirs: [root], env: { CONTEXTPACK_MODEL_DTYPE: 'int4' } })).toMatchObject({ ok: false, reason: expect.stringMatching(/CONTEXTPACK_MODEL_DTYPE=int4 is not one of/) });
    const q4 = await embedWith(root, MINILM_NPM.modelId, 'q4');
    for (const dtype of ['int8', 'fp32'] as const) {
      const v = await embedWith(root, MINILM_NPM.modelId, dtype);
      expect(Math.min(...v.map((x, i) => cos(x, q4[i]!))), dtype).toBeGreaterThanOrEqual(0.99);
      expect(nearest(v), dtype).toEqual(nearest(q4));
    }
  }, 120_000);
});
