import { describe, expect, it } from 'vitest';
import { planBatches, truncateKeepingEnd } from './embed-core.ts';

describe('planBatches', () => {
  it('groups texts of similar length and covers every index once', () => {
    const lengths = [50, 3, 40, 4, 45, 5, 2];
    const batches = planBatches(lengths, 3);
    expect(batches).toEqual([
      [6, 1, 3],
      [5, 2, 4],
      [0],
    ]);
    expect(batches.flat().sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('rejects a batch size below one', () => {
    expect(() => planBatches([1], 0)).toThrow(/batch size/);
  });
});

describe('truncateKeepingEnd', () => {
  const special = new Set([101, 102]);
  it('keeps a trailing special token and drops word pieces before it', () => {
    expect(truncateKeepingEnd([101, 5, 6, 7, 8, 102], [0, 0, 0, 1, 1, 1], 4, special)).toEqual({
      ids: [101, 5, 6, 102],
      typeIds: [0, 0, 0, 1],
    });
  });
  it('cuts plainly when the sequence does not end in a special token, and leaves short ones alone', () => {
    expect(truncateKeepingEnd([101, 5, 6, 7], [0, 0, 0, 0], 3, special).ids).toEqual([101, 5, 6]);
    const short = { ids: [101, 102], typeIds: [0, 0] };
    expect(truncateKeepingEnd(short.ids, short.typeIds, 8, special)).toEqual(short);
  });
});
