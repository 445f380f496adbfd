import type { Database } from 'better-sqlite3';
import type { LevelLimitFinding } from '../../../shared/memory.ts';
import { createTokenCounter, type TokenCounter } from '../tokens/index.ts';
import { getExecutiveSummary, listSections } from './sections.ts';

export type { LevelLimitFinding };

// The seed's per-level sizes: L1 at most 1K tokens, L2 200–500, L3 1K–3K. Over the maximum is a finding (the
// level no longer does its job as a summary); under the minimum is a warning (a section still being written).

export const LEVEL_LIMITS: Record<1 | 2 | 3, { min: number; max: number }> = {
  1: { min: 0, max: 1_000 },
  2: { min: 200, max: 500 },
  3: { min: 1_000, max: 3_000 },
};

let defaultCounter: TokenCounter | null = null;

/** Token counts (o200k_base) of §1.0 as rendered and of every L2/L3 title + body, against the seed's limits. */
export function checkLevelLimits(db: Database, counter: TokenCounter = (defaultCounter ??= createTokenCounter('o200k_base'))): LevelLimitFinding[] {
  const out: LevelLimitFinding[] = [];
  const judge = (marker: string, level: 1 | 2 | 3, text: string) => {
    const tokens = counter.count(text);
    const { min, max } = LEVEL_LIMITS[level];
    if (tokens > max) out.push({ marker, level, tokens, min, max, severity: 'over', message: `L${level} ${marker} is ${tokens} tokens, over the ${max}-token limit for level ${level}: move detail down a level` });
    else if (tokens < min) out.push({ marker, level, tokens, min, max, severity: 'under', message: `L${level} ${marker} is ${tokens} tokens, under the ${min}–${max}-token range for level ${level}` });
  };
  const l1 = getExecutiveSummary(db);
  if (l1) judge('§1.0', 1, l1.text);
  for (const s of listSections(db)) judge(`§${s.marker}`, s.level as 2 | 3, `${s.title}\n${s.body}`);
  return out;
}
