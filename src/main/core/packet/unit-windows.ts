import { splitIdentifier } from '../search/code-words.ts';
import { stem, taskTerms, type TaskTerms } from '../search/task-terms.ts';

// Issue #23: a definition over the whole-unit cap (a 300-line shell template in a Go string, a long dispatcher) is
// shown only as the chunk retrieval hit, while the line the fix changes is often elsewhere in it, next to the same
// words. Such a unit also shows short windows around its own lines that match the query best; words rare inside the
// unit count most (every line of a completion script says "completion").

/** Lines shown on each side of a matching line. */
export const WINDOW_RADIUS = 2;
/** At most this many lines of windows per over-cap unit. */
export const WINDOW_LINES = 36;
/** A line joins when its score is at least this share of the unit's best line. */
export const WINDOW_SHARE = 0.5;

export { stem };

/** A line's words: lower-cased tokens and their identifier parts, stemmed. */
function lineWords(line: string): Set<string> {
  const out = new Set<string>();
  for (const tok of line.match(/[\p{L}\p{N}_]+/gu) ?? []) {
    const low = tok.toLowerCase();
    out.add(stem(low));
    for (const p of splitIdentifier(tok)) out.add(stem(p));
  }
  return out;
}

/** The task's terms as a unit's lines are matched against them (task-terms.ts `lineTerms`: stemmed, the strongest). */
export function windowTerms(query: string | TaskTerms): string[] {
  return [...(typeof query === 'string' ? taskTerms(query) : query).lineTerms];
}

/**
 * Windows [start, end] (1-based, inclusive, in line order, merged) inside the unit `unit` of `lines`, around its lines
 * that match `terms` best, skipping lines in `shown`. A line scores the sum over the terms it holds of
 * log(1 + n / df) (n: the unit's lines, df: its lines holding the term); lines at ≥ WINDOW_SHARE of the best line
 * join, best first, until WINDOW_LINES.
 */
export function unitWindows(
  lines: readonly string[],
  unit: { start: number; end: number },
  terms: readonly string[],
  shown: readonly { start: number; end: number }[],
  maxLines = WINDOW_LINES,
): { start: number; end: number }[] {
  if (terms.length === 0) return [];
  const first = Math.max(1, unit.start);
  const last = Math.min(lines.length, unit.end);
  const held: string[][] = [];
  const df = new Map<string, number>();
  for (let n = first; n <= last; n++) {
    const words = lineWords(lines[n - 1]!);
    const has = terms.filter((t) => words.has(t));
    held.push(has);
    for (const t of has) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const size = last - first + 1;
  const isShown = (n: number) => shown.some((s) => s.start <= n && s.end >= n);
  const scored = held
    .map((has, i) => ({ line: first + i, score: has.reduce((a, t) => a + Math.log(1 + size / df.get(t)!), 0) }))
    .filter((x) => x.score > 0 && !isShown(x.line));
  if (scored.length === 0) return [];
  const top = Math.max(...scored.map((x) => x.score));
  scored.sort((a, b) => b.score - a.score || a.line - b.line);
  const picked: { start: number; end: number }[] = [];
  const covered = new Set<number>();
  for (const x of scored) {
    if (x.score < WINDOW_SHARE * top) break;
    if (covered.has(x.line)) continue;
    const s = Math.max(first, x.line - WINDOW_RADIUS);
    const e = Math.min(last, x.line + WINDOW_RADIUS);
    let added = 0;
    for (let n = s; n <= e; n++) if (!covered.has(n)) added++;
    if (covered.size + added > maxLines) break;
    for (let n = s; n <= e; n++) covered.add(n);
    picked.push({ start: s, end: e });
  }
  picked.sort((a, b) => a.start - b.start);
  const merged: { start: number; end: number }[] = [];
  for (const w of picked) {
    const prev = merged[merged.length - 1];
    if (prev && w.start <= prev.end + 1) prev.end = Math.max(prev.end, w.end);
    else merged.push({ ...w });
  }
  return merged;
}
