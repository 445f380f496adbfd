import type { GatedFields, SearchHit } from '../../../shared/types.ts';
import { gateLabel, gateString, type Redactor } from '../redact/index.ts';

/*
 * What a search result shows — snippet text, title, path, anchor, heading path — after the redaction gate. The CLI
 * prints only these; the API adds them to each hit (`gated`) so the workbench masks by default and reveals the raw
 * fields per hit on request.
 */

export interface HitLike {
  text: string;
  title?: string;
  path?: string;
  anchor?: string;
  headingPath?: string;
  displayPath?: string;
  relPath?: string | null;
}

export function gateFields(h: HitLike, redactor?: Redactor): GatedFields {
  const text = gateString(h.text, { redactor, source: h.path ?? 'search hit', section: 'SEARCH' });
  let labels = 0;
  const label = (v: string | undefined) => {
    if (!v) return '';
    const g = gateLabel(v, { redactor, source: 'search label', section: 'SEARCH' });
    if (g !== v) labels++;
    return g;
  };
  const fields = { title: label(h.title), path: label(h.path), anchor: label(h.anchor), headingPath: label(h.headingPath) };
  const displayPath = h.displayPath !== undefined ? label(h.displayPath) : undefined;
  const relPath = h.relPath ? label(h.relPath) : h.relPath;
  return {
    text: text.text,
    ...fields,
    ...(displayPath !== undefined ? { displayPath } : {}),
    ...(relPath !== undefined ? { relPath } : {}),
    redactedLines: text.redacted + labels,
  };
}

/** The hit with its gated fields attached (the raw fields stay, for an explicit reveal). */
export function withGated(h: SearchHit, redactor?: Redactor): SearchHit {
  return { ...h, gated: gateFields(h, redactor) };
}

/** The hit as the CLI prints it: every shown field replaced by its gated form. */
export function gatedHit(h: SearchHit, redactor?: Redactor): SearchHit {
  const g = gateFields(h, redactor);
  const externalId = h.externalId === null ? null : gateLabel(h.externalId, { redactor });
  return {
    ...h,
    externalId,
    text: g.text,
    title: g.title,
    path: g.path,
    anchor: g.anchor,
    headingPath: g.headingPath,
    ...(g.displayPath !== undefined ? { displayPath: g.displayPath } : {}),
    ...(g.relPath !== undefined ? { relPath: g.relPath } : {}),
  };
}
