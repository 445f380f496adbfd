// Context packet data shapes, shared by the engine, its transports and the renderer (budget bars, evicted items,
// redaction markers, history by hash, replay diffs). Plain JSON only. schema_version 1: fields are never removed or
// renamed; readers ignore fields they do not know.

import type { RetrievalRanking, SearchFilters, SearchMode } from './types.ts';

export type PacketTemplateId = 'ao-v1' | 'layered-v1';
export const PACKET_TEMPLATES: readonly PacketTemplateId[] = ['ao-v1', 'layered-v1'];

export type PacketFormat = 'md' | 'json' | 'contextos';
export const PACKET_FORMATS: readonly PacketFormat[] = ['md', 'json', 'contextos'];

export type PacketEncoding = 'o200k_base' | 'cl100k_base';

/** 003's remainder-allocation profiles for layered-v1. */
export type TaskProfile = 'research' | 'docs' | 'tests';
export const TASK_PROFILES: readonly TaskProfile[] = ['research', 'docs', 'tests'];

/** 003's allocator signals; all optional, recorded in the manifest. */
export interface AllocatorSignals {
  checklist_evidence_ratio?: number;
  expected_tool_calls?: number;
  risk_weight?: number;
  retrieval_hit_rate?: number;
  similarity?: number;
  freshness?: number;
  unresolved_questions?: number;
  dialogue_depth?: number;
}

export type CapabilityClass = 'observe' | 'recall' | 'think_support' | 'verify' | 'act';
export type RiskLevel = 'read_safe' | 'read_sensitive' | 'write_reversible' | 'write_external' | 'write_irreversible';
export type ApprovalMode = 'read_only' | 'local_write' | 'network' | 'delegated' | 'destructive';

/** A tool exposed to the step (layered-v1 Tools layer, ContextOS tooling_layer). */
export interface PacketTool {
  name: string;
  /** What the tool does (`description` in a tools file or packets.build input). */
  purpose: string;
  capability_class?: CapabilityClass;
  risk_level?: RiskLevel;
  approval_mode?: ApprovalMode;
  /** The tool's input as a JSON Schema object (typed parameters); every key and string in it passes the gate. */
  input_schema?: Record<string, unknown>;
}

/** A tool as a caller gives it: `description` and `purpose` are the same field (the file format says description). */
export type PacketToolInput = Omit<PacketTool, 'purpose'> & { purpose?: string; description?: string };

export interface ConversationTurn {
  role: 'user' | 'assistant';
  text: string;
  ts?: string;
}

/** A turn as a caller gives it: `content` (the JSONL file format) or `text`. */
export type ConversationTurnInput = { role: 'user' | 'assistant'; text?: string; content?: string; ts?: string };

/** 003's conversation tail: turns kept verbatim by default; older ones are demoted to one summary block. */
export const DEFAULT_KEEP_TURNS = 5;

/** What a caller asks for. Everything the assembler reads besides the store, so it can be replayed. */
export interface PacketRequest {
  query: string;
  /** The task text and acceptance criteria, as given. */
  task?: string;
  template?: PacketTemplateId;
  /** ao-v1: total budget is max_tokens × 4 chars (default 7,000 → 28,000). layered-v1: the window in tokens. */
  maxTokens?: number;
  encoding?: PacketEncoding;
  /** Evidence hits fetched from the retriever (default 20). */
  k?: number;
  filters?: SearchFilters;
  /** Apply the project's "exclude from evidence by default" globs (settings); default true. */
  useDefaultExcludes?: boolean;
  profile?: TaskProfile;
  signals?: AllocatorSignals;
  tools?: PacketToolInput[];
  conversation?: ConversationTurnInput[];
  /** layered-v1: the last N turns are kept verbatim, older ones become a summary (003's aging policy). */
  keepTurns?: number;
  /**
   * layered-v1: how many of the latest turns the caller sends beside the pack as prior messages (ADK's contents
   * tail, see docs/adk.md); the CONVERSATION layer says where they are instead of repeating them.
   */
  turnsElsewhere?: number;
  /**
   * Shorten a task longer than TASK's room before assembly (seed 000: "the orchestrator must compress it"; the
   * assembler itself never trims TASK). The API sets it for every door; the whole task still feeds retrieval.
   */
  briefTask?: boolean;
  /** Who asked (recorded in the injection log). */
  sessionId?: string;
  /**
   * Only on the request stored beside a snapshot (replay --reassemble): the redactions its gated free text
   * already carries, so the rebuild counts them as the first build did.
   */
  recordedRedactions?: { section: string; source: string; line: number; pattern: string; type: string }[];
}

export type PacketItemKind =
  | 'goal'
  | 'gate'
  | 'blocker'
  | 'priority'
  | 'directive'
  | 'state'
  | 'session'
  | 'decision_timeline'
  | 'evidence'
  | 'decision'
  | 'learning'
  | 'issue'
  | 'task'
  | 'protocol'
  | 'system'
  | 'tool'
  | 'turn'
  | 'summary';

