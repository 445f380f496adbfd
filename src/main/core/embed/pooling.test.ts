import { describe, expect, it } from 'vitest';
import { clsPool, meanPool, normalizeRows } from './pooling.ts';

// Two rows, seqLen 3, dims 2; row 0 has 2 real tokens, row 1 has 3.
const hidden = Float32Array.from([1, 2, 3, 4, 100, 100, 5, 6, 7, 8, 9, 10]);

describe('pooling', () => {
  it('means over real tokens only', () => {
    expect(Array.from(meanPool(hidden, 2, 3, 2, [2, 3]))).toEqual([2, 3, 7, 8]);
  });
  it('takes the first token for cls', () => {
    expect(Array.from(clsPool(hidden, 2, 3, 2))).toEqual([1, 2, 5, 6]);
  });
  it('normalizes each row to unit length and leaves zero rows alone', () => {
    const rows = normalizeRows(Float32Array.from([3, 4, 0, 0]), 2);
    [0.6, 0.8, 0, 0].forEach((want, i) => expect(rows[i]).toBeCloseTo(want, 6));
  });
});
