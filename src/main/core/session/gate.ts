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
export function gateCompaction(r: CompactionResult, redactor: Redactor, counter: GateCounter, section = 'COMPACTION', name = 'transcript'): CompactionResult {
  // The transcript's file name labels the log's entries: it passes the gate like any text first.
  const source = gateLabel(name, { redactor, source: 'transcript name', section });
  return {
    ...r,
    text: gateStrings(r.text, redactor, counter, `${source} (compacted)`, section),
    elements: gateStrings(r.elements, redactor, counter, `${source} (elements)`, section),
    preserved: gateStrings(r.preserved, redactor, counter, `${source} (preserved)`, section),
    extraction: gateExtraction(r.extraction, redactor, counter, section),
  };
}

/** Whether a text would leave the gate as little but markers (such a line is never the task). */
export function mostlyRedacted(redactor: Redactor): (text: string) => boolean {
  return (text) => {
    const r = redactor.redactText(text, { source: 'task', section: 'HANDOFF' });
    if (r.redactions.length === 0) return false;
    const rest = r.text.replace(/\[REDACTED[^\]]*\]/g, ' ').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
    return rest.split(' ').filter((w) => w.length > 1).length < 3;
  };
}
