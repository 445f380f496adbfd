// Redaction applies to what leaves (packets, handoffs, saved memories, output), never to what is measured: capacity,
// compaction and extraction read the transcript as written, and every string they hand out passes through here.
import { gateLabel, type RedactionEvent, type Redactor } from '../redact/index.ts';
import type { CompactionResult } from './compact.ts';
import type { Extraction } from './extract.ts';

export interface GateCounter {
  n: number;
  log?: ((e: RedactionEvent) => void) | null;
}

/** Every string of a plain value through the gate (arrays and objects walked; Maps, Sets and class instances kept). */
export function gateStrings<T>(value: T, redactor: Redactor, counter: GateCounter, at = 'handoff', section = 'HANDOFF'): T {
  if (typeof value === 'string') {
    const r = redactor.redactText(value, { source: at, section });
    counter.n += r.redactions.length;
    if (counter.log) for (const e of r.redactions) counter.log(e);
    return r.text as T;
  }
  if (Array.isArray(value)) return value.map((v, i) => gateStrings(v, redactor, counter, `${at}[${i}]`, section)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = gateStrings(v, redactor, counter, `${at}.${k}`, section);
    return out as T;
  }
  return value;
}

/** An extraction as it may be saved or shown: its texts gated, its bookkeeping (consumed lines) kept. */
export function gateExtraction(x: Extraction, redactor: Redactor, counter: GateCounter, section = 'HANDOFF'): Extraction {
  const { consumed, ...rest } = x;
  return { ...gateStrings(rest, redactor, counter, 'extraction', section), consumed };
}

/** A compaction as it may be shown: the text, element previews and preservation checks gated; counts as measured. */
export function gateCompaction(
  r: CompactionResult,
  redactor: Redactor,
  counter: GateCounter,
  section = 'COMPACTION',
  name = 'transcript',
  opts: { detail: true } | { detail: false; gatedExtraction: Extraction } = { detail: true },
): CompactionResult {
  // The transcript's file name labels the log's entries: it passes the gate like any text first.
  const source = gateLabel(name, { redactor, source: 'transcript name', section });
  // Without `detail` (a handoff: it shows only the text and the checks), the per-turn element reports are not handed
  // out, so they are neither gated nor kept (on a 10^6-turn transcript gating a preview a turn cost more than all the
  // rest of the handoff), and the extraction is the one the caller gated once.
  return {
    ...r,
    text: gateStrings(r.text, redactor, counter, `${source} (compacted)`, section),
    elements: opts.detail ? gateStrings(r.elements, redactor, counter, `${source} (elements)`, section) : [],
    preserved: gateStrings(r.preserved, redactor, counter, `${source} (preserved)`, section),
    extraction: opts.detail ? gateExtraction(r.extraction, redactor, counter, section) : opts.gatedExtraction,
  };
}

/** Whether a text would leave the gate as little but markers (such a line is never the task). */
export function mostlyRedacted(redactor: Redactor): (text: string) => boolean {
  // Asked once per user request: a history of many short, repeated requests is gated once per distinct text.
  const seen = new Map<string, boolean>();
  return (text) => {
    const known = seen.get(text);
    if (known !== undefined) return known;
    const r = redactor.redactText(text, { source: 'task', section: 'HANDOFF' });
    let out = false;
    if (r.redactions.length > 0) {
      const rest = r.text.replace(/\[REDACTED[^\]]*\]/g, ' ').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
      out = rest.split(' ').filter((w) => w.length > 1).length < 3;
    }
    if (text.length <= 400 && seen.size < 100_000) seen.set(text, out);
    return out;
  };
}
