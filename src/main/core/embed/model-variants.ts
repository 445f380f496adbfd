// Other ways to multiply the same weights. The shipped graph stores each projection as 4-bit blocks (MatMulNBits,
// block 32, one fp32 scale per block, accuracy level 4); onnxruntime's speed depends on how those are multiplied.
// From those exact weights, with nothing downloaded, this writes:
//   fp32        MatMul on the dequantised weights (q - 8) * scale: the q4 graph's function, in fp32.
//   int8-tensor the dequantised weights requantised per output channel (symmetric int8), DynamicQuantizeMatMul
//               (activations quantised at run time with one scale for the whole input, u8s8 GEMM on VNNI, the bias
//               folded in). ContextPack runs every text alone (embed-core.ts embedEach), so that scale is the text's
//               own and its vector depends on nothing else. The fastest; but SciFact nDCG@10 (vector) fell 0.008.
//   int8-rows   activations quantised per token row instead (QuantizeLinear along the rows, MatMulInteger, row and
//               column scales): the previous release's int8; 13 nodes per projection make it slower.
//   int8        int8-tensor, except the feed-forward output projections (FC2), which are quantised per row: most of
//               the speed of the one, the accuracy of the other.
//   q8-blocks, q4-acc<n>, int8-fc2-fp32  rewrites measured and not kept (docs/semantic-search.md).
// Derived graphs run one text at a time, so attention needs no mask at all: it reads only queries, keys and values,
// which lets onnxruntime take its fast attention path; the export's [batch, heads, seq, seq] bias goes. Such a graph
// gives wrong vectors for padded rows of a batch: only embedEach (one text per run) may run it.
// Every other initializer is copied inline, so a derived graph is one self-contained file.
import { createHash } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DataType, encodeModel, encodeNode, encodeTensor, graphOutputs, readOnnxModel, tensorBytes, withInputs, withIntAttributes } from './onnx-rewrite.ts';
import type { NodeInfo, OnnxModel, TensorInfo } from './onnx-rewrite.ts';

export type DerivedVariant = 'fp32' | 'int8' | 'int8-tensor' | 'int8-rows' | 'int8-fc2-fp32' | 'q8-blocks' | `q4-acc${0 | 1 | 2 | 4}`;

// The feed-forward output projections. Their input, the GELU activations, is where one activation scale per run fits
// worst: a few tokens ([CLS], [SEP], punctuation) carry activations far larger than the rest, so those projections
// are quantised per token row in int8 (in fp32 in int8-fc2-fp32).
const FC2 = /\/mlp\/fc2\//;

type NBits = { node: NodeInfo; K: number; N: number; blockSize: number; weights: TensorInfo; scales: TensorInfo };

function nbitsOf(node: NodeInfo, byName: ReadonlyMap<string, TensorInfo>): NBits {
  const attr = (name: string): number | undefined => node.attributes.find((a) => a.name === name)?.i;
  const where = `MatMulNBits node ${node.name}`;
  const bits = attr('bits') ?? 4;
  if (bits !== 4) throw new Error(`${where}: ${bits}-bit weights are not supported (only 4)`);
  if (node.inputs.length > 3 && node.inputs.slice(3).some(Boolean)) {
    throw new Error(`${where}: zero points, group indices or bias inputs are not supported`);
  }
  const K = attr('K');
  const N = attr('N');
  const blockSize = attr('block_size');
  if (!K || !N || !blockSize) throw new Error(`${where}: K, N or block_size missing`);
  const weights = byName.get(node.inputs[1] ?? '');
  const scales = byName.get(node.inputs[2] ?? '');
  if (!weights || !scales) throw new Error(`${where}: its weights or scales are not initializers`);
  if (weights.dataType !== DataType.UINT8) throw new Error(`${where}: weights of type ${weights.dataType}, expected uint8`);
  if (scales.dataType !== DataType.FLOAT) throw new Error(`${where}: scales of type ${scales.dataType}, expected float`);
  return { node, K, N, blockSize, weights, scales };
}

