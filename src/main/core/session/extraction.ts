// What extract() finds in a transcript: the shapes of decisions, issues, state, notes and their provenance.
import type { HandoffTaskState } from '../../../shared/session.ts';
import type { TranscriptTurn } from '../transcripts/index.ts';
import type { UserRequest } from './requests.ts';
import type { ExtractedError } from './errors.ts';

export interface Provenance {
  turn: number;
  line: number;
  ts: string | null;
}

export interface ExtractedDecision {
  id: string;
  title: string;
  decision: string;
  rationale: string;
  alternatives: { name: string; reason: string }[];
  impact: string;
  validation: string;
  agent: string;
  importance: number;
  /** The text as written (the preserved element). */
  text: string;
  at: Provenance;
}

export type IssueKind = 'bug' | 'issue' | 'todo';

export interface ExtractedIssue {
  id: string;
  kind: IssueKind;
  /** BUG-2847 / ISSUE-12, when the text names one. */
  key: string | null;
  severity: 'critical' | 'high' | 'medium' | 'low';
  title: string;
  text: string;
  resolved: boolean;
  at: Provenance;
}

export interface StateSource {
  /** Which field the element went to. */
  field: 'task' | 'status' | 'progress' | 'completed' | 'in_progress' | 'not_started' | 'next_actions' | 'blockers' | 'goal';
  text: string;
  /** What it was read from: a state line, a compaction summary, a todo list, an approved plan, the user's request. */
  from: 'text' | 'compact_summary' | 'todo_list' | 'plan' | 'request';
  at: Provenance;
}

export interface TaskState extends HandoffTaskState {
  /** The state block as written (the preserved element); '' when the state was only inferred. */
  text: string;
  at: Provenance | null;
  /** Older state blocks this one replaces. */
  superseded: number;
  /** The first request's goal (its first line), when it differs from the task. */
  goal: string;
  /** A status line as written ("Status: tests green, docs pending"). */
  status: string;
  /** The user's latest substantive request, with where it is. */
  latest_request: UserRequest | null;
  /** The agent's last words (first line of its last answer), where the work stood when the transcript ends. */
  last_update: { text: string; turn: number; line: number } | null;
  /** Whether the agent answered or called a tool after the latest request. */
  latest_request_answered: boolean;
  /** The user's very last message when it only approved something ("yes", "go ahead") or ran a bare command. */
  last_ack: UserRequest | null;
  /** Every element of the state with its provenance (turn, line). */
  sources: StateSource[];
}

export interface FileModification {
  path: string;
  tool: string;
  at: Provenance;
}

export interface ExtractedNote {
  id: string;
  text: string;
  at: Provenance;
}

export interface Extraction {
  decisions: ExtractedDecision[];
  errors: ExtractedError[];
  issues: ExtractedIssue[];
  state: TaskState;
  acceptance: ExtractedNote[];
  files: FileModification[];
  learnings: ExtractedNote[];
  done: ExtractedNote[];
  /** The latest plan (the suggested approach) and the turns of the plans it superseded. */
  plan: ExtractedNote | null;
  /** Older plans, replaced by a later one (discarded by compaction). */
  superseded_plans: ExtractedNote[];
  /** Turns whose file reads were repeated later (only the last read of a path is kept). */
  repeated_read_turns: number[];
  /** Per text turn, the line offsets copied into a preserved element (compaction shows them once, in the preserved block). */
  consumed: Map<number, Set<number>>;
}

export interface Line {
  text: string;
  turn: TranscriptTurn;
  line: number;
  /** Line offset within the turn's text. */
  offset: number;
  /** Where the turn's words come from, for the state: the agent's prose, its compaction summary, a todo list, a plan. */
  from: 'text' | 'compact_summary' | 'todo_list' | 'plan';
  /** The agent wrote it (answers, compaction summaries, todo lists, plans), as opposed to the user. */
  agent: boolean;
}

export interface ExtractOptions {
  /** Whether a text would leave the redaction gate as (mostly) markers: such a request is never the task. */
  redacted?: (text: string) => boolean;
}
