// Sessions (seed 002): capacity levels, compaction, handoff packages and session summaries, as plain JSON shared by
// the engine, its transports and the renderer.

export type CapacityLevel = 'GREEN' | 'YELLOW' | 'ORANGE' | 'RED';

/** Seed 002's Capacity Monitoring table: the lowest usage (percent of the window) of each level. */
export const CAPACITY_FROM_PCT: Record<CapacityLevel, number> = { GREEN: 0, YELLOW: 80, ORANGE: 90, RED: 95 };

/** The level for a token count in a window (the engine's capacityStatus and the Packets view agree through this). */
export function capacityLevelOf(tokens: number, window: number): CapacityLevel {
  const pct = (tokens / window) * 100;
  return pct >= CAPACITY_FROM_PCT.RED ? 'RED' : pct >= CAPACITY_FROM_PCT.ORANGE ? 'ORANGE' : pct >= CAPACITY_FROM_PCT.YELLOW ? 'YELLOW' : 'GREEN';
}

export interface CapacityReport {
  level: CapacityLevel;
  tokens: number;
  window: number;
  /** tokens / window × 100, unrounded (the level is decided on this). */
  usage_pct: number;
  /** The table's "Action Required". */
  action: string;
  /** check_capacity_status()'s message. */
  status: string;
  /** The seed's "Capacity Alert Responses". */
  response: string;
  /** Tokens left before the next level (null at RED). */
  tokens_to_next_level: number | null;
  /** Tokens compaction to the seed's 65 % target would remove (0 below it). */
  compaction_target_tokens: number;
}

/** Seed 002's compaction summary, field names as the seed writes them. */
export interface CompactionSummary {
  tokens_before: number;
  tokens_after: number;
  tokens_saved: number;
  elements_removed: number;
  preservation_validation: boolean;
}

export type PreservedKind = 'decision' | 'error' | 'task_state' | 'open_issue' | 'acceptance' | 'file_modification';

export interface PreservedCheck {
  id: string;
  kind: PreservedKind;
  /** What must be found in the compacted text. */
  expect: string[];
  present: boolean;
}

export type ElementAction = 'kept' | 'compressed' | 'dropped';

export interface ElementReport {
  id: string;
  turn: number;
  kind: 'text' | 'tool_use' | 'tool_result';
  role: 'user' | 'assistant' | 'system' | 'tool';
  action: ElementAction;
  /** 0–30 discard rule, 31–99 scored. */
  score: number;
  tokens_before: number;
  tokens_after: number;
  reason: string;
  preview: string;
}

export type HandoffType = 'complete' | 'specialist' | 'continuation' | 'emergency';
export const HANDOFF_TYPES: readonly HandoffType[] = ['complete', 'specialist', 'continuation', 'emergency'];

/** Seed 002's Handoff Package Token Budget: the range per type; the top is the default budget. */
export const HANDOFF_BUDGET_RANGES: Record<HandoffType, readonly [number, number]> = {
  complete: [15_000, 25_000],
  specialist: [5_000, 10_000],
  continuation: [30_000, 40_000],
  emergency: [10_000, 15_000],
};

/** Seed 002's execute_agent_handoff step 1: heavy compaction (40 %) for continuation, light (20 %) otherwise. */
export const HANDOFF_REDUCTION_TARGETS: Record<HandoffType, number> = { complete: 0.2, specialist: 0.2, continuation: 0.4, emergency: 0.2 };

export interface HandoffDecision {
  /** DEC-… for a stored decision, `transcript:<turn>` for one found in the transcript. */
  id: string;
  title: string;
  decision: string;
  rationale: string;
  alternatives: { name: string; reason: string }[];
  importance: number;
  source: string;
}

export interface HandoffIssue {
  id: string;
  title: string;
  severity: string;
  detail: string;
  source: string;
}

export interface HandoffTaskState {
  task: string;
  completion_percentage: number | null;
  completed: string[];
  in_progress: string[];
  not_started: string[];
  next_actions: string[];
  blockers: string[];
}

