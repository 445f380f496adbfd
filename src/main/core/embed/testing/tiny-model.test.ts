import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTinyModel } from './tiny-model.ts';
import type { TinyModel } from './tiny-model.ts';

let root: string;
let model: TinyModel;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cp-tiny-'));
  model = await buildTinyModel({ root, dim: 8, seed: 7 });
});
afterAll(() => rm(root, { recursive: true, force: true }));

const int64 = (values: number[], dims: number[]) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);

describe('buildTinyModel', () => {
  it('writes an ONNX graph that onnxruntime runs as word + token-type lookup, zeroed where masked', async () => {
    const session = await ort.InferenceSession.create(join(model.modelDir, 'onnx', 'model_quantized.onnx'));
    expect(session.inputNames).toEqual(['input_ids', 'attention_mask', 'token_type_ids']);
    const ids = [101, 2023, 0];
    const types = [0, 1, 0];
    const out = await session.run({
      input_ids: int64(ids, [1, 3]),
      attention_mask: int64([1, 1, 0], [1, 3]),
      token_type_ids: int64(types, [1, 3]),
    });
    const hidden = out.last_hidden_state!;
    expect(hidden.dims).toEqual([1, 3, 8]);
    const data = hidden.data as Float32Array;
    for (let t = 0; t < 2; t++) {
      for (let k = 0; k < 8; k++) {
        const want = model.wordEmbedding[ids[t]! * 8 + k]! + model.typeEmbedding[types[t]! * 8 + k]!;
        expect(data[t * 8 + k]).toBeCloseTo(want, 6);
      }
    }
    for (const v of data.slice(16, 24)) expect(Math.abs(v)).toBe(0);
    await session.release();
  });

  it('runs residual feed-forward layers when asked, keeping the output shape', async () => {
    const deep = await buildTinyModel({ root, modelId: 'test/deep', dim: 8, layers: 2, hidden: 16, seed: 7 });
    const session = await ort.InferenceSession.create(join(deep.modelDir, 'onnx', 'model_quantized.onnx'));
    const out = await session.run({
      input_ids: int64([101, 102], [1, 2]),
      attention_mask: int64([1, 1], [1, 2]),
      token_type_ids: int64([0, 0], [1, 2]),
    });
    expect(out.last_hidden_state!.dims).toEqual([1, 2, 8]);
    // Same seed as the lookup-only model, so the first rows would be equal if the layers did nothing.
    const lookupOnly = model.wordEmbedding[101 * 8]! + model.typeEmbedding[0]!;
    expect((out.last_hidden_state!.data as Float32Array)[0]).not.toBeCloseTo(lookupOnly, 3);
    await session.release();
  });

  it('is deterministic for a seed and different across seeds', async () => {
    const again = await buildTinyModel({ root, modelId: 'test/again', dim: 8, seed: 7 });
    const other = await buildTinyModel({ root, modelId: 'test/other', dim: 8, seed: 8 });
    expect(again.wordEmbedding).toEqual(model.wordEmbedding);
    expect(other.wordEmbedding).not.toEqual(model.wordEmbedding);
    const a = await readFile(join(model.modelDir, 'onnx', 'model_quantized.onnx'));
    const b = await readFile(join(again.modelDir, 'onnx', 'model_quantized.onnx'));
    expect(a.equals(b)).toBe(true);
  });

  it('copies the real tokenizer and describes its own size in config.json', async () => {
    const config = JSON.parse(await readFile(join(model.modelDir, 'config.json'), 'utf8'));
    expect(config.hidden_size).toBe(8);
    expect(config.vocab_size).toBe(30522);
    expect(model.vocabSize).toBe(30522);
    const vocab = await readFile(join(model.modelDir, 'vocab.txt'), 'utf8');
    expect(vocab.split('\n')[101]).toBe('[CLS]');
  });
});
