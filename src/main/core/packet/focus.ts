import type { SearchHit } from '../../../shared/types.ts';
import type { SelectedHit } from './evidence-select.ts';
import type { FileChunkMatch } from './sources.ts';

// Issue #23: a fix usually changes several places of the file it is about, while retrieval (per-file decay, MMR)
// deliberately shows one or two chunks per file. For the few files the packet is most sure of, the other chunks of
// the file that match the query about as well as its best one are shown too.

/** How many of the best source files get their other matching chunks. */
export const FOCUS_FILES = 3;
/** A chunk of a focus file joins when its BM25 score is at least this share of the file's best chunk. */
export const FOCUS_SHARE = 0.15;
/** Focus candidates per focus place: the best files that are already shown whole are passed over. */
const FOCUS_CANDIDATES = 3;

/**
 * Extra hits from the focus files: the first FOCUS_FILES distinct source documents of `kept` (by relevance) that
 * have more to show, each contributing its matching chunks at ≥ FOCUS_SHARE of its best, not already shown;
 * relevance scaled from the file's. Shaped like their file's hit, over their own lines (text from the document).
 * A file the packet already shows all of (a three-line re-export) does not take a focus place from the next file.
 */
export function focusHits(
  kept: readonly SelectedHit[],
  query: string,
  fileChunks: ((documentIds: number[], query: string) => FileChunkMatch[]) | null,
  documentText: ((documentId: number) => string[] | null) | null,
  files = FOCUS_FILES,
  share = FOCUS_SHARE,
): SelectedHit[] {
  if (!fileChunks || !documentText || files <= 0) return [];
  // Candidates in relevance order; a few more than `files`, for those with nothing left to show.
  const byDoc = new Map<number, SelectedHit>();
  for (const k of [...kept].sort((a, b) => b.relative - a.relative)) {
    if (k.role !== 'source' || k.hit.externalId != null || byDoc.has(k.hit.documentId)) continue;
    if (byDoc.size >= files * FOCUS_CANDIDATES) break;
    byDoc.set(k.hit.documentId, k);
  }
  if (byDoc.size === 0) return [];
  const matches = fileChunks([...byDoc.keys()], query);
  const best = new Map<number, number>();
  for (const m of matches) best.set(m.documentId, Math.max(best.get(m.documentId) ?? 0, m.score));
  const shown = (doc: number, a: number, b: number) => kept.some((k) => k.hit.documentId === doc && k.hit.lineStart <= b && k.hit.lineEnd >= a);
  const fresh = (m: FileChunkMatch) => {
    const top = best.get(m.documentId) ?? 0;
    return top > 0 && m.score >= share * top && !shown(m.documentId, m.lineStart, m.lineEnd);
  };
  const focus = new Set([...byDoc.keys()].filter((doc) => matches.some((m) => m.documentId === doc && fresh(m))).slice(0, files));
  const out: SelectedHit[] = [];
  const lines = new Map<number, string[] | null>();
  for (const m of matches) {
    const top = best.get(m.documentId) ?? 0;
    if (!focus.has(m.documentId) || !fresh(m)) continue;
    if (!lines.has(m.documentId)) lines.set(m.documentId, documentText(m.documentId));
    const text = lines.get(m.documentId);
    if (!text) continue;
    const base = byDoc.get(m.documentId)!;
    // Named by the definition it holds (whole-units), not after its file's other hit.
    const hit: SearchHit = { ...base.hit, anchor: '', headingPath: '', lineStart: m.lineStart, lineEnd: m.lineEnd, text: text.slice(m.lineStart - 1, m.lineEnd).join('\n'), score: m.score };
    out.push({ hit, role: base.role, relative: base.relative * (m.score / top) });
  }
  return out;
}
