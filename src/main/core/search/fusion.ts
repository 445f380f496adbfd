// Combining ranked lists from different retrievers. RRF uses only ranks, so BM25's unbounded scores and cosine
// similarities never need to be made comparable; normalized fusion keeps score gaps and is offered as an option.

export interface Ranked {
  chunkId: number;
  score: number;
}

export type FusionMethod = 'rrf' | 'normalized';

export const DEFAULT_RRF_K = 60;

/** Sum over lists of 1 / (k + rank), rank starting at 1 (Cormack et al., 2009). */
export function reciprocalRankFusion(lists: readonly (readonly Ranked[])[], k = DEFAULT_RRF_K): Ranked[] {
  if (!(k >= 0)) throw new Error(`rrf k must be ≥ 0, got ${k}`);
  const scores = new Map<number, number>();
  for (const list of lists) {
    list.forEach((h, i) => scores.set(h.chunkId, (scores.get(h.chunkId) ?? 0) + 1 / (k + i + 1)));
  }
  return sortRanked(scores);
}

/**
 * Min-max normalizes each list to [0, 1] and sums with weights; a chunk absent from a list gets 0 from it. A list
 * whose scores are all equal contributes 1 to each of its members.
 */
export function normalizedScoreFusion(lists: readonly (readonly Ranked[])[], weights?: readonly number[]): Ranked[] {
  if (weights && weights.length !== lists.length) throw new Error(`fusion: ${weights.length} weights for ${lists.length} lists`);
  const scores = new Map<number, number>();
  lists.forEach((list, li) => {
    if (list.length === 0) return;
    const w = weights?.[li] ?? 1 / lists.length;
    let min = Infinity;
    let max = -Infinity;
    for (const h of list) {
      min = Math.min(min, h.score);
      max = Math.max(max, h.score);
    }
    const span = max - min;
    for (const h of list) {
      const norm = span > 0 ? (h.score - min) / span : 1;
      scores.set(h.chunkId, (scores.get(h.chunkId) ?? 0) + w * norm);
    }
  });
  return sortRanked(scores);
}

function sortRanked(scores: Map<number, number>): Ranked[] {
  return [...scores].map(([chunkId, score]) => ({ chunkId, score })).sort((a, b) => b.score - a.score || a.chunkId - b.chunkId);
}
