import type { PacketItemKind, PacketTool, RedactionSummary } from '../../../shared/packet.ts';
import type { SearchHit } from '../../../shared/types.ts';
import { gateLabel, redactionMarker, type RedactionEvent, type Redactor } from '../redact/index.ts';
import type { LineContext } from './sources.ts';
import { digest16, normalizeText } from './canonical.ts';
import { evidenceLabel, type EvidenceEntry } from './evidence-entry.ts';
import { citePath } from '../../../shared/provenance.ts';
import { escapeControls } from '../../../shared/text-escape.ts';

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
  /** Replaced by its provenance line and key sentences (003: compress before drop). */
  compressed?: boolean;
  /** A compressed code item's excerpt: the lines it still shows (`12-16,30-34`). */
  shown?: string;
}

/**
 * Runs every line of one raw text through the gate before it can enter a section. Events are collected with the
 * line number in the *source* (offset by where the text starts), so the log points at the real line.
 */
export class Gate {
  readonly events: RedactionEvent[] = [];
  /** Evidence item id → the hit it cites, so the packet can record which sources (and which versions) it used. */
  readonly cited = new Map<string, SearchHit>();
  private readonly redactor: Redactor;
  private readonly log: ((e: RedactionEvent) => void) | null;
  private readonly sources = new Map<string, string>();
  /**
   * Redactions the stored request already carries (replay --reassemble): the recorded request holds the gated
   * text, whose marker lines the gate no longer sees as secrets. A marker line at the same source and line as a
   * recorded event counts as that event again, so a rebuild on an unchanged store hashes the same.
   */
  private readonly prior = new Map<string, RedactionEvent[]>();

  constructor(redactor: Redactor, log: ((e: RedactionEvent) => void) | null, prior: readonly PriorRedaction[] = []) {
    this.redactor = redactor;
    this.log = log;
    // Several events can share a source and line (the leaves of one tool schema): they are taken in order.
    for (const e of prior) {
      const key = `${e.source}\n${e.line}`;
      this.prior.set(key, [...(this.prior.get(key) ?? []), { ...e, ts: '' }]);
    }
  }

  /**
   * `ctx.before`: the source lines preceding `raw`; scanned with it (so a private-key block opened above a chunk
   * still redacts the chunk's lines) but neither returned nor counted. `ctx.first` / `ctx.last`: the full source
   * line when `raw` starts / ends with a fragment of it; a line is redacted if its full form or its fragment is.
   */
  pass(raw: string, source: string, section: string, firstLine = 1, ctx: LineContext | null = null): { text: string; redacted: number } {
    source = this.safeSource(source);
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
    const adopted = new Set<number>();
    if (this.prior.size > 0) {
      lines.forEach((l, idx) => {
        // The marker may stand alone or inside the line the gate judged (`key: [REDACTED: t]`, `name: purpose`).
        const queue = this.prior.get(`${source}\n${idx + firstLine}`);
        const p = queue?.[0];
        if (p && !byLine.has(idx + 1) && l.includes(redactionMarker(p.type))) {
          queue!.shift();
          byLine.set(idx + 1, { ...p, line: idx + 1 + skip });
          adopted.add(idx + 1);
        }
      });
    }
    const out = [...lines];
    for (const i of [...byLine.keys()].sort((a, b) => a - b)) {
      const r = byLine.get(i)!;
      out[i - 1] = redactionMarker(r.type);
      const e = { ...r, line: i + firstLine - 1 };
      this.events.push(e);
      if (!adopted.has(i)) this.log?.(e);
    }
    return { text: out.join('\n'), redacted: byLine.size };
  }