export interface OwnershipTransfer {
  section_id: string;
  owner_agent_id: string;
  ownership_type: 'exclusive' | 'shared-write' | 'read-only';
  acquired_at: string;
  previous_owner: string | null;
  lock_reason: string;
}

/** Seed 002's handoff package. */
/** Seed 002's agent_expertise_match: skills are languages (by file extension) and memory tags. */
export interface ExpertiseMatch {
  /** Languages of the files the handoff touches, tags of its decisions and issues. */
  required_skills: string[];
  /** Languages of files the recipient's recorded sessions modified, tags of memories it wrote. */
  to_agent_capabilities: string[];
  matched_skills: string[];
  /** Share of the required skills the recipient has shown; null when none are required or nothing is known of it. */
  skill_match_score: number | null;
  /** What the capabilities rest on. */
  basis: string;
}

export interface HandoffPackage {
  schema: 'contextpack.handoff/1';
  handoff_metadata: {
    from_agent_id: string;
    to_agent_id: string;
    handoff_type: HandoffType;
    timestamp: string;
    reason: string;
    context_token_count: number;
  };
  context_summary: {
    executive_summary: string;
    critical_decisions: HandoffDecision[];
    open_issues: HandoffIssue[];
    current_task_state: HandoffTaskState;
    blocking_dependencies: string[];
  };
  work_products: { completed: string[]; in_progress: string[]; not_started: string[] };
  agent_expertise_match: ExpertiseMatch;
  ownership_transfers: OwnershipTransfer[];
  next_actions: { immediate: string[]; short_term: string[]; success_criteria: string[] };
  agent_specific_notes: { from_agent_observations: string[]; suggested_approach: string; known_pitfalls: string[]; useful_resources: string[] };
  compacted_context: string;
  compaction: CompactionSummary & {
    /** 002: 0.40 for continuation, 0.20 otherwise. */
    reduction_target: number;
    reduction_achieved: number;
    reduction_target_met: boolean;
  };
  budget: {
    /** The top of 002's range for the type, or --max-tokens when lower. */
    max_tokens: number;
    range: [number, number];
    /** Tokens of the Markdown rendering (what is copied), counted with `encoding`. */
    package_tokens: number;
    within_budget: boolean;
    encoding: string;
  };
  source: { transcript: string | null; format: string | null; session_id: string | null; turns: number; problems: number; redactions: number };
}

export interface SavedMemory {
  memory_type: 'decision' | 'issue' | 'state' | 'learning';
  id: string;
  title: string;
}

export interface SaveReport {
  created: SavedMemory[];
  /** Already in the store (same title or same text): not saved again. */
  duplicates: SavedMemory[];
}

export interface HandoffResult {
  hash: string;
  package: HandoffPackage;
  /** Markdown (or JSON) as asked. */
  text: string;
  format: 'md' | 'json';
  /** The memory that records the handoff (002 step 3). */
  recorded_memory_id: string | null;
  saved: SaveReport | null;
  /** Whether this call stored a new snapshot (false when the same package was stored before). */
  stored: boolean;
}

/** Seed 002's session summary (Session Summary Generation). */
export interface SessionSummary {
  session_metadata: {
    session_id: string;
    start_time: string | null;
    end_time: string;
    duration_minutes: number | null;
    agent_ids: string[];
    project_id: string;
  };
  done: string[];
  decisions_made: HandoffDecision[];
  issues_encountered: (HandoffIssue & { kind: 'bug' | 'issue' | 'todo' | 'error' })[];
  current_state: HandoffTaskState | null;
  learnings: string[];
  file_modifications: { created: string[]; modified: string[]; deleted: string[] };
  metrics: { tokens_used: number; files_accessed: number; operations_performed: number; compactions_executed: number };
  source: string;
}

export interface SessionEndResult {
  summary: SessionSummary;
  headline: string;
  saved: SaveReport;
}

export interface SessionContinuity {
  last_session_end: string | null;
  /** Whole minutes since the last session ended (null when there was none). */
  minutes_since_last_session: number | null;
  /** e.g. "2 days 3 hours". */
  time_since_last_session: string | null;
  sessions_in_project: number;
}
