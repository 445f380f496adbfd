import type { CapacityLevel } from '../../../shared/session.ts';

/** Model windows to measure against (tokens); 200k is seed 002's MAX_CONTEXT. */
export const MODEL_WINDOWS: { label: string; tokens: number }[] = [
  { label: '128k (GPT-4o)', tokens: 128_000 },
  { label: '200k (Claude Sonnet 4.5)', tokens: 200_000 },
  { label: '400k (GPT-5)', tokens: 400_000 },
  { label: '1M', tokens: 1_000_000 },
];

/** Seed 002's capacity level in its colour (the Sessions gauge and the Packets history share it). */
export function LevelBadge({ level }: { level: CapacityLevel }) {
  return <span className={`badge capacity capacity-${level}`} data-testid="capacity-level">{level}</span>;
}
