import type { Gate, Item } from './items.ts';
import { pathRole } from '../search/code-paths.ts';
import { unitWindows, windowTerms } from './unit-windows.ts';
import { stem, taskTerms, type TaskTerms } from '../search/task-terms.ts';

// 003's "compress before drop": an item over budget first becomes its provenance line plus a few extractive key
// sentences (the ones sharing most terms with the query), and only then, if still over, is dropped. Code evidence
// becomes its provenance line alone (isCodeEvidence); once the layout fits, the best of those pointers get back an
// excerpt of their lines as far as the budget the compression freed allows (regainExcerpts).

const MARKER = /^\[REDACTED: [^\]]+\]$/;
const KEEP = 2;
const MAX_SENTENCE = 220;

/**
 * An evidence item citing a source or test file (`path#anchor:12-40`). Compressed, it keeps only its provenance
 * line, as a test pointer does: lines cut out of a function tell an agent little that the pointer does not, and a
 * packet for a code task compresses dozens of items whose size comes out of the budget of the best ones shown whole
 * (bench:localize over 10 repositories: hunk hit up on 3, down on none, against one or two key lines each).
 */
function isCodeEvidence(item: Item): boolean {
  if (item.kind !== 'evidence') return false;
  const role = pathRole(item.source.replace(/:\d+-\d+$/, '').replace(/#[^/]*$/, ''));
  return role === 'source' || role === 'test';
}

/** Lines an excerpt shows at most: two windows of a line that matches the query best and two lines either side. */
export const EXCERPT_LINES = 10;
const EXCERPT_NOTE = / \(compressed to lines [\d, -]+\)$/;

/**
 * A code item's excerpt: its head, saying which lines it still shows, then those lines (windows around the lines
 * that match the query best, unit-windows.ts), `⋯` between windows. Lines are taken whole from the gated body, so
 * nothing new reaches the packet that the gate has not judged. Null when no line matches or it would not be shorter.
 */
function excerpt(item: Item, head: string, body: string[], terms: readonly string[]): Item | null {
  const range = /:(\d+)-(\d+)$/.exec(item.source);
  if (!range || terms.length === 0) return null;
  const first = Number(range[1]);
  // The body is the span's lines from its first; anything else (a body cut short or longer) is not excerpted.
  if (body.length === 0 || body.length > Number(range[2]) - first + 1) return null;
  const wins = unitWindows(body.map((l) => l.replace(/^ {2}/, '')), { start: 1, end: body.length }, terms, [], EXCERPT_LINES);
  if (wins.length === 0) return null;
  const shown = wins.map((w) => `${first + w.start - 1}-${first + w.end - 1}`).join(',');
  const out = [`${head} (compressed to lines ${shown.replace(/,/g, ', ')})`];
  wins.forEach((w, i) => out.push(...(i > 0 ? ['  ⋯'] : []), ...body.slice(w.start - 1, w.end)));
  const text = out.join('\n');
  return text.length < item.text.length ? { ...item, text, compressed: true, shown } : null;
}

/** A sentence's words: as written for a short query; stemmed (task-terms.ts `stem`) to meet a long task's line terms. */
function terms(s: string, stemmed = false): Set<string> {
  const out = new Set<string>();
  for (const t of s.toLowerCase().match(/[\p{L}\p{N}_]{3,}/gu) ?? []) out.add(stemmed ? stem(t) : t);
  return out;
}

/** Sentences of one line; a line without sentence punctuation is one sentence. */
function sentences(line: string): string[] {
  const out = line.match(/[^.!?]+[.!?]+(?=\s|$)|[^.!?]+$/g) ?? [line];
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

export interface Compressor {
  (item: Item): Item | null;
  /** An uncompressed code evidence item as its excerpt (compressed, with `shown`); null when it has none. */
  excerpt?: (item: Item) => Item | null;
}

/**
 * Builds the compressor for one packet. The sentences come from the item's already-gated text, but a sentence
 * cut from a line is a new string the gate has not seen whole, so the summary passes the gate again (`gate`).
 * Returns null when the item has nothing to compress (no body, or the summary would not be shorter).
 */
export function createCompressor(gate: Gate, query: string | TaskTerms): Compressor {
  const task = typeof query === 'string' ? taskTerms(query) : query;
  // A short query's own words; a long task's strongest words (its every word would match every sentence).
  const q = task.long ? new Set(task.lineTerms) : terms(task.text);
  const lineTerms = windowTerms(task);
  const compressor: Compressor = (item) => {
    const [head, ...body] = item.text.split('\n');
    // An excerpt compresses once more, to its pointer, before it would be dropped.
    if (item.compressed) return item.shown ? { ...item, text: `${head!.replace(EXCERPT_NOTE, '')} (compressed to its pointer)`, shown: undefined } : null;
    const lines = body.map((l) => l.trim()).filter((l) => l !== '');
    if (lines.length === 0) return null;
    if (isCodeEvidence(item)) return { ...item, text: `${head} (compressed to its pointer)`, compressed: true };
    const cands: { text: string; pos: number; score: number }[] = [];
    let pos = 0;
    for (const l of lines) {
      if (MARKER.test(l)) continue;
      for (const s of sentences(l)) {
        const t = terms(s, task.long);
        let hit = 0;
        for (const x of q) if (t.has(x)) hit++;
        cands.push({ text: s.length > MAX_SENTENCE ? `${s.slice(0, MAX_SENTENCE - 1).replace(/\s+\S*$/, '')}…` : s, pos: pos++, score: hit });
      }
    }
    const total = pos;
    const picked = [...cands].sort((a, b) => b.score - a.score || a.pos - b.pos).slice(0, KEEP).sort((a, b) => a.pos - b.pos);
    const redacted = lines.filter((l) => MARKER.test(l)).length;
    const note = `(compressed: ${picked.length} of ${total} sentences${redacted ? `, ${redacted} redacted ${redacted === 1 ? 'line' : 'lines'} left out` : ''})`;
    const summary = gate.pass(picked.map((p) => p.text).join('\n'), item.source, item.section);
    const text = [head, `  ${note}`, ...summary.text.split('\n').filter((l) => l !== '').map((l) => `  • ${l}`)].join('\n');
    if (text.length >= item.text.length) return null;
    return { ...item, text, compressed: true, redactedLines: item.redactedLines + summary.redacted };
  };
  compressor.excerpt = (item) => {
    if (item.compressed || !isCodeEvidence(item)) return null;
    const [head, ...body] = item.text.split('\n');
    return excerpt(item, head!, body, lineTerms);
  };
  return compressor;
}

/**
 * Once compress-before-drop has made a layout fit: the code items it compressed to their pointer, best score first,
 * show their excerpt instead while `fits` still holds after the swap, so budget the compression freed beyond what
 * was needed shows lines rather than nothing. Items shown whole are never touched, so the packet shows everything it
 * showed before, and more (bench:localize: hunk hit up on flask, cobra and gin, down on none).
 * `compressed`: each compressed item → the item it was. `onSwap` tells the layout an item changed (its costs).
 */
export function regainExcerpts(list: Item[], compressed: ReadonlyMap<Item, Item>, compress: Compressor, fits: () => boolean, onSwap: (item: Item) => void = () => {}): void {
  if (!compress.excerpt || !fits()) return;
  const best = [...compressed].sort(([ca, a], [cb, b]) => (b.score ?? 0) - (a.score ?? 0) || list.indexOf(ca) - list.indexOf(cb));
  for (const [pointer, original] of best) {
    const at = list.indexOf(pointer);
    const e = at < 0 ? null : compress.excerpt(original);
    if (!e) continue;
    list[at] = e;
    onSwap(e);
    if (!fits()) {
      list[at] = pointer;
      onSwap(pointer);
    }
  }
}