/** One included item: where it came from and how it ranked, not its text (that is in the section). */
export interface PacketItemRef {
  id: string;
  section: string;
  kind: PacketItemKind;
  /** path#anchor:lines, memory id, or decision id. */
  source: string;
  /** 0..1, higher is better; null for unranked items (task, protocol). */
  score: number | null;
  chars: number;
  /** First 16 hex of sha256 of the item's rendered text: replay diffs call an item "changed" when it moves. */
  digest: string;
  redacted_lines: number;
  /** Set when the item was reduced to its provenance line and key sentences to fit (003: compress before drop). */
  compressed?: boolean;
  /** A compressed code item that still shows some of its lines (an excerpt): those lines, `12-16,30-34`. */
  shown?: string;
}

export interface DroppedItem {
  id: string;
  section: string;
  kind: PacketItemKind;
  source: string;
  score: number | null;
  reason: string;
}

export interface TruncationEvent {
  /** Section (ao-v1) or layer (layered-v1). */
  section: string;
  /** e.g. `history: cycles to 5`, `intel: lowest score first`, `pathological: history to one line`. */
  step: string;
  reason: 'section_over_target' | 'packet_over_budget' | 'layer_over_allocation' | 'pathological';
  /** compress: items reduced to key sentences (compressed_ids); drop (the default when absent): items removed. */
  action?: 'compress' | 'drop';
  compressed_ids?: string[];
  dropped_ids: string[];
  chars_before: number;
  chars_after: number;
}

export interface SectionBudget {
  name: string;
  /** ao-v1: chars (scaled by --max-tokens); layered-v1: tokens. null for the unbounded ones. */
  min: number | null;
  target: number | null;
  max: number | null;
  unit: 'chars' | 'tokens';
  chars: number;
  /** Exact count with the packet's encoding. */
  tokens: number;
  /** chars / 4, the spec's estimate, shown next to the real count. */
  estimate_tokens: number;
  items: number;
  truncated: boolean;
  /** Set when the section shows a degradation note instead of content. */
  note: string | null;
  /** layered-v1 Slack: reserved, never rendered. */
  reserved?: boolean;
}

export interface RedactionSummary {
  count: number;
  by_type: Record<string, number>;
  /** Where (never what): section, source, line in the source, rule. */
  events: { section: string; source: string; line: number; pattern: string; type: string }[];
}

export interface RetrievalParams {
  mode: SearchMode;
  k: number;
  filters: SearchFilters | null;
  hits: number;
  /** Fusion of keyword and vector lists (hybrid); null otherwise. */
  fusion?: RetrievalRanking['fusion'];
  /** MMR re-ranking: λ, candidates, and whether similarity came from chunk vectors or the chunks' words. */
  mmr?: RetrievalRanking['mmr'];
  /** Why the packet was not retrieved with hybrid search (no vectors, incomplete vectors, no model); null when it was. */
  fallback_reason?: string | null;
  /** Why evidence stopped before the hits ran out (relevance floor, excluded file kinds); null when every hit was kept. */
  evidence_stop?: string | null;
}

/** 001's context ledger combined with 003's manifest. */
/** A source an included evidence item cites: its root-relative path as cited, and the root it lies under. */
export interface CitedSource {
  path: string;
  root_id: number | null;
}

/** Whether a stored packet still matches the index: a cited source changed (new content hash) or vanished. */
export interface PacketStaleness {
  stale: boolean;
  /** Cited sources that differ from what the packet used, by cited path. */
  changed_sources?: { path: string; change: 'changed' | 'vanished' }[];
}

export interface PacketManifest {
  schema_version: 1;
  pack_id: string;
  template: PacketTemplateId;
  query: string;
  task: string | null;
  budgets: {
    unit: 'chars' | 'tokens';
    total_budget: number;
    max_tokens: number;
    window?: number;
    profile?: TaskProfile;
    weights?: { evidence: number; memory: number; conversation: number };
    signals?: AllocatorSignals;
    total_chars: number;
    total_tokens: number;
    total_estimate_tokens: number;
    sections: SectionBudget[];
  };
  included: PacketItemRef[];
  dropped: DroppedItem[];
  truncation_events: TruncationEvent[];
  redactions: RedactionSummary;
  retrieval: RetrievalParams;
  models: { tokenizer: PacketEncoding; embedder: string | null; retriever: SearchMode };
  engine_version: string;
  /** Ledger views: ids by role, for diagnostics. */
  evidence_ids: string[];
  memory_block_ids: string[];
  dropped_ids: string[];
  policy_rules: string[];
  tool_capabilities: PacketTool[];
  budget_warnings: string[];
  /** Sources that were missing or empty, with the note shown. */
  degradations: string[];
  /**
   * 003's Required vs Optional Items: invalid when the step (the task) or its acceptance criteria are missing,
   * each with the reason and what to do.
   */
  validity?: { valid: boolean; reasons: string[] };
  /** 003: evidence is required (the checklist asks for proof, or tools are in scope) but none made it in. */
  evidence_needed?: boolean;
  /** Sources cited by included evidence (absent in packets built before roots existed). */
  cited_sources?: CitedSource[];
  context_snapshot_hash: string;
}

