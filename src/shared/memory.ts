// Project memory and hierarchy data shapes, shared by the engine, its transports and the renderer. Plain JSON only.
import type { SessionContinuity } from './session.ts';

export type MemoryType = 'decision' | 'issue' | 'state' | 'learning';
export const MEMORY_TYPES: readonly MemoryType[] = ['decision', 'issue', 'state', 'learning'];

export type IssueSeverity = 'critical' | 'high' | 'medium' | 'low';
export const ISSUE_SEVERITIES: readonly IssueSeverity[] = ['critical', 'high', 'medium', 'low'];
export type IssueStatus = 'open' | 'resolved';

export interface DecisionAlternative {
  name: string;
  /** Why it was rejected / not selected. */
  reason: string;
}

export interface DecisionContent {
  decision: string;
  rationale: string;
  alternatives_considered: DecisionAlternative[];
  expected_impact: string;
  validation_criteria: string;
  context: string;
}

export interface IssueContent {
  description: string;
  severity: IssueSeverity;
  reproduction_steps: string;
  investigation_status: string;
  attempted_fixes: string[];
  next_actions: string;
  /** The seed's lifecycle rules read `status = 'resolved'`; absent means open. */
  status: IssueStatus;
}

export interface StateContent {
  task_description: string;
  /** Absent (null) when the agent gave none. */
  completion_percentage: number | null;
  substeps_completed: string[];
  substeps_remaining: string[];
  blockers: string[];
  next_actions: string[];
}

export interface LearningContent {
  lesson: string;
  context: string;
  applicability: string;
  evidence: string;
}

export interface MemoryContentByType {
  decision: DecisionContent;
  issue: IssueContent;
  state: StateContent;
  learning: LearningContent;
}

/** The seed's PersistentMemory, with decision links kept as columns so they can be queried. */
export interface MemoryRecord<T extends MemoryType = MemoryType> {
  memory_id: string;
  memory_type: T;
  timestamp: string;
  project_id: string;
  agent_id: string;
  title: string;
  content: MemoryContentByType[T];
  tags: string[];
  importance: number;
  expires_at: string | null;
  parent_memory_id: string | null;
  is_archived: boolean;
  archived_at: string | null;
  access_count: number;
  last_accessed: string | null;
  /** DEC-YYYY-MM-DD-NNN for decisions, null otherwise. */
  decision_id: string | null;
  /** Decision ids (DEC-…) of the decision this one replaces / the one that replaced it. */
  supersedes: string | null;
  superseded_by: string | null;
  updated_at: string;
}

export type DecisionRecord = MemoryRecord<'decision'>;
export type IssueRecord = MemoryRecord<'issue'>;
export type StateRecord = MemoryRecord<'state'>;
export type LearningRecord = MemoryRecord<'learning'>;

/** What a caller supplies to create a memory; ids, access metadata and archive state are the engine's. */
export interface MemoryInput<T extends MemoryType = MemoryType> {
  memory_type: T;
  title: string;
  content: Partial<MemoryContentByType[T]>;
  project_id?: string;
  agent_id?: string;
  tags?: string[];
  importance?: number;
  timestamp?: string;
  expires_at?: string | null;
  parent_memory_id?: string | null;
}

export interface DecisionInput {
  title: string;
  decision: string;
  rationale: string;
  alternatives_considered?: DecisionAlternative[];
  expected_impact?: string;
  validation_criteria?: string;
  context?: string;
  tags?: string[];
  importance: number;
  project_id?: string;
  agent_id?: string;
  timestamp?: string;
  /** Keep a given id (import of an existing file); otherwise one is allocated. */
  decision_id?: string;
  /** DEC-… of a decision this one supersedes; the old one is archived, never deleted. */
  supersedes?: string;
}

export interface FieldIssue {
  field: string;
  message: string;
}

export type MemorySort = 'relevance' | 'timestamp' | 'importance' | 'access' | 'severity';

export interface MemoryQuery {
  query?: string;
  types?: MemoryType[];
  /** Matches memories carrying any of these tags. */
  tags?: string[];
  importanceGte?: number;
  after?: string;
  before?: string;
  /** false (default): active only; true: archived only; 'any': both. */
  archived?: boolean | 'any';
  projectId?: string;
  severities?: IssueSeverity[];
  sort?: MemorySort;
  limit?: number;
}

export interface RelevanceBreakdown {
  title: number;
  content: number;
  importance: number;
  recency: number;
  access: number;
}

export interface MemorySearchHit {
  memory: MemoryRecord;
  /** 0..1, the seed's weighted sum: text 0.40 (title 0.15 + content 0.25), importance 0.25, recency 0.20, access 0.15. */
  score: number;
  breakdown: RelevanceBreakdown;
}

