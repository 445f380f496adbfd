// A tiny model built the way the shipped all-MiniLM-L6-v2 q4 export is (onnx-community, onnxruntime-genai's builder):
// every projection a 4-bit MatMulNBits (block 32, fp32 scales, accuracy level 4) plus a bias Add, attention through
// com.microsoft MultiHeadAttention fed an additive mask expanded to [batch, heads, seq, seq], Gelu between the
// feed-forward projections. Tests run model-variants.ts's rewrites on it with no real weights at hand.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeModel, floatTensor, int64Tensor, TensorType } from './onnx-proto.ts';
import type { Node, Tensor } from './onnx-proto.ts';
import { buildTinyModel, seededRandom } from './tiny-model.ts';

export type TinyQ4Options = { root: string; modelId?: string; dim?: number; hidden?: number; heads?: number; layers?: number; seed?: number };

const BLOCK = 32;

export async function buildTinyQ4Model(options: TinyQ4Options): Promise<{ root: string; modelId: string; modelDir: string; onnxPath: string }> {
  const dim = options.dim ?? 64;
  const hidden = options.hidden ?? dim * 2;
  const heads = options.heads ?? 4;
  const layers = options.layers ?? 2;
  // The tokenizer, config and embedding tables of the plain tiny model; no graph of its own.
  const base = await buildTinyModel({ root: options.root, modelId: options.modelId ?? 'contextpack/tiny-q4', dim, layers: 0, files: [], seed: options.seed ?? 5 });
  const rand = seededRandom((options.seed ?? 5) + 1);
  const initializers: Tensor[] = [
    floatTensor('word_embeddings', [base.vocabSize, dim], base.wordEmbedding),
    floatTensor('token_type_embeddings', [2, dim], base.typeEmbedding),
    floatTensor('one', [], Float32Array.of(1)),
    floatTensor('lowest', [], Float32Array.of(-3.4028234663852886e38)),
    int64Tensor('axis0', [1], [0]),
    int64Tensor('axis1', [1], [1]),
    int64Tensor('axis2', [1], [2]),
    int64Tensor('i0', [], [0]),
    int64Tensor('i1', [], [1]),
    int64Tensor('heads', [1], [heads]),
  ];
  const ms = 'com.microsoft';
  const nodes: Node[] = [
    { opType: 'Gather', inputs: ['word_embeddings', 'input_ids'], outputs: ['words'] },
    { opType: 'Gather', inputs: ['token_type_embeddings', 'token_type_ids'], outputs: ['types'] },
    { opType: 'Add', inputs: ['words', 'types'], outputs: ['h0'] },
    // (1 - mask) * lowest, as [batch, 1, 1, seq], expanded to [batch, heads, seq, seq]: the export's mask path.
    { opType: 'Cast', inputs: ['attention_mask'], outputs: ['mask_f'], attributes: [{ name: 'to', kind: 'int', value: TensorType.FLOAT }] },
    { opType: 'Sub', inputs: ['one', 'mask_f'], outputs: ['inverted'] },
    { opType: 'Mul', inputs: ['inverted', 'lowest'], outputs: ['additive'] },
    { opType: 'Unsqueeze', inputs: ['additive', 'axis1'], outputs: ['mask_3d'] },
    { opType: 'Unsqueeze', inputs: ['mask_3d', 'axis2'], outputs: ['mask_4d'] },
    { opType: 'Shape', inputs: ['attention_mask'], outputs: ['mask_shape'] },
    { opType: 'Gather', inputs: ['mask_shape', 'i0'], outputs: ['batch'] },
    { opType: 'Gather', inputs: ['mask_shape', 'i1'], outputs: ['seq'] },
    { opType: 'Unsqueeze', inputs: ['batch', 'axis0'], outputs: ['batch_1d'] },
    { opType: 'Unsqueeze', inputs: ['seq', 'axis0'], outputs: ['seq_1d'] },
    { opType: 'Concat', inputs: ['batch_1d', 'heads', 'seq_1d', 'seq_1d'], outputs: ['bias_shape'], attributes: [{ name: 'axis', kind: 'int', value: 0 }] },
    { opType: 'Expand', inputs: ['mask_4d', 'bias_shape'], outputs: ['attention_bias'] },
  ];
  // A 4-bit projection [K -> N] and its bias: random nibbles, one fp32 scale per block of 32 (variance about 1 / K).
  const projection = (name: string, input: string, K: number, N: number): string => {
    const blocks = K / BLOCK;
    const q = new Uint8Array(N * blocks * (BLOCK / 2));
    for (let i = 0; i < q.length; i++) q[i] = Math.floor(rand() * 16) | (Math.floor(rand() * 16) << 4);
    const scales = new Float32Array(N * blocks);
    for (let i = 0; i < scales.length; i++) scales[i] = (Math.sqrt(3 / K) / 8) * (0.5 + rand());
    const bias = new Float32Array(N);
    for (let i = 0; i < N; i++) bias[i] = (rand() * 2 - 1) * 0.02;
    initializers.push(
      { name: `${name}.weight_Q4`, dims: [N, blocks, BLOCK / 2], dataType: TensorType.UINT8, raw: q },
      floatTensor(`${name}.weight_scales`, [N * blocks], scales),
      floatTensor(`${name}.bias`, [N], bias),
    );
    nodes.push(
      {
        opType: 'MatMulNBits',
        domain: ms,
        inputs: [input, `${name}.weight_Q4`, `${name}.weight_scales`],
        outputs: [`${name}.out`],
        attributes: [
          { name: 'K', kind: 'int', value: K },
          { name: 'N', kind: 'int', value: N },
          { name: 'accuracy_level', kind: 'int', value: 4 },
          { name: 'bits', kind: 'int', value: 4 },
          { name: 'block_size', kind: 'int', value: BLOCK },
        ],
      },
      { opType: 'Add', inputs: [`${name}.out`, `${name}.bias`], outputs: [`${name}.biased`] },
    );
    return `${name}.biased`;
  };
  // Post-LN as in BERT, with one channel's gamma far larger than the rest: the outlier channel real models have.
  const layerNorm = (name: string, input: string): string => {
    const gamma = Float32Array.from({ length: dim }, (_, c) => (c === 3 ? 8 : 1) * (0.8 + 0.4 * rand()));
    const beta = Float32Array.from({ length: dim }, () => (rand() * 2 - 1) * 0.05);
    initializers.push(floatTensor(`${name}.gamma`, [dim], gamma), floatTensor(`${name}.beta`, [dim], beta));
    nodes.push({ opType: 'LayerNormalization', inputs: [input, `${name}.gamma`, `${name}.beta`], outputs: [name], attributes: [{ name: 'axis', kind: 'int', value: -1 }] });
    return name;
  };
  let h = 'h0';
  for (let l = 0; l < layers; l++) {
    const [q, k, v] = ['q', 'k', 'v'].map((p) => projection(`l${l}.${p}`, h, dim, dim));
    nodes.push({
      opType: 'MultiHeadAttention',
      domain: ms,
      inputs: [q!, k!, v!, '', '', 'attention_bias'],
      outputs: [`l${l}.attn`],
      attributes: [{ name: 'num_heads', kind: 'int', value: heads }],
    });
    const o = projection(`l${l}.o`, `l${l}.attn`, dim, dim);
    nodes.push({ opType: 'Add', inputs: [h, o], outputs: [`l${l}.mid_sum`] });
    const mid = layerNorm(`l${l}.mid`, `l${l}.mid_sum`);
    const up = projection(`l${l}.up`, mid, dim, hidden);
    nodes.push({ opType: 'Gelu', domain: ms, inputs: [up], outputs: [`l${l}.act`] });
    const down = projection(`l${l}.down`, `l${l}.act`, hidden, dim);
    nodes.push({ opType: 'Add', inputs: [mid, down], outputs: [`l${l}.out_sum`] });
    h = layerNorm(`l${l}.out`, `l${l}.out_sum`);
  }
  nodes.push({ opType: 'Identity', inputs: [h], outputs: ['last_hidden_state'] });
  const tokens = ['batch_size', 'sequence_length'];
  const bytes = encodeModel({
    irVersion: 10,
    opset: 21,
    domains: [{ domain: ms, version: 1 }],
    graph: {
      name: 'tiny_q4',
      nodes,
      initializers,
      inputs: [
        { name: 'input_ids', elemType: TensorType.INT64, shape: tokens },
        { name: 'attention_mask', elemType: TensorType.INT64, shape: tokens },
        { name: 'token_type_ids', elemType: TensorType.INT64, shape: tokens },
      ],
      outputs: [{ name: 'last_hidden_state', elemType: TensorType.FLOAT, shape: [...tokens, dim] }],
    },
  });
  const onnxPath = join(base.modelDir, 'onnx', 'model_q4.onnx');
  await writeFile(onnxPath, bytes);
  return { root: options.root, modelId: base.modelId, modelDir: base.modelDir, onnxPath };
}
