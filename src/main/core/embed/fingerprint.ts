// A model fingerprint changes whenever the vectors a model produces could change: other weights, another tokenizer,
// other pooling or prefixes. Stored vectors carry it so a model swap is detected rather than mixed into one index.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { GRAPH_OPTIMIZATION, type ModelSpec } from './models.ts';

// Hashing a 90 MB fp32 model takes a noticeable fraction of a second; probes repeat, files rarely change.
const fileHashCache = new Map<string, string>();

async function hashFile(path: string): Promise<string> {
  const s = await stat(path);
  const key = `${path}\0${s.size}\0${s.mtimeMs}`;
  const cached = fileHashCache.get(key);
  if (cached) return cached;
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  const digest = hash.digest('hex');
  fileHashCache.set(key, digest);
  return digest;
}

// files: [name, absolute path] pairs; names (not paths) enter the hash so a copied folder keeps its fingerprint.
export async function modelFingerprint(spec: ModelSpec, dims: number, files: readonly [string, string][]): Promise<string> {
  const h = createHash('sha256');
  h.update(
    JSON.stringify({
      id: spec.id,
      dims,
      pooling: spec.pooling,
      normalize: spec.normalize,
      queryPrefix: spec.queryPrefix,
      passagePrefix: spec.passagePrefix,
      maxTokens: spec.maxTokens,
      dtype: spec.dtype,
      // Only when not onnxruntime's default, so other models' fingerprints stay as they were.
      ...(GRAPH_OPTIMIZATION[spec.dtype] ? { graphOptimization: GRAPH_OPTIMIZATION[spec.dtype] } : {}),
    }),
  );
  for (const [name, path] of [...files].sort((a, b) => a[0].localeCompare(b[0]))) {
    h.update(`\n${name}:${await hashFile(path)}`);
  }
  return h.digest('hex').slice(0, 16);
}
