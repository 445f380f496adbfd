// Structured results: for the tools whose answer an agent acts on (a hash to cite, paths to open), an outputSchema
// and the structuredContent that matches it, so a client reads fields instead of parsing Markdown. The SDK client
// validates each result against its tool's schema.
import { z } from 'zod';
import type { ApiOutput } from '../../shared/api/index.ts';
import type { PacketItemRef, PacketManifest } from '../../shared/packet.ts';
import { citePath } from '../../shared/provenance.ts';

// Field names say what they hold; a description is kept only where the name does not (an output schema costs the
// agent's context as much as an input schema does).
const lines = z.object({ start: z.number().int(), end: z.number().int() }).strict();

const hit = z
  .object({
    rank: z.number().int(),
    path: z.string(),
    anchor: z.string().nullable(),
    lines,
    score: z.number(),
    title: z.string(),
    snippet: z.string(),
  })
  .strict();

const item = z
  .object({
    id: z.string(),
    section: z.string(),
    kind: z.string(),
    source: z.string().describe('path#anchor:lines or memory id'),
    score: z.number().nullable(),
    path: z.string().optional(),
    anchor: z.string().nullable().optional(),
    lines: lines.optional(),
    compressed: z.boolean().optional(),
    shown: z.array(lines).optional().describe('of a compressed item, the lines shown'),
  })
  .strict();

const packet = {
  hash: z.string().describe('context_snapshot_hash'),
  uri: z.string(),
  format: z.string(),
  template: z.string(),
  mode: z.string(),
  tokens: z.number().int(),
  max_tokens: z.number().int(),
  redacted_lines: z.number().int(),
  items: z.array(item),
  dropped: z.number().int(),
};

export const TOOL_OUTPUTS = {
  search: z
    .object({
      mode: z.string(),
      semantic_off: z.string().nullable().describe('why not hybrid'),
      hits: z.array(hit),
    })
    .strict(),
  pack: z.object(packet).strict(),
  get_packet: z.object(packet).strict(),
  rehydrate: z
    .object({
      tokens: z.number().int(),
      max_tokens: z.number().int(),
      items: z.array(z.object({ id: z.string(), type: z.string(), title: z.string() }).strict()),
      omitted: z.number().int(),
    })
    .strict(),
  ingest: z
    .object({
      roots: z.array(z.string()),
      added: z.array(z.string()),
      updated: z.array(z.string()),
      removed: z.array(z.string()),
      unchanged: z.number().int(),
      skipped: z.array(z.object({ path: z.string(), reason: z.string() }).strict()),
      failed: z.array(z.object({ path: z.string(), reason: z.string() }).strict()),
      files: z.number().int(),
      chunks: z.number().int(),
      durationMs: z.number(),
    })
    .strict(),
  handoff: z
    .object({
      hash: z.string(),
      type: z.string(),
      tokens: z.number().int(),
      max_tokens: z.number().int(),
      reduction: z.number().describe('share compacted away, 0..1'),
      preservation_validation: z.boolean(),
      recorded_memory_id: z.string().nullable(),
    })
    .strict(),
};

export type StructuredTool = keyof typeof TOOL_OUTPUTS;

const EVIDENCE_SOURCE = /^(.+?)(?:#([^#:]*))?:(\d+)-(\d+)$/;

function itemOf(i: PacketItemRef): z.infer<typeof item> {
  const base = { id: i.id, section: i.section, kind: i.kind, source: i.source, score: i.score, ...(i.compressed ? { compressed: true } : {}) };
  const m = i.kind === 'evidence' ? EVIDENCE_SOURCE.exec(i.source) : null;
  if (!m) return base;
  const shown = i.shown?.split(',').map((r) => r.split('-').map(Number)).map(([start, end]) => ({ start: start!, end: end! }));
  return { ...base, path: m[1]!, anchor: m[2] ?? null, lines: { start: Number(m[3]), end: Number(m[4]) }, ...(shown ? { shown } : {}) };
}

export function packetStructure(p: { hash: string; format: string; manifest: PacketManifest }, uri: string): z.infer<(typeof TOOL_OUTPUTS)['pack']> {
  const m = p.manifest;
  return {
    hash: p.hash,
    uri,
    format: p.format,
    template: m.template,
    mode: m.retrieval.mode,
    tokens: m.budgets.total_tokens,
    max_tokens: m.budgets.max_tokens,
    redacted_lines: m.redactions.count,
    items: m.included.map(itemOf),
    dropped: m.dropped.length,
  };
}

export function searchStructure(r: ApiOutput<'search.query'>, snippet: (text: string) => string, semanticOff: string | null): z.infer<(typeof TOOL_OUTPUTS)['search']> {
  return {
    mode: r.mode,
    semantic_off: semanticOff,
    hits: r.hits.map((h, i) => ({
      rank: i + 1,
      path: citePath(h),
      anchor: h.anchor || null,
      lines: { start: h.lineStart, end: h.lineEnd },
      score: h.score,
      title: h.title,
      snippet: snippet(h.text),
    })),
  };
}

export function rehydrateStructure(b: ApiOutput<'memory.rehydrate'>): z.infer<(typeof TOOL_OUTPUTS)['rehydrate']> {
  const records = [b.current_state, ...b.key_decisions, ...b.open_issues, ...b.applicable_learnings].filter((r) => r !== null);
  return {
    tokens: b.tokens,
    max_tokens: b.max_tokens,
    items: records.map((r) => ({ id: r.decision_id ?? r.memory_id, type: r.memory_type, title: r.title })),
    omitted: b.omitted.length,
  };
}

export function handoffStructure(h: ApiOutput<'sessions.handoff'>): z.infer<(typeof TOOL_OUTPUTS)['handoff']> {
  const p = h.package;
  return {
    hash: h.hash,
    type: p.handoff_metadata.handoff_type,
    tokens: p.budget.package_tokens,
    max_tokens: p.budget.max_tokens,
    reduction: p.compaction.reduction_achieved,
    preservation_validation: p.compaction.preservation_validation,
    recorded_memory_id: h.recorded_memory_id,
  };
}
