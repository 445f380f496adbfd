// Benchmarks embed the same corpus run after run (SciFact: ~9,000 chunks, minutes on 2 cores). This wraps an
// embedder so passages it has seen come from a file under .bench/, keyed by the model fingerprint and the sha256 of
// the passage text: a changed model or chunker misses the cache instead of reusing stale vectors.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PassageEmbedder } from '../../src/main/core/vectors/backfill.ts';

const KEY = 32;

export function embedCachePath(dir: string, fingerprint: string): string {
  return join(dir, `embeddings-${fingerprint}.bin`);
}

export function cachedEmbedder<E extends PassageEmbedder>(embedder: E, file: string): E & { hits: () => number } {
  const dims = embedder.dims;
  const record = KEY + dims * 4;
  const cache = new Map<string, Float32Array>();
  if (existsSync(file)) {
    const buf = readFileSync(file);
    for (let at = 0; at + record <= buf.length; at += record) {
      const vec = new Float32Array(dims);
      Buffer.from(vec.buffer).set(buf.subarray(at + KEY, at + record));
      cache.set(buf.subarray(at, at + KEY).toString('hex'), vec);
    }
  }
  mkdirSync(dirname(file), { recursive: true });
  let hits = 0;
  const keyOf = (t: string) => createHash('sha256').update(t).digest('hex');
  const embedPassages = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const keys = texts.map(keyOf);
    const todo = keys.map((k, i) => (cache.has(k) ? -1 : i)).filter((i) => i >= 0);
    hits += texts.length - todo.length;
    if (todo.length > 0) {
      const fresh = await embedder.embedPassages(todo.map((i) => texts[i]!));
      const out: Buffer[] = [];
      todo.forEach((i, j) => {
        cache.set(keys[i]!, fresh[j]!);
        out.push(Buffer.from(keys[i]!, 'hex'), Buffer.from(fresh[j]!.buffer, fresh[j]!.byteOffset, dims * 4));
      });
      appendFileSync(file, Buffer.concat(out));
    }
    return keys.map((k) => cache.get(k)!);
  };
  return Object.assign(Object.create(embedder) as E, { embedPassages, hits: () => hits });
}