  /**
   * An event's source is provenance (a path, a request field) that lands in the manifest and the log, so it is
   * judged too: a source the gate would redact is recorded as its marker. Not counted as a redaction of its own.
   */
  private safeSource(source: string): string {
    let safe = this.sources.get(source);
    if (safe === undefined) {
      const r = this.redactor.redactText(normalizeText(source), { source: 'redaction event source', section: 'MANIFEST' });
      safe = r.redactions.length > 0 ? redactionMarker(r.redactions[0].type) : source;
      this.sources.set(source, safe);
    }
    return safe;
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
 * `- <lead><head><tail>` followed by the body indented two spaces. head and body pass the gate; the lead is the
 * packet's own formatting (ids), kept out of the gate so a `key: value`-looking `#auth:1-4` cannot cost an item its
 * provenance line; the tail (line ranges, scores, source names) passes the gate on its own.
 */
export function renderItem(
  gate: Gate,
  opts: {
    /** Raw text, or text that has already passed the gate (it is not judged twice). */
    head: string | Gated;
    lead?: string;
    tail?: string;
    body?: string;
    source: string;
    section: string;
    bodyFirstLine?: number;
    context?: LineContext | null;
  },
): { text: string; redacted: number } {
  const head = typeof opts.head === 'string' ? gate.pass(escapeControls(opts.head), opts.source, opts.section) : opts.head;
  // The tail names sources (file names, memory ids): judged on its own, so a name holding a key becomes its marker
  // and the head keeps its line.
  const tail = opts.tail ? gate.pass(escapeControls(opts.tail), opts.source, opts.section) : { text: '', redacted: 0 };
  if (tail.redacted > 0) tail.text = ` ${tail.text}`;
  // The item line is one line whatever its parts hold (a file name with a newline cannot start a fake item).
  let text = `- ${escapeControls(`${opts.lead ?? ''}${head.text}${tail.text}`)}`;
  let redacted = head.redacted + tail.redacted;
  if (opts.body !== undefined && opts.body.trim() !== '') {
    const body = gate.pass(opts.body.trimEnd(), opts.source, opts.section, opts.bodyFirstLine ?? 1, opts.context ?? null);
    redacted += body.redacted;
    text += '\n' + body.text.split('\n').map((l) => (l.trim() === '' ? '' : `  ${l}`)).join('\n');
  }
  return { text, redacted };
}

/** A redaction event as the packet records it (RedactionSummary.events). */
export interface PriorRedaction {
  section: string;
  source: string;
  line: number;
  pattern: string;
  type: string;
}

export interface Gated {
  text: string;
  redacted: number;
}

/**
 * An evidence hit's label (path#anchor, both from the indexed content) through the gate once: it is the item's
 * head, and with the line range (the packet's own formatting, kept out of the gate) its id and provenance.
 */
export function gatedEvidence(gate: Gate, h: SearchHit, section: string): { label: Gated; id: string } {
  // Anchors are slugged (lower-cased) from headings; one stored by an older build may hide a case-sensitive token
  // (`#deploy-with-akia…`), so the anchor is judged in upper case too (gateLabel).
  const anchorSafe = !h.anchor || gateLabel(h.anchor) === h.anchor;
  // Escaped before the gate, so the gate judges the label exactly as it is rendered and recorded (the item id).
  const label = gate.pass(escapeControls(anchorSafe ? evidenceLabel(h) : evidenceLabel({ ...h, anchor: gateLabel(h.anchor) })), citePath(h), section);
  const id = `${label.text}:${h.lineStart}-${h.lineEnd}`;
  gate.cited.set(id, h);
  return { label, id };
}

/**
 * Tool definitions through the gate, field by field, before they enter the packet's inputs (and from there the
 * manifest, the ContextOS tooling layer and the Tools layer, none of which judges them again). When neither
 * field is redacted, the line the Tools layer prints from them is judged too, since a pair can be a secret that
 * neither half is (`api_key` + `<value>`): then both become the marker. The enum fields are checked by the request.
 */
export function gateTools(gate: Gate, tools: PacketTool[]): { tools: PacketTool[]; redacted: number[] } {
  const out: PacketTool[] = [];
  const redacted: number[] = [];
  tools.forEach((t, i) => {
    const at = `request.tools[${i}]`;
    const name = gate.pass(t.name, `${at}.name`, 'TOOLS');
    const purpose = gate.pass(t.purpose, `${at}.purpose`, 'TOOLS');
    let n = name.text;
    let p = purpose.text;
    let count = name.redacted + purpose.redacted;
    if (count === 0) {
      const [first, ...rest] = p.split('\n');
      const line = gate.pass(`${n}: ${first}`, at, 'TOOLS');
      if (line.redacted > 0) {
        n = line.text;
        p = [line.text, ...rest].join('\n');
        count = line.redacted;
      }
    }
    let schema = t.input_schema;
    if (schema !== undefined) {
      const g = gateJson(gate, schema, `${at}.input_schema`) as { value: Record<string, unknown>; redacted: number };
      schema = g.value;
      count += g.redacted;
    }
    out.push({ ...t, name: n, purpose: p, ...(schema !== undefined ? { input_schema: schema } : {}) });
    redacted.push(count);
  });
  return { tools: out, redacted };
}

/**
 * A JSON value (a tool's input schema) through the gate: every key alone, every string leaf as `key: value` (so a
 * pair like `api_key: …` is judged as one line). A redacted key becomes its marker (numbered if it repeats), a
 * redacted leaf its marker.
 */
export function gateJson(gate: Gate, v: unknown, source: string, key = ''): { value: unknown; redacted: number } {
  if (typeof v === 'string') {
    const line = key ? `${key}: ${v}` : v;
    const r = gate.pass(line, source, 'TOOLS');
    if (r.redacted > 0) {
      const prefix = key ? `${key}: ` : '';
      const value = prefix && r.text.startsWith(prefix) ? r.text.slice(prefix.length) : r.text;
      return { value, redacted: r.redacted };
    }
    return { value: v, redacted: 0 };
  }
  if (Array.isArray(v)) {
    let n = 0;
    const value = v.map((x) => {
      const r = gateJson(gate, x, source, key);
      n += r.redacted;
      return r.value;
    });
    return { value, redacted: n };
  }
  if (v !== null && typeof v === 'object') {
    let n = 0;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const kr = gate.pass(k, source, 'TOOLS');
      let name = kr.text.replace(/\n/g, ' ');
      n += kr.redacted;
      for (let i = 2; name in out; i++) name = `${kr.text} #${i}`;
      const r = kr.redacted > 0 ? { value: null, redacted: 0 } : gateJson(gate, x, source, k);
      n += r.redacted;
      out[name] = r.value;
    }
    return { value: out, redacted: n };
  }
  return { value: v, redacted: 0 };
}

/**
 * 003's "short and typed" tool line: `name(param: type, optional?: type)` from a JSON Schema's properties and
 * required list (already gated). Anything that is not an object schema gives `name(…)`.
 */
export function toolSignature(name: string, schema: Record<string, unknown> | undefined): string {
  if (!schema) return name;
  const props = schema.properties;
  if (!props || typeof props !== 'object' || Array.isArray(props)) return `${name}(…)`;
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((x): x is string => typeof x === 'string') : []);
  const typeOf = (p: unknown): string => {
    if (!p || typeof p !== 'object') return 'any';
    const t = (p as { type?: unknown; enum?: unknown }).type;
    if (Array.isArray((p as { enum?: unknown }).enum)) return ((p as { enum: unknown[] }).enum).map((x) => JSON.stringify(x)).join('|');
    if (typeof t === 'string') return t === 'array' ? `${typeOf((p as { items?: unknown }).items)}[]` : t;
    if (Array.isArray(t)) return t.filter((x) => typeof x === 'string').join('|');
    return 'any';
  };
  const params = Object.entries(props as Record<string, unknown>).map(([k, p]) => `${k}${required.has(k) ? '' : '?'}: ${typeOf(p)}`);
  return `${name}(${params.join(', ')})`;
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
    ...(item.compressed ? { compressed: true } : {}),
    ...(item.shown ? { shown: item.shown } : {}),
  };
}

