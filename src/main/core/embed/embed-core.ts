// The embedding computation itself: transformers.js tokenizer, model loading and ONNX session, then pooling and
// normalization (pooling.ts). Runs wherever it is loaded; embed-worker.ts loads it in a worker thread so that
// inference never blocks the main process, and the in-process embedder loads it directly for tests and tools.
import { AutoModel, AutoTokenizer, env, Tensor } from '@huggingface/transformers';
import { join } from 'node:path';
import { GRAPH_OPTIMIZATION, ONNX_FILE_BY_DTYPE } from './models.ts';
import { clsPool, meanPool, normalizeRows } from './pooling.ts';
import type { ModelSpec } from './models.ts';
import { messageOf } from '../../../shared/message-of.ts';


export type CoreOptions = {
  // Models root: the model is <root>/<spec.id>/.
  root: string;
  spec: ModelSpec;
  // onnxruntime intra-op threads of the session; undefined: onnxruntime's choice (every core).
  threads?: number;
  // How many external-data files the graph has (probe.ts found them); the folder, not config.json, decides.
  externalData?: number;
};

export type TokenizedText = { ids: number[]; typeIds: number[] };

// Row-major [size, seqLen] int64 tensors, exactly what the ONNX graph consumes, right-padded. embedEach only ever
// makes batches of one text (no padding); benchmarks build larger ones to compare.
export type EncodedBatch = {
  size: number;
  seqLen: number;
  // Real (unpadded) token count of each row.
  lengths: number[];
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  tokenTypeIds: BigInt64Array;
};

export type EmbedCore = {
  readonly spec: ModelSpec;
  readonly dims: number;
  readonly onnxPath: string;
  tokenize(texts: readonly string[]): TokenizedText[];
  pad(seqs: readonly TokenizedText[]): EncodedBatch;
  // Pooled (and, if the model wants it, normalized) vectors, flattened [size * dims].
  infer(batch: EncodedBatch): Promise<Float32Array>;
  dispose(): Promise<void>;
};

// Pins transformers.js to local folders. allowRemoteModels=false alone already stops downloads; replacing fetch too
// makes any remote attempt fail loudly instead of hanging on a machine without network.
export function configureOfflineEnv(root: string): void {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = root;
  env.useFSCache = false;
  env.useBrowserCache = false;
  env.fetch = async (input: string | URL) => {
    throw new Error(`embedder is offline by design; refused to fetch ${String(input)}`);
  };
}

export async function loadEmbedCore(options: CoreOptions): Promise<EmbedCore> {
  const { spec, root } = options;
  const onnxPath = join(root, spec.id, 'onnx', ONNX_FILE_BY_DTYPE[spec.dtype]);
  configureOfflineEnv(root);
  let tokenizer: Awaited<ReturnType<typeof AutoTokenizer.from_pretrained>>;
  let model: Awaited<ReturnType<typeof AutoModel.from_pretrained>>;
  const { threads } = options;
  try {
    tokenizer = await AutoTokenizer.from_pretrained(spec.id, { local_files_only: true });
  } catch (err) {
    throw new Error(`cannot load the tokenizer of ${spec.id} from ${join(root, spec.id)}: ${messageOf(err)}`);
  }
  try {
    model = await AutoModel.from_pretrained(spec.id, {
      local_files_only: true,
      dtype: spec.dtype,
      device: 'cpu',
      use_external_data_format: options.externalData ?? 0,
      session_options: {
        ...(threads ? { intraOpNumThreads: threads, interOpNumThreads: 1 } : {}),
        ...(GRAPH_OPTIMIZATION[spec.dtype] ? { graphOptimizationLevel: GRAPH_OPTIMIZATION[spec.dtype] } : {}),
      },
    });
  } catch (err) {
    throw new Error(`cannot load the embedding model ${spec.id} from ${onnxPath}: ${messageOf(err)}`);
  }
  const dims = await readHiddenSize(model, spec);
  const specialIds = new Set<number>(tokenizer.all_special_ids);
  const padId = tokenizer.pad_token_id ?? 0;

  const tokenize = (texts: readonly string[]): TokenizedText[] => {
    if (texts.length === 0) return [];
    const enc = tokenizer([...texts], { padding: false, truncation: false, return_tensor: false }) as unknown as {
      input_ids: number[][];
      token_type_ids?: number[][];
    };
    return enc.input_ids.map((ids, i) =>
      truncateKeepingEnd(ids, enc.token_type_ids?.[i] ?? new Array<number>(ids.length).fill(0), spec.maxTokens, specialIds),
    );
  };

  const pad = (seqs: readonly TokenizedText[]): EncodedBatch => {
    const size = seqs.length;
    const seqLen = Math.max(1, ...seqs.map((s) => s.ids.length));
    const inputIds = new BigInt64Array(size * seqLen).fill(BigInt(padId));
    const attentionMask = new BigInt64Array(size * seqLen);
    const tokenTypeIds = new BigInt64Array(size * seqLen);
    seqs.forEach((s, row) => {
      const base = row * seqLen;
      for (let j = 0; j < s.ids.length; j++) {
        inputIds[base + j] = BigInt(s.ids[j]!);
        attentionMask[base + j] = 1n;
        tokenTypeIds[base + j] = BigInt(s.typeIds[j]!);
      }
    });
    return { size, seqLen, lengths: seqs.map((s) => s.ids.length), inputIds, attentionMask, tokenTypeIds };
  };

  const infer = async (batch: EncodedBatch): Promise<Float32Array> => {
    const shape = [batch.size, batch.seqLen];
    const outputs = (await model({
      input_ids: new Tensor('int64', batch.inputIds, shape),
      attention_mask: new Tensor('int64', batch.attentionMask, shape),
      token_type_ids: new Tensor('int64', batch.tokenTypeIds, shape),
    })) as Record<string, Tensor | undefined>;
    const hidden = outputs.last_hidden_state ?? outputs.token_embeddings;
    if (!hidden) throw new Error(`${onnxPath} has no last_hidden_state output (got ${Object.keys(outputs).join(', ')})`);
    if (hidden.dims.length !== 3 || hidden.dims[2] !== dims) {
      throw new Error(`${onnxPath} produced shape [${hidden.dims}] but config.json says hidden_size ${dims}`);
    }
    const data = hidden.data as Float32Array;
    const pooled =
      spec.pooling === 'mean'
        ? meanPool(data, batch.size, batch.seqLen, dims, batch.lengths)
        : clsPool(data, batch.size, batch.seqLen, dims);
    return spec.normalize ? normalizeRows(pooled, dims) : pooled;
  };

  return {
    spec,
    dims,
    onnxPath,
    tokenize,
    pad,
    infer,
    dispose: async () => {
      await model.dispose();
    },
  };
}