export interface RehydrationBundle {
  generated_at: string;
  project_id: string;
  project_summary: ExecutiveSummary | null;
  current_state: StateRecord | null;
  key_decisions: DecisionRecord[];
  open_issues: IssueRecord[];
  applicable_learnings: LearningRecord[];
  /** Markdown for the context window, within max_tokens. */
  text: string;
  tokens: number;
  max_tokens: number;
  /** Items selected by the seed's rules that did not fit the token budget. */
  omitted: { memory_id: string; memory_type: MemoryType; reason: 'token budget' }[];
  /** Seed 002's session_continuity: when the last recorded session (`contextpack session end`) ended, and how many there were. */
  session_continuity: SessionContinuity;
}

export type LifecycleActionKind = 'CREATED' | 'UPDATED' | 'RESOLVED' | 'ARCHIVED' | 'RESTORED' | 'DELETED' | 'SUPERSEDED';

export interface AuditEntry {
  id: number;
  ts: string;
  action: LifecycleActionKind;
  memory_id: string;
  memory_type: MemoryType;
  title: string;
  rule: string | null;
  reason: string;
  actor: string;
}

export interface LifecycleAction {
  memory_id: string;
  memory_type: MemoryType;
  title: string;
  rule: string;
  reason: string;
}

export interface MaintenanceReport {
  ran_at: string;
  dry_run: boolean;
  archived: LifecycleAction[];
  deleted: LifecycleAction[];
}

export interface DecisionImportResult {
  file: string;
  decision_id: string;
  action: 'created' | 'updated' | 'unchanged';
  /** Set when the file had no id and one was written into it. */
  id_written?: boolean;
}

// ── Hierarchy ────────────────────────────────────────────────────────────────────────────────────────────────────

export interface ExecutiveSummaryInput {
  goal: string;
  status_pct: number;
  status_text?: string;
  priorities?: string[];
  blockers?: string[];
  /** DEC-… ids of the key decisions. */
  key_decisions?: string[];
}

export interface ExecutiveSummary {
  marker: '§1.0';
  anchor: string;
  goal: string;
  status_pct: number;
  status_text: string;
  /** At most three. */
  priorities: string[];
  blockers: string[];
  key_decisions: { decision_id: string; title: string | null; exists: boolean }[];
  updated_at: string;
  updated_by: string;
  /** The summary rendered as markdown. */
  text: string;
}

export interface HierarchySection {
  /** Without the §: '1.0', '2.1', '3.1.2'. Stable across edits; never reused once allocated. */
  marker: string;
  level: 1 | 2 | 3;
  title: string;
  body: string;
  status_pct: number | null;
  is_draft: boolean;
  anchor: string;
  updated_at: string;
  updated_by: string;
}

export interface L4Node {
  /** '4.' + path relative to its ingest root, e.g. '4.src/auth/jwt.ts'. */
  marker: string;
  path: string;
  rel_path: string;
  type: string;
  size: number;
  modified_at: string;
  chunks: number;
  tokens: number;
}

export interface HierarchyTree {
  l1: ExecutiveSummary | null;
  /** L2 sections, each with its L3 sections (3.N and 3.N.x) as children. */
  sections: (HierarchySection & { children: HierarchySection[] })[];
  /** L3 sections whose number matches no L2 section. */
  orphan_details: HierarchySection[];
  l4: L4Node[];
}

export interface NavigationEntry {
  marker: string;
  level: 1 | 2 | 3 | 4;
  title: string;
  anchor: string;
  note: string;
}

export interface NavigationIndex {
  entries: NavigationEntry[];
  markdown: string;
}

export type ConsistencyCheck = 'broken-l4-reference' | 'l2-without-l3' | 'status-mismatch' | 'missing-decision';

/** A §1.0 / L2 / L3 section outside seed 002's per-level token range (o200k tokens of its title and body). */
export interface LevelLimitFinding {
  marker: string;
  level: 1 | 2 | 3;
  tokens: number;
  min: number;
  max: number;
  /** Over the maximum fails `hierarchy check`; under the minimum is a warning. */
  severity: 'over' | 'under';
  message: string;
}

export interface ConsistencyFinding {
  check: ConsistencyCheck;
  /** The section the finding is about ('§3.1.2'). */
  marker: string;
  ref: string | null;
  message: string;
}

export type ChangeType = 'code-change' | 'bug-fix' | 'config-change' | 'new-feature' | 'progress-update' | 'decision-made';
export const CHANGE_TYPES: readonly ChangeType[] = ['code-change', 'bug-fix', 'config-change', 'new-feature', 'progress-update', 'decision-made'];

export interface PropagationHint {
  level: 1 | 2 | 3 | 4;
  /** The seed's matrix cell, e.g. 'Always', 'If significant', '-'. */
  rule: string;
  update: 'always' | 'conditional' | 'never';
  /** Sections known to be affected (from references to the changed path), when a path was given. */
  markers: string[];
}

export interface SectionDraft {
  draft: true;
  level: 2 | 3;
  title: string;
  /** Starts with a DRAFT banner; meant to be edited by the user before it is saved as theirs. */
  text: string;
  method: 'term-overlap-centrality';
  sources: { chunk_id: number; marker: string; lines: string; score: number }[];
}