export interface PacketListItem {
  hash: string;
  pack_id: string;
  /** A packet template, or `handoff-<type>` for a stored handoff package (seed 002). */
  template: PacketTemplateId | `handoff-${string}`;
  query: string;
  created_at: string;
  bytes: number;
  total_chars: number;
  total_tokens: number;
  redactions: number;
  items: number;
  dropped: number;
  /** Computed against the index on listing (never stored in the packet). */
  stale?: boolean;
  changed_sources?: PacketStaleness['changed_sources'];
}

export interface ReplayItemChange {
  id: string;
  section: string;
  before: { score: number | null; digest: string; section: string };
  after: { score: number | null; digest: string; section: string };
}

export interface ReplayDiff {
  hash: string;
  reassembled_hash: string;
  identical: boolean;
  added: PacketItemRef[];
  removed: PacketItemRef[];
  changed: ReplayItemChange[];
  /** Differences outside items: budgets, redaction count, retrieval mode. */
  notes: string[];
}

/** 000's provenance record, appended per assembly. */
export interface InjectionRecord {
  schema_version: 1;
  ts: string;
  session_id: string | null;
  pack_id: string;
  context_snapshot_hash: string;
  template: PacketTemplateId;
  query: string;
  sections: Record<string, { chars: number; tokens: number; items: number }>;
  total_chars: number;
  total_tokens: number;
  total_tokens_est: number;
  budget_chars: number;
  redactions: number;
  truncated_sections: string[];
}

/** One rendered section (ao-v1) or layer (layered-v1). `text` includes its `## NAME` header. */
export interface PacketSection {
  name: string;
  text: string;
  budget: SectionBudget;
}

/** The recorded inputs, as they may be shown: query and task after redaction, the raw task only by digest. */
export interface PacketInputs {
  query: string;
  task: string | null;
  task_sha256: string | null;
  template: PacketTemplateId;
  max_tokens: number;
  encoding: PacketEncoding;
  k: number;
  filters: SearchFilters | null;
  profile: TaskProfile | null;
  signals: AllocatorSignals | null;
  tools: PacketTool[];
  conversation: ConversationTurn[];
  /** layered-v1 only; absent in packets built before it existed. */
  keep_turns?: number;
  /** layered-v1: turns sent beside the pack as prior messages (absent when none). */
  turns_elsewhere?: number;
  /** The task was shortened to TASK's room before assembly (absent when the request did not ask). */
  task_brief?: true;
}

/** One of 001's ContextPackV2 fields: where it came from, its items (each with provenance), or why it is empty. */
export interface ContextPackV2Field {
  source: string;
  items: { text: string; source: string }[];
  /** Set (and items empty) when no source had anything. */
  empty: string | null;
}

export interface ContextPackV2Fields {
  constraints: ContextPackV2Field;
  preferences: ContextPackV2Field;
  durable_facts: ContextPackV2Field;
  suggested_plan: ContextPackV2Field;
  routing_hints: ContextPackV2Field;
}

/**
 * The packet as stored and hashed: canonical JSON of this object (sorted keys, normalized text) is the snapshot;
 * its sha256 is the context_snapshot_hash. Nothing time- or machine-dependent goes in here.
 */
export interface CanonicalPacket {
  schema_version: 1;
  engine_version: string;
  template: PacketTemplateId;
  inputs: PacketInputs;
  sections: PacketSection[];
  included: PacketItemRef[];
  dropped: DroppedItem[];
  truncation_events: TruncationEvent[];
  redactions: RedactionSummary;
  retrieval: RetrievalParams;
  models: PacketManifest['models'];
  budgets: Omit<PacketManifest['budgets'], 'sections'>;
  policy_rules: string[];
  budget_warnings: string[];
  degradations: string[];
  /** 001's ContextPackV2 fields (engine 1.1.0+; absent in older snapshots). */
  context_v2?: ContextPackV2Fields;
  /** Sources cited by included evidence, by cited path (no absolute path: roots are named, see #11). */
  cited_sources?: CitedSource[];
}

export interface AssembledPacket {
  hash: string;
  /** The stored snapshot bytes (canonical JSON, UTF-8). */
  bytes: Uint8Array;
  packet: CanonicalPacket;
  manifest: PacketManifest;
  /** The packet rendered in the requested format. */
  text: string;
  format: PacketFormat;
}