/**
 * The dequantised weights of one MatMulNBits node, laid out [K, N] as MatMul's B. 4-bit values sit two to a byte,
 * low nibble first; with no zero-point input the zero point is 8.
 */
export function dequantiseNBits(q: Uint8Array, scales: Float32Array, K: number, N: number, blockSize: number): Float32Array {
  const blocks = Math.ceil(K / blockSize);
  const blob = blockSize / 2;
  if (q.length !== N * blocks * blob) throw new Error(`4-bit weights hold ${q.length} bytes, expected ${N * blocks * blob}`);
  if (scales.length !== N * blocks) throw new Error(`scales hold ${scales.length} values, expected ${N * blocks}`);
  const out = new Float32Array(K * N);
  for (let n = 0; n < N; n++) {
    for (let k = 0; k < K; k++) {
      const b = Math.floor(k / blockSize);
      const within = k % blockSize;
      const byte = q[(n * blocks + b) * blob + (within >> 1)]!;
      const nibble = within & 1 ? byte >> 4 : byte & 15;
      out[k * N + n] = (nibble - 8) * scales[n * blocks + b]!;
    }
  }
  return out;
}

/** Symmetric per-column int8: scale = max |w| / 127 for each of the N columns of a [K, N] matrix. */
export function quantisePerColumn(w: Float32Array, K: number, N: number): { q: Int8Array; scales: Float32Array } {
  const scales = new Float32Array(N);
  for (let n = 0; n < N; n++) {
    let max = 0;
    for (let k = 0; k < K; k++) max = Math.max(max, Math.abs(w[k * N + n]!));
    scales[n] = max > 0 ? max / 127 : 1;
  }
  const q = new Int8Array(K * N);
  for (let k = 0; k < K; k++) {
    for (let n = 0; n < N; n++) q[k * N + n] = Math.max(-127, Math.min(127, Math.round(w[k * N + n]! / scales[n]!)));
  }
  return { q, scales };
}

