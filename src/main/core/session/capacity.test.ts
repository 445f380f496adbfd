import { describe, expect, it } from 'vitest';
import { capacityStatus, CAPACITY_THRESHOLDS } from './capacity.ts';

describe("capacity (seed 002's thresholds)", () => {
  it('switches level exactly at 80 / 90 / 95 % of the window', () => {
    const w = 200_000;
    const cases: [number, string][] = [
      [0, 'GREEN'],
      [159_999, 'GREEN'],
      [160_000, 'YELLOW'],
      [179_999, 'YELLOW'],
      [180_000, 'ORANGE'],
      [189_999, 'ORANGE'],
      [190_000, 'RED'],
      [200_000, 'RED'],
      [250_000, 'RED'],
    ];
    for (const [tokens, level] of cases) expect(capacityStatus(tokens, w).level, `${tokens}`).toBe(level);
  });
  it('uses the percentage, so odd windows switch at the first token at or over the threshold', () => {
    const w = 1_001;
    // 80 % of 1,001 is 800.8: 800 is still GREEN, 801 is YELLOW.
    expect(capacityStatus(800, w).level).toBe('GREEN');
    expect(capacityStatus(801, w).level).toBe('YELLOW');
    expect(capacityStatus(800, w).tokens_to_next_level).toBe(1);
  });
  it("prints the seed's action and status message for each level", () => {
    expect(capacityStatus(10, 100).status).toBe('GREEN');
    expect(capacityStatus(85, 100)).toMatchObject({ action: 'Begin planning compaction', status: 'YELLOW: Plan compaction within 10 operations' });
    expect(capacityStatus(92, 100)).toMatchObject({ action: 'Initiate compaction immediately', status: 'ORANGE: Compact now before next major operation' });
    expect(capacityStatus(97, 100)).toMatchObject({ action: 'Emergency compaction + shed low-priority', status: 'RED: Emergency compaction required', tokens_to_next_level: null });
    expect(CAPACITY_THRESHOLDS.map((t) => t.from_pct)).toEqual([0, 80, 90, 95]);
  });
  it('reports what compaction to the 65 % target would remove, and refuses nonsense', () => {
    expect(capacityStatus(185_000).compaction_target_tokens).toBe(185_000 - 130_000);
    expect(capacityStatus(100_000).compaction_target_tokens).toBe(0);
    expect(() => capacityStatus(-1)).toThrow(/tokens/);
    expect(() => capacityStatus(10, 0)).toThrow(/window/);
  });
});
