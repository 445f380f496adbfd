// Builds a small but real ONNX embedding model next to the real all-MiniLM-L6-v2 tokenizer, so that tests and the
// bench run the same transformers.js / onnxruntime loading, pooling and worker paths as a pretrained model would.
// The tokenizer files ship in the repository (test-fixtures/tokenizers, with their licence and sha256), so this works
// in any clone with nothing beside it.
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeModel, floatTensor, int64Tensor, TensorType } from './onnx-proto.ts';
import type { Node, Tensor } from './onnx-proto.ts';

export const TOKENIZER_FIXTURES_DIR = fileURLToPath(new URL('../../../../../test-fixtures/tokenizers/', import.meta.url));
export const TOKENIZER_SOURCE_ID = 'Xenova/all-MiniLM-L6-v2';
const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'vocab.txt'];

/**
 * The tiny model the tests embed with, and `npm run models:tiny -- DIR` writes: it answers to the default model's id
 * (so `contextpack embed` picks it up with no flag) but its vectors are random word vectors, useless for quality.
 */
export const TINY_TEST_MODEL = { modelId: 'Xenova/all-MiniLM-L6-v2', dim: 64, seed: 11 } as const;

export type TinyModelOptions = {
  // Models root: the model lands in <root>/<modelId>/.
  root: string;
  modelId?: string;
  dim?: number;
  // Residual ReLU feed-forward blocks after the embedding lookup. 0 keeps the output an exact table lookup (for
  // tests that recompute it by hand); the bench adds blocks so inference costs about what a real model's does.
  layers?: number;
  hidden?: number;
  seed?: number;
  // Which onnx/ files to write; transformers.js picks model_quantized.onnx for dtype q8 and model.onnx for fp32.
  // The graph is fp32 either way: only the file name has to match what the loader looks for.
  files?: string[];
  // Folder holding <TOKENIZER_SOURCE_ID>/ with the tokenizer files; the repository's fixtures by default.
  tokenizerDir?: string;
};

export type TinyModel = {
  root: string;
  modelId: string;
  modelDir: string;
  dims: number;
  vocabSize: number;
  // Row-major [vocabSize, dims] and [2, dims]; with layers = 0 a token's output row is word[id] + type[typeId].
  wordEmbedding: Float32Array;
  typeEmbedding: Float32Array;
};

// mulberry32: tiny, fast and deterministic across platforms, which Math.random is not.
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function uniform(n: number, scale: number, rand: () => number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (rand() * 2 - 1) * scale;
  return out;
}

export async function buildTinyModel(options: TinyModelOptions): Promise<TinyModel> {
  const modelId = options.modelId ?? 'contextpack/tiny-minilm';
  const dims = options.dim ?? 32;
  const layers = options.layers ?? 0;
  const hidden = options.hidden ?? dims * 4;
  const files = options.files ?? ['model_quantized.onnx'];
  const sourceDir = join(options.tokenizerDir ?? TOKENIZER_FIXTURES_DIR, TOKENIZER_SOURCE_ID);
  const modelDir = join(options.root, modelId);

  let sourceConfig: Record<string, unknown>;
  try {
    sourceConfig = JSON.parse(await readFile(join(sourceDir, 'config.json'), 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`tiny model: cannot read the tokenizer source at ${sourceDir}: ${(err as Error).message}`);
  }
  const vocabSize = Number(sourceConfig.vocab_size);

  await mkdir(join(modelDir, 'onnx'), { recursive: true });
  for (const f of TOKENIZER_FILES) await copyFile(join(sourceDir, f), join(modelDir, f));
  // hidden_size must describe this model, not MiniLM: the embedder reads its dimensions from it.
  const config = {
    ...sourceConfig,
    _name_or_path: modelId,
    hidden_size: dims,
    intermediate_size: hidden,
    num_hidden_layers: layers,
  };
  await writeFile(join(modelDir, 'config.json'), JSON.stringify(config, null, 2));

  const rand = seededRandom(options.seed ?? 1);
  const wordEmbedding = uniform(vocabSize * dims, 1, rand);
  const typeEmbedding = uniform(2 * dims, 0.1, rand);
  const initializers: Tensor[] = [
    floatTensor('word_embeddings', [vocabSize, dims], wordEmbedding),
    floatTensor('token_type_embeddings', [2, dims], typeEmbedding),
    int64Tensor('last_axis', [1], [-1]),
  ];
  const nodes: Node[] = [
    { opType: 'Gather', inputs: ['word_embeddings', 'input_ids'], outputs: ['words'], attributes: [{ name: 'axis', kind: 'int', value: 0 }] },
    { opType: 'Gather', inputs: ['token_type_embeddings', 'token_type_ids'], outputs: ['types'], attributes: [{ name: 'axis', kind: 'int', value: 0 }] },
    { opType: 'Add', inputs: ['words', 'types'], outputs: ['summed'] },
    // Zeroing padded positions consumes attention_mask, so every input a BERT export has is a real graph input.
    { opType: 'Cast', inputs: ['attention_mask'], outputs: ['mask_f'], attributes: [{ name: 'to', kind: 'int', value: TensorType.FLOAT }] },
    { opType: 'Unsqueeze', inputs: ['mask_f', 'last_axis'], outputs: ['mask_3d'] },
    { opType: 'Mul', inputs: ['summed', 'mask_3d'], outputs: ['h0'] },
  ];
  let h = 'h0';
  for (let l = 0; l < layers; l++) {
    // Uniform(-a, a) with a = sqrt(3 / fan_in) has variance 1 / fan_in, which keeps activations from blowing up.
    initializers.push(
      floatTensor(`w1_${l}`, [dims, hidden], uniform(dims * hidden, Math.sqrt(3 / dims), rand)),
      floatTensor(`b1_${l}`, [hidden], uniform(hidden, 0.01, rand)),
      floatTensor(`w2_${l}`, [hidden, dims], uniform(hidden * dims, Math.sqrt(3 / hidden), rand)),
    );
    nodes.push(
      { opType: 'MatMul', inputs: [h, `w1_${l}`], outputs: [`up_${l}`] },
      { opType: 'Add', inputs: [`up_${l}`, `b1_${l}`], outputs: [`biased_${l}`] },
      { opType: 'Relu', inputs: [`biased_${l}`], outputs: [`act_${l}`] },
      { opType: 'MatMul', inputs: [`act_${l}`, `w2_${l}`], outputs: [`down_${l}`] },
      { opType: 'Add', inputs: [h, `down_${l}`], outputs: [`h${l + 1}`] },
    );
    h = `h${l + 1}`;
  }
  nodes.push({ opType: 'Identity', inputs: [h], outputs: ['last_hidden_state'] });

  const tokens = ['batch_size', 'sequence_length'];
  const bytes = encodeModel({
    irVersion: 8,
    opset: 17,
    graph: {
      name: 'tiny_embedding',
      nodes,
      initializers,
      inputs: [
        { name: 'input_ids', elemType: TensorType.INT64, shape: tokens },
        { name: 'attention_mask', elemType: TensorType.INT64, shape: tokens },
        { name: 'token_type_ids', elemType: TensorType.INT64, shape: tokens },
      ],
      outputs: [{ name: 'last_hidden_state', elemType: TensorType.FLOAT, shape: [...tokens, dims] }],
    },
  });
  for (const f of files) await writeFile(join(modelDir, 'onnx', f), bytes);

  return { root: options.root, modelId, modelDir, dims, vocabSize, wordEmbedding, typeEmbedding };
}
