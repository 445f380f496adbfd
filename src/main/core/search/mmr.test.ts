import { describe, expect, it } from 'vitest';
import { normalizedScoreFusion, reciprocalRankFusion } from './fusion.ts';
import { mmrSelect } from './mmr.ts';

function unit(...xs: number[]): Float32Array {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs, (x) => x / n);
}

describe('MMR', () => {
  // Three near-copies of one passage outrank two distinct passages on relevance alone.
  const candidates = [
    { chunkId: 1, relevance: 1.0 },
    { chunkId: 2, relevance: 0.98 },
    { chunkId: 3, relevance: 0.97 },
    { chunkId: 4, relevance: 0.8 },
    { chunkId: 5, relevance: 0.7 },
  ];
  const vectors = new Map([
    [1, unit(1, 0, 0)],
    [2, unit(1, 0.01, 0)],
    [3, unit(1, 0, 0.01)],
    [4, unit(0, 1, 0)],
    [5, unit(0, 0, 1)],
  ]);

  it('demotes near-duplicates below distinct passages', () => {
    const picks = mmrSelect(candidates, vectors, 5, 0.5).map((p) => p.chunkId);
    expect(picks.slice(0, 3)).toEqual([1, 4, 5]);
    expect(picks.slice(3).sort()).toEqual([2, 3]);
  });

  it('keeps the relevance order at lambda 1 and returns non-increasing scores', () => {
    expect(mmrSelect(candidates, vectors, 5, 1).map((p) => p.chunkId)).toEqual([1, 2, 3, 4, 5]);
    for (const lambda of [0, 0.3, 0.5, 0.7, 1]) {
      const s = mmrSelect(candidates, vectors, 5, lambda).map((p) => p.score);
      for (let i = 1; i < s.length; i++) expect(s[i]).toBeLessThanOrEqual(s[i - 1]!);
    }
  });

  it('treats a candidate without a vector as dissimilar, and handles k and empty input', () => {
    const noVec = new Map(vectors);
    noVec.delete(2);
    expect(mmrSelect(candidates, noVec, 2, 0.5).map((p) => p.chunkId)).toEqual([1, 2]);
    expect(mmrSelect(candidates, vectors, 0)).toEqual([]);
    expect(mmrSelect([], vectors, 3)).toEqual([]);
    expect(mmrSelect(candidates, vectors, 99)).toHaveLength(5);
    expect(() => mmrSelect(candidates, vectors, 3, 1.5)).toThrow(/lambda/);
  });
});

describe('fusion', () => {
  const bm25 = [{ chunkId: 10, score: 12 }, { chunkId: 20, score: 7 }, { chunkId: 30, score: 1 }];
  const vec = [{ chunkId: 20, score: 0.9 }, { chunkId: 40, score: 0.8 }, { chunkId: 10, score: 0.1 }];

  it('sums 1/(60 + rank) per list (RRF)', () => {
    const fused = reciprocalRankFusion([bm25, vec]);
    const byId = new Map(fused.map((f) => [f.chunkId, f.score]));
    expect(byId.get(20)).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(byId.get(10)).toBeCloseTo(1 / 61 + 1 / 63, 12);
    expect(byId.get(40)).toBeCloseTo(1 / 62, 12);
    expect(fused.map((f) => f.chunkId)).toEqual([20, 10, 40, 30]);
    expect(reciprocalRankFusion([[{ chunkId: 1, score: 5 }]], 0)[0]!.score).toBe(1);
  });

  it('min-max normalizes each list before a weighted sum', () => {
    const fused = normalizedScoreFusion([bm25, vec], [0.5, 0.5]);
    const byId = new Map(fused.map((f) => [f.chunkId, f.score]));
    expect(byId.get(10)).toBeCloseTo(0.5 * 1 + 0.5 * 0, 12);
    expect(byId.get(20)).toBeCloseTo(0.5 * (6 / 11) + 0.5 * 1, 12);
    expect(byId.get(40)).toBeCloseTo(0.5 * (0.7 / 0.8), 6);
    expect(fused[0]!.chunkId).toBe(20);
    expect(normalizedScoreFusion([[{ chunkId: 1, score: 3 }, { chunkId: 2, score: 3 }]]).map((f) => f.score)).toEqual([1, 1]);
    expect(() => normalizedScoreFusion([bm25, vec], [1])).toThrow(/weights/);
  });

  it('breaks ties by chunk id, so the same inputs give the same order', () => {
    const a = reciprocalRankFusion([[{ chunkId: 7, score: 1 }], [{ chunkId: 3, score: 1 }]]);
    expect(a.map((f) => f.chunkId)).toEqual([3, 7]);
  });
});
