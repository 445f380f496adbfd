// Seed 002's Capacity Monitoring: the share of a model's context window in use, as GREEN / YELLOW / ORANGE / RED
// at 80 / 90 / 95 %, with the action the seed prescribes for each level.

import { CAPACITY_FROM_PCT, capacityLevelOf, type CapacityLevel, type CapacityReport } from '../../../shared/session.ts';

export type { CapacityLevel, CapacityReport };
export const CAPACITY_LEVELS: readonly CapacityLevel[] = ['GREEN', 'YELLOW', 'ORANGE', 'RED'];

/** The seed's MAX_CONTEXT (Claude Sonnet 4.5's window). */
export const DEFAULT_WINDOW = 200_000;

export interface CapacityThreshold {
  level: CapacityLevel;
  /** Lowest usage (percent of the window) at this level. */
  from_pct: number;
  /** The table's "Action Required". */
  action: string;
  /** check_capacity_status()'s message. */
  status: string;
  /** "Capacity Alert Responses". */
  response: string;
}

export const CAPACITY_THRESHOLDS: readonly CapacityThreshold[] = [
  { level: 'GREEN', from_pct: 0, action: 'Normal operation', status: 'GREEN', response: 'Normal operation.' },
  {
    level: 'YELLOW',
    from_pct: CAPACITY_FROM_PCT.YELLOW,
    action: 'Begin planning compaction',
    status: 'YELLOW: Plan compaction within 10 operations',
    response: 'Generate compaction plan, identify candidates for removal.',
  },
  {
    level: 'ORANGE',
    from_pct: CAPACITY_FROM_PCT.ORANGE,
    action: 'Initiate compaction immediately',
    status: 'ORANGE: Compact now before next major operation',
    response: 'Execute compaction procedure, defer non-critical file loads.',
  },
  {
    level: 'RED',
    from_pct: CAPACITY_FROM_PCT.RED,
    action: 'Emergency compaction + shed low-priority',
    status: 'RED: Emergency compaction required',
    response: 'Aggressive compaction, shed all files with score < 30, summarize verbose outputs.',
  },
];

/** The seed's check_capacity_status: < 80 % GREEN, < 90 % YELLOW, < 95 % ORANGE, else RED (over 100 % too). */
export function capacityStatus(tokens: number, window: number = DEFAULT_WINDOW): CapacityReport {
  if (!Number.isFinite(tokens) || tokens < 0 || !Number.isInteger(tokens)) throw new RangeError(`tokens must be a whole number ≥ 0, got ${tokens}`);
  if (!Number.isFinite(window) || window <= 0 || !Number.isInteger(window)) throw new RangeError(`window must be a whole number > 0, got ${window}`);
  const usage = (tokens / window) * 100;
  const t = CAPACITY_THRESHOLDS.find((th) => th.level === capacityLevelOf(tokens, window))!;
  const next = CAPACITY_THRESHOLDS[CAPACITY_THRESHOLDS.indexOf(t) + 1];
  // The first token count at the next level: ceil(window × pct / 100), the same comparison the level uses.
  const nextAt = next ? Math.ceil((window * next.from_pct) / 100) : null;
  return {
    level: t.level,
    tokens,
    window,
    usage_pct: usage,
    action: t.action,
    status: t.status,
    response: t.response,
    tokens_to_next_level: nextAt === null ? null : nextAt - tokens,
    compaction_target_tokens: Math.max(0, tokens - Math.floor(window * 0.65)),
  };
}