async function readHiddenSize(model: { config: unknown }, spec: ModelSpec): Promise<number> {
  const hidden = (model.config as { hidden_size?: unknown }).hidden_size;
  return typeof hidden === 'number' && hidden > 0 ? hidden : spec.dims;
}

// transformers.js truncation cuts the trailing [SEP] off long inputs; BERT-family models were trained with it, so
// keep the final special token and drop word pieces before it instead.
export function truncateKeepingEnd(
  ids: number[],
  typeIds: number[],
  maxTokens: number,
  specialIds: ReadonlySet<number>,
): TokenizedText {
  if (ids.length <= maxTokens) return { ids, typeIds };
  const last = ids.length - 1;
  if (specialIds.has(ids[last]!)) {
    return {
      ids: [...ids.slice(0, maxTokens - 1), ids[last]!],
      typeIds: [...typeIds.slice(0, maxTokens - 1), typeIds[last]!],
    };
  }
  return { ids: ids.slice(0, maxTokens), typeIds: typeIds.slice(0, maxTokens) };
}

// Texts are tokenized a window at a time, so a 50,000-chunk ingest holds one window's tokens at a time.
const WINDOW = 512;

/**
 * Embeds every text alone, as a batch of one, reporting each group of `reportEvery` finished texts (their indices
 * and flattened vectors). Alone, because then a vector is a function of its text only: not of what shares its batch
 * (dynamically quantised graphs scale activations over the whole batch) nor of the padding, so a store holds the same
 * vectors however it was filled. It costs nothing: with no padding there is no wasted work, and attention can take its
 * fast path without a mask (model-variants.ts); lanes of workers (embedder.ts) keep every core busy instead.
 */
export async function embedEach(
  core: EmbedCore,
  texts: readonly string[],
  reportEvery: number,
  onBatch: (indices: number[], vectors: Float32Array) => void,
): Promise<void> {
  if (!(reportEvery >= 1)) throw new Error(`texts per report must be at least 1, got ${reportEvery}`);
  for (let start = 0; start < texts.length; start += WINDOW) {
    const tokenized = core.tokenize(texts.slice(start, start + WINDOW));
    for (let at = 0; at < tokenized.length; at += reportEvery) {
      const group = tokenized.slice(at, at + reportEvery);
      const out = new Float32Array(group.length * core.dims);
      for (let i = 0; i < group.length; i++) out.set(await core.infer(core.pad([group[i]!])), i * core.dims);
      onBatch(
        group.map((_, i) => start + at + i),
        out,
      );
    }
  }
}
