import { gateLabel } from '../redact/index.ts';

/*
 * Every label the index derives from file content — heading titles in a heading path, the anchors slugged from them,
 * symbol names of code chunks — goes through here before it is stored, so what reaches packet text, item ids, the
 * manifest, evidence ids and search results was judged by the redaction gate. A heading the gate redacts becomes its
 * marker, and its anchor the marker's slug (`## Deploy with AKIA…` → `#redacted-aws_key`).
 */

/** A heading, title or symbol name as it may be stored and shown. */
export function safeLabel(text: string): string {
  return gateLabel(text, { source: 'anchor', section: 'INGEST' });
}

/** GitHub-style slug. */
export function slugify(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** The anchor for a (raw) heading or symbol name: the slug of its gated form, itself judged again. */
export function safeAnchor(title: string): string {
  const slug = slugify(safeLabel(title));
  const judged = safeLabel(slug);
  return judged === slug ? slug : slugify(judged);
}

/** `safeAnchor`, numbered on repeats within one document (`intro`, `intro-1`, …). */
export function uniqueAnchor(title: string, counts: Map<string, number>): string {
  const base = safeAnchor(title);
  const n = counts.get(base) ?? 0;
  counts.set(base, n + 1);
  return n === 0 ? base : `${base}-${n}`;
}
