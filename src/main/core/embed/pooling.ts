// Pooling and normalization over a [batch, seq, dims] hidden state, row-major as onnxruntime returns it.
// Same results as transformers.js mean_pooling / Tensor.normalize (embedder.test.ts checks against its pipeline),
// but transformers.js converts the int64 mask element by element for every dimension, which cost ~50 ms per batch of
// 32 x 170 tokens x 384 dims here, about a tenth of a real small model's inference time.

export function meanPool(hidden: Float32Array, size: number, seqLen: number, dims: number, lengths: readonly number[]): Float32Array {
  const out = new Float32Array(size * dims);
  // Summing in doubles, as transformers.js does, so long inputs lose no precision.
  const sum = new Float64Array(dims);
  for (let b = 0; b < size; b++) {
    const n = lengths[b]!;
    sum.fill(0);
    // Real tokens come first (right padding), so summing the first n rows is summing where the mask is 1.
    for (let t = 0; t < n; t++) {
      const h = (b * seqLen + t) * dims;
      for (let k = 0; k < dims; k++) sum[k]! += hidden[h + k]!;
    }
    for (let k = 0; k < dims; k++) out[b * dims + k] = sum[k]! / n;
  }
  return out;
}

export function clsPool(hidden: Float32Array, size: number, seqLen: number, dims: number): Float32Array {
  const out = new Float32Array(size * dims);
  for (let b = 0; b < size; b++) out.set(hidden.subarray(b * seqLen * dims, b * seqLen * dims + dims), b * dims);
  return out;
}

// L2-normalizes each row in place. An all-zero row stays zero rather than turning into NaNs.
export function normalizeRows(rows: Float32Array, dims: number): Float32Array {
  for (let o = 0; o < rows.length; o += dims) {
    let sum = 0;
    for (let k = 0; k < dims; k++) sum += rows[o + k]! * rows[o + k]!;
    const norm = Math.sqrt(sum);
    if (norm > 0) for (let k = 0; k < dims; k++) rows[o + k]! /= norm;
  }
  return rows;
}
