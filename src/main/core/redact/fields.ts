import { getDefaultRedactor, redactionMarker } from './redactor.ts';
import type { Redactor } from './types.ts';

/*
 * The gate for derived fields: labels, anchors, titles, file names, snippets, memory records — anything that
 * leaves the store other than through a packet's own line-by-line pass. Same rules, same verdicts.
 */

export interface GateOptions {
  redactor?: Redactor;
  /** Recorded on the redaction events (default `field`). */
  source?: string;
  section?: string;
}

export interface GatedString {
  text: string;
  /** Lines the gate replaced. */
  redacted: number;
}

export function gateString(text: string, opts: GateOptions = {}): GatedString {
  const redactor = opts.redactor ?? getDefaultRedactor();
  const r = redactor.redactText(text, { source: opts.source ?? 'field', section: opts.section ?? 'FIELD' });
  return { text: r.text, redacted: r.redactions.length };
}

/**
 * A one-line label (anchor, heading, file name, symbol name): itself, or the marker of what the gate found. Judged
 * also in upper case, so a label that was lower-cased on its way here (`#deploy-with-akia…`, a slug) is still
 * recognised by case-sensitive token shapes.
 */
export function gateLabel(label: string, opts: GateOptions = {}): string {
  // Judged as one line; returned unchanged when safe (a file name may hold a newline, and it stays its name).
  const flat = label.replace(/[\r\n]+/g, ' ');
  const redactor = opts.redactor ?? getDefaultRedactor();
  const ctx = { source: opts.source ?? 'label', section: opts.section ?? 'LABEL' };
  for (const form of flat === flat.toUpperCase() ? [flat] : [flat, flat.toUpperCase()]) {
    const r = redactor.redactText(form, ctx);
    if (r.redactions.length > 0) return redactionMarker(r.redactions[0]!.type);
  }
  return label;
}

/** Every string inside a JSON-like value through the gate (object keys kept); a copy, with the count of lines redacted. */
export function gateDeep<T>(value: T, opts: GateOptions = {}): { value: T; redacted: number } {
  let redacted = 0;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const g = gateString(v, opts);
      redacted += g.redacted;
      return g.text;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = walk(x);
      return out;
    }
    return v;
  };
  return { value: walk(value) as T, redacted };
}
