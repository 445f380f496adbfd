import type { Gate, Item } from './items.ts';
import { pathRole } from '../search/code-paths.ts';

// 003's "compress before drop": an item over budget first becomes its provenance line plus a few extractive key
// sentences (the ones sharing most terms with the query), and only then, if still over, is dropped. Code evidence
// becomes its provenance line alone (isCodeEvidence).

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

function terms(s: string): Set<string> {
  return new Set((s.toLowerCase().match(/[\p{L}\p{N}_]{3,}/gu) ?? []).filter((t) => t.length >= 3));
}

/** Sentences of one line; a line without sentence punctuation is one sentence. */
function sentences(line: string): string[] {
  const out = line.match(/[^.!?]+[.!?]+(?=\s|$)|[^.!?]+$/g) ?? [line];
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

export type Compressor = (item: Item) => Item | null;

/**
 * Builds the compressor for one packet. The sentences come from the item's already-gated text, but a sentence
 * cut from a line is a new string the gate has not seen whole, so the summary passes the gate again (`gate`).
 * Returns null when the item has nothing to compress (no body, or the summary would not be shorter).
 */
export function createCompressor(gate: Gate, query: string): Compressor {
  const q = terms(query);
  return (item) => {
    if (item.compressed) return null;
    const [head, ...body] = item.text.split('\n');
    const lines = body.map((l) => l.trim()).filter((l) => l !== '');
    if (lines.length === 0) return null;
    if (isCodeEvidence(item)) return { ...item, text: `${head} (compressed to its pointer)`, compressed: true };
    const cands: { text: string; pos: number; score: number }[] = [];
    let pos = 0;
    for (const l of lines) {
      if (MARKER.test(l)) continue;
      for (const s of sentences(l)) {
        const t = terms(s);
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
}
