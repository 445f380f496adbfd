// Maximal marginal relevance (Carbonell & Goldstein, 1998): picks, one at a time, the candidate that best balances
// relevance against similarity to what is already picked, so near-duplicate chunks do not fill the top k.

export interface MmrCandidate {
  chunkId: number;
  /** Any "higher is better" score; min-max normalized to [0, 1] over the candidates before use. */
  relevance: number;
}

export interface MmrPick {
  chunkId: number;
  /** λ·relevance − (1−λ)·max(0, max cosine to earlier picks); non-increasing down the list. */
  score: number;
}

export const DEFAULT_MMR_LAMBDA = 0.5;

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * `vectors` should be unit length. A candidate without a vector (a BM25 hit on a chunk not embedded yet) counts as
 * dissimilar to everything. Negative similarities are clamped to 0 so that picks' scores never increase.
 */
export function mmrSelect(candidates: readonly MmrCandidate[], vectors: ReadonlyMap<number, Float32Array>, k: number, lambda = DEFAULT_MMR_LAMBDA): MmrPick[] {
  if (!(lambda >= 0 && lambda <= 1)) throw new Error(`mmr lambda must be in [0, 1], got ${lambda}`);
  // Ties keep the caller's order (a stable sort): BM25 breaks them by path and line, never by row id (#35).
  const pool = [...candidates].sort((a, b) => b.relevance - a.relevance);
  if (pool.length === 0 || k <= 0) return [];
  const max = pool[0]!.relevance;
  const min = pool[pool.length - 1]!.relevance;
  const span = max - min;
  const rel = pool.map((c) => (span > 0 ? (c.relevance - min) / span : 1));
  const vecs = pool.map((c) => vectors.get(c.chunkId));
  // maxSim[i]: highest similarity of candidate i to any pick so far (updated incrementally: O(k·n) dot products).
  const maxSim = new Float64Array(pool.length);
  const taken = new Uint8Array(pool.length);
  const picks: MmrPick[] = [];
  while (picks.length < Math.min(k, pool.length)) {
    let best = -1;
    let bestScore = -Infinity;
    for (let i = 0; i < pool.length; i++) {
      if (taken[i]) continue;
      const s = lambda * rel[i]! - (1 - lambda) * maxSim[i]!;
      if (s > bestScore) {
        bestScore = s;
        best = i;
      }
    }
    taken[best] = 1;
    picks.push({ chunkId: pool[best]!.chunkId, score: bestScore });
    const v = vecs[best];
    if (!v) continue;
    for (let i = 0; i < pool.length; i++) {
      const u = vecs[i];
      if (taken[i] || !u) continue;
      const sim = dot(u, v);
      if (sim > maxSim[i]!) maxSim[i] = sim;
    }
  }
  return picks;
}
