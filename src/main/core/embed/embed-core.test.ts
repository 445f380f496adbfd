import { describe, expect, it } from 'vitest';
import { truncateKeepingEnd } from './embed-core.ts';

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