const bytesOf = (a: Float32Array | Int8Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const floatsOf = (b: Uint8Array): Float32Array => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

// A node of the graph being written: its bytes, and what it reads and writes (for pruning).
type OutNode = { bytes: Uint8Array; inputs: readonly string[]; outputs: readonly string[] };

const nodeOf = (n: { inputs: string[]; outputs: string[]; name: string; opType: string; domain?: string; attributes?: { name: string; i: number }[] }): OutNode => ({
  bytes: encodeNode(n),
  inputs: n.inputs,
  outputs: n.outputs,
});

/** The derived graph as bytes. Throws, naming the node, on anything it does not know how to rewrite. */
export type VariantOptions = {
  // int8: input channel -> power of two that the LayerNorm-fed projections' input is divided by and their weights'
  // row multiplied by (smoothing, see below). A property of the model's weights, so pinned with them (npm-model.ts).
  smoothChannels?: Readonly<Record<number, number>>;
};

export async function deriveVariantBytes(q4Path: string, variant: DerivedVariant, options: VariantOptions = {}): Promise<Uint8Array> {
  const model: OnnxModel = await readOnnxModel(q4Path);
  const byName = new Map(model.initializers.map((t) => [t.name, t]));
  const nbits = model.nodes.filter((n) => n.opType === 'MatMulNBits').map((n) => nbitsOf(n, byName));
  if (nbits.length === 0) throw new Error(`${q4Path} has no MatMulNBits node to rewrite`);
  const cache = new Map<string, Uint8Array>();
  const replaced = new Set<string>();
  // What each original node becomes: nothing (folded into another), or one or more nodes.
  const becomes = new Map<NodeInfo, OutNode[]>();
  const added: Uint8Array[] = [];
  const accuracy = /^q4-acc(\d)$/.exec(variant);
  // int8: constants and per-graph values its projections share (rowQuantisedMatMul).
  const rows = { added, shapes: new Set<number>() };
  const consumers = new Map<string, NodeInfo[]>();
  for (const n of model.nodes) for (const i of n.inputs) consumers.set(i, [...(consumers.get(i) ?? []), n]);
  const producers = new Map<string, NodeInfo>();
  for (const n of model.nodes) for (const o of n.outputs) producers.set(o, n);
  // The bias Add right after a projection folds into the rewritten node (its bias input, or its last Add): the Add
  // is dropped and the projection writes the Add's output.
  const foldBias = (node: NodeInfo, N: number): { bias?: string; output: string } => {
    const next = consumers.get(node.outputs[0]!) ?? [];
    const add = next.length === 1 && next[0]!.opType === 'Add' && !next[0]!.domain ? next[0]! : undefined;
    const bias = add?.inputs.find((i) => i !== node.outputs[0] && byName.get(i)?.dims.join() === String(N));
    if (!add || !bias) return { output: node.outputs[0]! };
    becomes.set(add, []);
    return { bias, output: add.outputs[0]! };
  };
  // int8: LayerNorm outputs whose smoothing Mul is made (once, before the first projection reading it).
  const smoothed = new Set<string>();
  for (const m of nbits) {
    const { node } = m;
    if (accuracy) {
      becomes.set(node, [{ bytes: withIntAttributes(node, [{ name: 'accuracy_level', i: Number(accuracy[1]) }]), inputs: node.inputs, outputs: node.outputs }]);
      continue;
    }
    const [a] = node.inputs;
    if (variant === 'q8-blocks') {
      // The same blocks and scales at 8 bits: nibble - 8 becomes byte - 128, so the weights are exactly the q4 ones.
      const q4 = await tensorBytes(model, m.weights, cache);
      const q8 = new Uint8Array(q4.length * 2);
      for (let i = 0; i < q4.length; i++) {
        q8[2 * i] = (q4[i]! & 15) + 120;
        q8[2 * i + 1] = (q4[i]! >> 4) + 120;
      }
      replaced.add(m.weights.name);
      added.push(encodeTensor({ name: `${m.weights.name}_8`, dims: [m.N, Math.ceil(m.K / m.blockSize), m.blockSize], dataType: DataType.UINT8, raw: q8 }));
      const attributes = [
        { name: 'K', i: m.K },
        { name: 'N', i: m.N },
        { name: 'accuracy_level', i: 4 },
        { name: 'bits', i: 8 },
        { name: 'block_size', i: m.blockSize },
      ];
      becomes.set(node, [nodeOf({ inputs: [a!, `${m.weights.name}_8`, node.inputs[2]!], outputs: node.outputs, name: node.name, opType: 'MatMulNBits', domain: 'com.microsoft', attributes })]);
      continue;
    }
    const w = dequantiseNBits(await tensorBytes(model, m.weights, cache), floatsOf(await tensorBytes(model, m.scales, cache)), m.K, m.N, m.blockSize);
    replaced.add(m.weights.name).add(m.scales.name);
    const base = m.weights.name.replace(/_Q4$/, '');
    if (variant === 'fp32' || (variant === 'int8-fc2-fp32' && FC2.test(node.name))) {
      added.push(encodeTensor({ name: `${base}_fp32`, dims: [m.K, m.N], dataType: DataType.FLOAT, raw: bytesOf(w) }));
      becomes.set(node, [nodeOf({ inputs: [a!, `${base}_fp32`], outputs: node.outputs, name: node.name, opType: 'MatMul' })]);
      continue;
    }
    // int8: a LayerNorm output has a few channels far larger than the rest (in all-MiniLM-L6-v2, channel 99 reaches
    // 13-15x the median channel's largest value before each fc1), and one activation scale per run spends most of
    // its 256 levels on them. As in SmoothQuant, x W = (x / s)(diag(s) W): the input is divided by a power of two in
    // those channels (one Mul per LayerNorm output, shared by its projections; exact in floating point) and the
    // weights' rows take the factor, where per-column quantisation absorbs it. The residual still reads x.
    const smooth = variant === 'int8' && producers.get(a!)?.opType === 'LayerNormalization' ? smoothing(options.smoothChannels, m.K) : undefined;
    const input = smooth ? `${a}_smoothed` : a!;
    const before: OutNode[] = [];
    if (smooth) {
      for (const [c, f] of smooth.factors) for (let n = 0; n < m.N; n++) w[c * m.N + n]! *= f;
      if (!smoothed.has(a!)) {
        smoothed.add(a!);
        added.push(encodeTensor({ name: `${a}_smooth`, dims: [m.K], dataType: DataType.FLOAT, raw: bytesOf(smooth.inverse) }));
        before.push(nodeOf({ inputs: [a!, `${a}_smooth`], outputs: [input], name: input, opType: 'Mul' }));
      }
    }
    const { q, scales } = quantisePerColumn(w, m.K, m.N);
    added.push(encodeTensor({ name: `${base}_int8`, dims: [m.K, m.N], dataType: DataType.INT8, raw: bytesOf(q) }));
    added.push(encodeTensor({ name: `${base}_int8_scale`, dims: [m.N], dataType: DataType.FLOAT, raw: bytesOf(scales) }));
    if (variant === 'int8-rows' || (variant === 'int8' && FC2.test(node.name))) {
      const { bias, output } = foldBias(node, m.N);
      becomes.set(node, rowQuantisedMatMul(base, a!, m.K, m.N, bias ? { bias, output } : { output }, rows));
      continue;
    }
    const { bias, output } = foldBias(node, m.N);
    becomes.set(node, [
      ...before,
      nodeOf({
        inputs: [input, `${base}_int8`, `${base}_int8_scale`, ...(bias ? ['', bias] : [])],
        outputs: [output],
        name: node.name,
        opType: 'DynamicQuantizeMatMul',
        domain: 'com.microsoft',
      }),
    ]);
  }
  if (!accuracy && variant !== 'q8-blocks') attentionWithoutMask(model, becomes);
  if (rows.shapes.size > 0) {
    // The shared values go before the first node, which reads only graph inputs.
    const first = model.nodes[0]!;
    becomes.set(first, [...rowPreamble(rows), ...(becomes.get(first) ?? [{ bytes: concatFields(first), inputs: first.inputs, outputs: first.outputs }])]);
  }
  const out = pruneDeadNodes(
    model.nodes.flatMap((n) => becomes.get(n) ?? [{ bytes: concatFields(n), inputs: n.inputs, outputs: n.outputs }]),
    new Set(graphOutputs(model)),
  );
  const read = new Set(out.flatMap((n) => n.inputs));
  const initializers: Uint8Array[] = [];
  for (const t of model.initializers) {
    // Initializers only the pruned nodes read go with them.
    if (replaced.has(t.name) || !read.has(t.name)) continue;
    initializers.push(encodeTensor({ name: t.name, dims: t.dims, dataType: t.dataType, raw: await tensorBytes(model, t, cache) }));
  }
  return encodeModel(
    model,
    out.map((n) => n.bytes),
    [...initializers, ...added],
  );
}

/** The factors that apply to a K-channel input (powers of two only, so dividing is exact), and their inverses. */
function smoothing(channels: Readonly<Record<number, number>> | undefined, K: number): { factors: [number, number][]; inverse: Float32Array } | undefined {
  const factors = Object.entries(channels ?? {})
    .map(([c, f]): [number, number] => [Number(c), f])
    .filter(([c, f]) => Number.isInteger(c) && c >= 0 && c < K && f > 0 && Number.isInteger(Math.log2(f)) && f !== 1)
    .sort((x, y) => x[0] - y[0]);
  if (factors.length === 0) return undefined;
  const inverse = new Float32Array(K).fill(1);
  for (const [c, f] of factors) inverse[c] = 1 / f;
  return { factors, inverse };
}

type Rows = { added: Uint8Array[]; shapes: Set<number> };

/**
 * int8 with activations quantised per token row (absmax / 127 of each row, uint8 around 128), so a chunk's vector
 * does not depend on what else shares its batch or how long the batch is padded: DynamicQuantizeMatMul quantises the
 * whole batch with one scale. A [B, L, K] -> [B*L, K], QuantizeLinear along axis 0, MatMulInteger with the int8
 * weights, then the row scales, the column scales and the bias; back to [B, L, N].
 */
function rowQuantisedMatMul(base: string, a: string, K: number, N: number, out: { bias?: string; output: string }, rows: Rows): OutNode[] {
  const f = (s: string) => `${base}_rows_${s}`;
  if (!rows.shapes.has(K)) {
    rows.added.push(encodeTensor({ name: `rows_k${K}`, dims: [2], dataType: DataType.INT64, raw: new Uint8Array(BigInt64Array.of(-1n, BigInt(K)).buffer) }));
    rows.shapes.add(K);
  }
  if (!rows.shapes.has(-N)) {
    rows.added.push(encodeTensor({ name: `rows_n${N}`, dims: [1], dataType: DataType.INT64, raw: new Uint8Array(BigInt64Array.of(BigInt(N)).buffer) }));
    rows.shapes.add(-N);
  }
  return [
    nodeOf({ inputs: [a, `rows_k${K}`], outputs: [f('a2')], name: f('reshape'), opType: 'Reshape' }),
    nodeOf({ inputs: [f('a2')], outputs: [f('abs')], name: f('abs'), opType: 'Abs' }),
    nodeOf({ inputs: [f('abs'), 'rows_axis1'], outputs: [f('max')], name: f('max'), opType: 'ReduceMax', attributes: [{ name: 'keepdims', i: 0 }] }),
    nodeOf({ inputs: [f('max'), 'rows_eps'], outputs: [f('maxe')], name: f('maxe'), opType: 'Max' }),
    nodeOf({ inputs: [f('maxe'), 'rows_127'], outputs: [f('scale')], name: f('scale'), opType: 'Div' }),
    nodeOf({ inputs: [f('a2'), f('scale'), 'rows_zp'], outputs: [f('q')], name: f('quantise'), opType: 'QuantizeLinear', attributes: [{ name: 'axis', i: 0 }] }),
    nodeOf({ inputs: [f('q'), `${base}_int8`, 'rows_zp128'], outputs: [f('i32')], name: f('matmul'), opType: 'MatMulInteger' }),
    nodeOf({ inputs: [f('i32')], outputs: [f('f32')], name: f('cast'), opType: 'Cast', attributes: [{ name: 'to', i: DataType.FLOAT }] }),
    nodeOf({ inputs: [f('f32'), `${base}_int8_scale`], outputs: [f('cols')], name: f('cols'), opType: 'Mul' }),
    nodeOf({ inputs: [f('scale'), 'rows_axis1'], outputs: [f('scale2')], name: f('scale2'), opType: 'Unsqueeze' }),
    nodeOf({ inputs: [f('cols'), f('scale2')], outputs: [out.bias ? f('y') : f('y2')], name: f('rowsmul'), opType: 'Mul' }),
    ...(out.bias ? [nodeOf({ inputs: [f('y'), out.bias], outputs: [f('y2')], name: f('bias'), opType: 'Add' })] : []),
    nodeOf({ inputs: [f('y2'), `rows_out${N}`], outputs: [out.output], name: f('reshape_out'), opType: 'Reshape' }),
  ];
}

/** What every row-quantised projection reads: [B, L] from input_ids, B*L zero points of 128, the out shapes. */
function rowPreamble(rows: Rows): OutNode[] {
  const scalarF = (name: string, v: number) => encodeTensor({ name, dims: [], dataType: DataType.FLOAT, raw: new Uint8Array(Float32Array.of(v).buffer) });
  rows.added.push(
    scalarF('rows_eps', 1e-12),
    scalarF('rows_127', 127),
    encodeTensor({ name: 'rows_axis1', dims: [1], dataType: DataType.INT64, raw: new Uint8Array(BigInt64Array.of(1n).buffer) }),
    encodeTensor({ name: 'rows_zp128', dims: [], dataType: DataType.UINT8, raw: Uint8Array.of(128) }),
    encodeTensor({ name: 'rows_zp128_1', dims: [1], dataType: DataType.UINT8, raw: Uint8Array.of(128) }),
  );
  const outShapes = [...rows.shapes].filter((n) => n < 0).map((n) => -n);
  return [
    nodeOf({ inputs: ['input_ids'], outputs: ['rows_bl'], name: 'rows/shape', opType: 'Shape' }),
    nodeOf({ inputs: ['rows_bl'], outputs: ['rows_n'], name: 'rows/n', opType: 'ReduceProd', attributes: [{ name: 'keepdims', i: 1 }] }),
    nodeOf({ inputs: ['rows_zp128_1', 'rows_n'], outputs: ['rows_zp'], name: 'rows/zp', opType: 'Expand' }),
    ...outShapes.map((n) => nodeOf({ inputs: ['rows_bl', `rows_n${n}`], outputs: [`rows_out${n}`], name: `rows/out${n}`, opType: 'Concat', attributes: [{ name: 'axis', i: 0 }] })),
  ];
}

/**
 * The export hands each MultiHeadAttention an additive mask expanded to [batch, heads, seq, seq] floats, built once
 * and read by every layer; with it, onnxruntime computes attention the slow way. A text that runs alone has no
 * padding to mask, so attention reads only queries, keys and values, and the expansion, now feeding nothing, is
 * pruned. On SciFact chunks that took int8 from 36.6 to 46.3 chunks/s (docs/semantic-search.md). Left alone unless
 * the graph has exactly the expected shape.
 */
function attentionWithoutMask(model: OnnxModel, becomes: Map<NodeInfo, OutNode[]>): void {
  const mha = model.nodes.filter((n) => n.opType === 'MultiHeadAttention' && n.domain === 'com.microsoft');
  if (mha.length === 0 || !mha.every((n) => !n.inputs[3] && !n.inputs[4] && n.inputs[5] && n.inputs.slice(6).every((i) => !i))) return;
  for (const n of mha) {
    const inputs = n.inputs.slice(0, 3);
    becomes.set(n, [{ bytes: withInputs(n, inputs), inputs, outputs: n.outputs }]);
  }
}

/** Drops nodes none of whose outputs is read by a kept node or the graph, until none is left. */
function pruneDeadNodes(nodes: OutNode[], finals: ReadonlySet<string>): OutNode[] {
  let kept = nodes;
  for (;;) {
    const read = new Set<string>(finals);
    for (const n of kept) for (const i of n.inputs) read.add(i);
    const next = kept.filter((n) => n.outputs.some((o) => read.has(o)));
    if (next.length === kept.length) return kept;
    kept = next;
  }
}

function concatFields(n: NodeInfo): Uint8Array {
  return Buffer.concat(n.fields.map((f) => f.raw));
}

/** Writes the derived graph through a temporary file and returns its sha256. */
export async function writeDerivedVariant(q4Path: string, variant: DerivedVariant, outPath: string, options: VariantOptions = {}): Promise<string> {
  const bytes = await deriveVariantBytes(q4Path, variant, options);
  await mkdir(dirname(outPath), { recursive: true });
  const part = `${outPath}.${process.pid}.part`;
  try {
    await writeFile(part, bytes);
    await rename(part, outPath);
  } finally {
    await rm(part, { force: true });
  }
  return createHash('sha256').update(bytes).digest('hex');
}
