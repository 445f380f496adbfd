// Issue #33 item 3: handoff and compaction are linear in the transcript with a work bound. Only the newest
// COMPACT_WINDOW_TURNS turns are scored one by one; older ones are removed as one element (their findings reach the
// preserved block through the extraction); a transcript of more turns than TRANSCRIPT_MAX_TURNS is refused cleanly.
// (Speed and memory on 10^6 turns: `npm run bench:handoff -- --aider-turns 1000000`.)
import { describe, expect, it } from 'vitest';
import { parseTranscript, TRANSCRIPT_MAX_TURNS, TranscriptError } from '../transcripts/index.ts';
import { COMPACT_WINDOW_TURNS, compactTranscript } from './compact.ts';
import { buildHandoff } from './handoff.ts';

/** An Aider history of `pairs` one-word requests and answers, a decision stated in the first answer. */
function aider(pairs: number, sep = '\n\n'): string {
  const parts = ['# aider chat started at 2026-01-05 10:00:00\n\n', '#### pick the queue\n\nDECISION: use SQLite as the queue because it is already a dependency\n\n'];
  for (let i = 1; i < pairs; i++) parts.push(`#### w${i % 10}${sep}ok${sep}`);
  return parts.join('');
}

describe('work bound', () => {
  it('past the window, older turns are removed as one element; their decision is still preserved', () => {
    const t = parseTranscript(aider(15_000), 'big.md');
    expect(t.turns.length).toBeGreaterThan(COMPACT_WINDOW_TURNS);
    const r = compactTranscript(t, { targetTokens: 4_000 });
    const older = t.turns.length - COMPACT_WINDOW_TURNS;
    expect(r.elements[0]).toMatchObject({ id: `turns:0-${older - 1}`, action: 'dropped' });
    expect(r.elements.length).toBe(COMPACT_WINDOW_TURNS + 1);
    expect(r.summary.elements_removed).toBeGreaterThanOrEqual(older);
    expect(r.summary.tokens_before).toBeGreaterThan(r.summary.tokens_after);
    expect(r.text).toContain('DECISION: use SQLite as the queue');
    expect(r.summary.preservation_validation).toBe(true);
    const h = buildHandoff({ type: 'continuation', transcript: t });
    expect(h.package.budget.within_budget).toBe(true);
    expect(h.markdown).toContain('use SQLite as the queue');
  });
  it('a transcript of more turns than the bound is refused with its count', () => {
    const text = aider(TRANSCRIPT_MAX_TURNS / 2 + 1000, '\n');
    expect(() => parseTranscript(text, 'huge.md')).toThrow(TranscriptError);
    expect(() => parseTranscript(text, 'huge.md')).toThrow(/huge\.md: transcript is too long: 1,?502,?00\d turns/);
  });
});
