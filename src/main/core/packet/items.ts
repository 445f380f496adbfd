import type { PacketItemKind, RedactionSummary } from '../../../shared/packet.ts';
import { redactionMarker, type RedactionEvent, type Redactor } from '../redact/index.ts';
import type { LineContext } from './sources.ts';
import { digest16, normalizeText } from './canonical.ts';

/** A candidate item after redaction, rendered, waiting for budgets to decide whether it stays. */
export interface Item {
  id: string;
  kind: PacketItemKind;
  /** Section or layer. */
  section: string;
  /** Sub-section within an ao-v1 section. */
  group: string;
  source: string;
  score: number | null;
  ts: string | null;
  /** Rendered markdown lines, already through the redaction gate. */
  text: string;
  redactedLines: number;
}

/**
 * Runs every line of one raw text through the gate before it can enter a section. Events are collected with the
 * line number in the *source* (offset by where the text starts), so the log points at the real line.
 */
export class Gate {
  readonly events: RedactionEvent[] = [];
  private readonly redactor: Redactor;
  private readonly log: ((e: RedactionEvent) => void) | null;

  constructor(redactor: Redactor, log: ((e: RedactionEvent) => void) | null) {
    this.redactor = redactor;
    this.log = log;
  }

  /**
   * `ctx.before`: the source lines preceding `raw`; scanned with it (so a private-key block opened above a chunk
   * still redacts the chunk's lines) but neither returned nor counted. `ctx.first` / `ctx.last`: the full source
   * line when `raw` starts / ends with a fragment of it; a line is redacted if its full form or its fragment is.
   */
  pass(raw: string, source: string, section: string, firstLine = 1, ctx: LineContext | null = null): { text: string; redacted: number } {
    const before = ctx?.before ?? [];
    const skip = before.length;
    // Normalized first, so what is measured against budgets is exactly what is hashed.
    const lines = normalizeText(raw).split('\n');
    const whole = [...lines];
    if (ctx?.first) whole[0] = ctx.first;
    if (ctx?.last && lines.length > 1) whole[lines.length - 1] = ctx.last;
    const run = (ls: string[]) => this.redactor.redactText([...before, ...ls].join('\n'), { source, section });
    const main = run(whole);
    const byLine = new Map<number, RedactionEvent>();
    for (const r of main.redactions) if (r.line > skip) byLine.set(r.line - skip, r);
    if (whole[0] !== lines[0] || whole[lines.length - 1] !== lines[lines.length - 1]) {
      for (const r of run(lines).redactions) if (r.line > skip && !byLine.has(r.line - skip)) byLine.set(r.line - skip, r);
    }
    const out = [...lines];
    for (const i of [...byLine.keys()].sort((a, b) => a - b)) {
      const r = byLine.get(i)!;
      out[i - 1] = redactionMarker(r.type);
      const e = { ...r, line: i + firstLine - 1 };
      this.events.push(e);
      this.log?.(e);
    }
    return { text: out.join('\n'), redacted: byLine.size };
  }

  summary(): RedactionSummary {
    const by_type: Record<string, number> = {};
    for (const e of this.events) by_type[e.type] = (by_type[e.type] ?? 0) + 1;
    return {
      count: this.events.length,
      by_type,
      events: this.events.map((e) => ({ section: e.section, source: e.source, line: e.line, pattern: e.pattern, type: e.type })),
    };
  }
}

/**
 * `- <lead><head><tail>` followed by the body indented two spaces. head and body pass the gate; lead and tail are
 * the packet's own provenance formatting (ids, line ranges, scores), kept out of the gate so a `key: value`-looking
 * `#auth:1-4` cannot cost an item its provenance line.
 */
export function renderItem(
  gate: Gate,
  opts: { head: string; lead?: string; tail?: string; body?: string; source: string; section: string; bodyFirstLine?: number; context?: LineContext | null },
): { text: string; redacted: number } {
  const head = gate.pass(opts.head, opts.source, opts.section);
  let text = `- ${opts.lead ?? ''}${head.text}${opts.tail ?? ''}`;
  let redacted = head.redacted;
  if (opts.body !== undefined && opts.body.trim() !== '') {
    const body = gate.pass(opts.body.replace(/\s+$/, ''), opts.source, opts.section, opts.bodyFirstLine ?? 1, opts.context ?? null);
    redacted += body.redacted;
    text += '\n' + body.text.split('\n').map((l) => (l.trim() === '' ? '' : `  ${l}`)).join('\n');
  }
  return { text, redacted };
}

export function itemRef(item: Item) {
  return {
    id: item.id,
    section: item.section,
    kind: item.kind,
    source: item.source,
    score: item.score,
    chars: item.text.length,
    digest: digest16(item.text),
    redacted_lines: item.redactedLines,
  };
}

export function fmtScore(score: number | null): string {
  return score === null ? '' : ` · score ${score.toFixed(3)}`;
}

export function day(ts: string | null): string {
  return ts ? ts.slice(0, 10) : 'undated';
}