export function fmtScore(score: number | null): string {
  return score === null ? '' : ` · score ${score.toFixed(3)}`;
}

export function day(ts: string | null): string {
  return ts ? ts.slice(0, 10) : 'undated';
}

/**
 * One evidence item (both templates): `[E1] path#main (also: a, b):12-40 · score`, then the span's lines; a test
 * the task is not about is only its pointer line, `tested in path#anchor:12-40`.
 */
export function renderEvidence(gate: Gate, h: EvidenceEntry, n: number, section: string): { id: string; text: string; redacted: number } {
  const { label, id } = gatedEvidence(gate, h, section);
  const also = h.also.length > 0 ? gate.pass(` (also: ${h.also.slice(0, 6).join(', ')}${h.also.length > 6 ? `, +${h.also.length - 6}` : ''})`, citePath(h), section) : { text: '', redacted: 0 };
  const head = { text: label.text + also.text.replace(/\n/g, ' '), redacted: label.redacted + also.redacted };
  const r = renderItem(gate, { lead: `[E${n}] ${h.pointer ? 'tested in ' : ''}`, head, tail: `:${h.lineStart}-${h.lineEnd}${fmtScore(h.norm)}`, body: h.pointer ? undefined : h.text, source: citePath(h), section, bodyFirstLine: h.lineStart, context: h.context });
  return { id, ...r };
}
