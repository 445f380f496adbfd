import type { TaskProfile } from '../../../shared/packet.ts';

// Templates are data: the assembler interprets these tables and has no per-template branches beyond
// "sections with char budgets" (ao-v1) versus "layers with window-proportional token budgets" (layered-v1).

export type AoSectionName = 'GOALS' | 'HISTORY' | 'INTEL' | 'TASK' | 'PROTOCOL';

export interface AoGroupSpec {
  key: string;
  title: string;
  /** Items kept at full content (000: cycles 10, sessions 5, chain 5; learnings 10). */
  limit: number;
  /**
   * 000's gate groups: the title carries `(n/total)` over all gates, and once the group is evicted only its
   * summary line (`14/16 gates passing (omitted for brevity).`) remains, without a header.
   */
  counted?: { noun: string };
}

export interface AoSectionSpec {
  name: AoSectionName;
  /** 000's budget table, in chars, before --max-tokens scaling. */
  min: number;
  target: number;
  max: number;
  /** First line under the header when the section has content. */
  intro: string | null;
  /** Replaces `intro` when the section holds an item of this kind (GOALS from a fitness spec). */
  introWhen?: { kind: 'gate'; text: string };
  groups: AoGroupSpec[];
  /** 000's graceful-degradation text, shown when every group is empty. */
  emptyNote: string;
  /** TASK and PROTOCOL are never trimmed. */
  trimmable: boolean;
  /**
   * The section may grow into what the others leave unused of the packet budget (INTEL: evidence fills the
   * packet instead of stopping at its own target while GOALS and HISTORY are empty).
   */
  absorbsSlack?: boolean;
}

/** One eviction move; the same vocabulary serves the per-section rules and the packet overflow order. */
export type AoEvictionStep =
  | { section: 'HISTORY'; action: 'limit_group'; group: string; keep: number; label: string }
  | { section: 'INTEL'; action: 'drop_lowest_score'; label: string }
  | { section: 'GOALS'; action: 'failing_only'; label: string };

export interface AoTemplate {
  id: 'ao-v1';
  charsPerToken: number;
  defaultMaxTokens: number;
  /** Sum of the section targets: the default total budget. */
  totalTarget: number;
  sections: AoSectionSpec[];
  /** Applied to a section over its own (scaled) target, in order, until it fits. */
  sectionRules: Partial<Record<AoSectionName, AoEvictionStep[]>>;
  /** 000's overflow order when the whole packet is over budget: HISTORY → INTEL → GOALS. */
  overflow: AoEvictionStep[];
  /** Pathological fallback: HISTORY becomes one summary line. */
  pathological: { section: 'HISTORY'; label: string };
  /** Minimal PROTOCOL when resources/protocol/ao-v1.md cannot be read. */
  minimalProtocol: string;
}

const HISTORY_LIMITS: AoEvictionStep[] = [
  { section: 'HISTORY', action: 'limit_group', group: 'states', keep: 5, label: 'history: recent state to 5' },
  { section: 'HISTORY', action: 'limit_group', group: 'sessions', keep: 3, label: 'history: sessions to 3' },
  { section: 'HISTORY', action: 'limit_group', group: 'decisions', keep: 3, label: 'history: decision timeline to 3' },
];
const INTEL_LOWEST: AoEvictionStep = { section: 'INTEL', action: 'drop_lowest_score', label: 'intel: lowest score first' };
const GOALS_FAILING: AoEvictionStep = { section: 'GOALS', action: 'failing_only', label: 'goals: failing gates, blockers and directives only' };

export const AO_V1: AoTemplate = {
  id: 'ao-v1',
  charsPerToken: 4,
  defaultMaxTokens: 7_000,
  totalTarget: 28_000,
  sections: [
    {
      name: 'GOALS',
      min: 200,
      target: 2_000,
      max: 3_000,
      intro: 'What good looks like for this project. Your work must not regress these.',
      introWhen: { kind: 'gate', text: 'Fitness spec for this repository. Your work must not regress these gates.' },
      groups: [
        { key: 'goal', title: 'Goal', limit: 1 },
        { key: 'passing', title: 'Passing', limit: 100, counted: { noun: 'passing' } },
        { key: 'failing', title: 'Failing', limit: 100, counted: { noun: 'failing' } },
        { key: 'unmeasured', title: 'Not Yet Measured', limit: 100, counted: { noun: 'not yet measured' } },
        { key: 'blockers', title: 'Blockers', limit: 20 },
        { key: 'priorities', title: 'Priorities', limit: 20 },
        { key: 'directives', title: 'Directives', limit: 20 },
      ],
      emptyNote:
        'No fitness goals defined for this repository.',
      trimmable: true,
    },
    {
      name: 'HISTORY',
      min: 200,
      target: 8_000,
      max: 10_000,
      intro: null,
      groups: [
        { key: 'states', title: 'Recent State (last 10)', limit: 10 },
        { key: 'sessions', title: 'Recent Sessions (last 5)', limit: 5 },
        { key: 'decisions', title: 'Decision Timeline (last 5)', limit: 5 },
      ],
      emptyNote: 'No prior session data — this is the first cycle.',
      trimmable: true,
    },
    {
      name: 'INTEL',
      min: 200,
      target: 12_000,
      max: 15_000,
      intro: 'Ranked for this task; each item names its source.',
      groups: [
        { key: 'evidence', title: 'Evidence (retrieved, ranked)', limit: 100 },
        { key: 'hierarchy', title: 'Project Hierarchy (L2/L3, by relevance)', limit: 4 },
        { key: 'decisions', title: 'Relevant Decisions', limit: 10 },
        { key: 'learnings', title: 'Relevant Learnings (freshness-weighted, task-filtered)', limit: 10 },
        { key: 'patterns', title: 'Active Patterns', limit: 5 },
        { key: 'issues', title: 'Open Issues', limit: 10 },
      ],
      emptyNote: 'No prior knowledge found — this is the first cycle.',
      trimmable: true,
      absorbsSlack: true,
    },
    {
      name: 'TASK',
      min: 200,
      target: 4_000,
      max: 5_000,
      intro: null,
      groups: [{ key: 'task', title: 'Assignment', limit: 1 }],
      emptyNote: 'No specific task assigned (--task-file gives one).',
      trimmable: false,
    },
    {
      name: 'PROTOCOL',
      min: 200,
      target: 2_000,
      max: 2_500,
      intro: null,
      groups: [{ key: 'protocol', title: '', limit: 1 }],
      emptyNote: '',
      trimmable: false,
    },
  ],
  sectionRules: { HISTORY: HISTORY_LIMITS, INTEL: [INTEL_LOWEST], GOALS: [GOALS_FAILING] },
  overflow: [...HISTORY_LIMITS, INTEL_LOWEST, GOALS_FAILING],
  pathological: { section: 'HISTORY', label: 'pathological: history to one summary line' },
  minimalProtocol:
    'Commit your work with clear messages. Write a session summary before ending.\nRecord decisions and learnings in ContextPack if available.',
};

export type LayerName = 'SYSTEM' | 'TASK' | 'TOOLS' | 'EVIDENCE' | 'MEMORY' | 'CONVERSATION' | 'REQUEST' | 'SLACK';
export type DynamicLayer = 'EVIDENCE' | 'MEMORY' | 'CONVERSATION';

export interface LayerSpec {
  name: LayerName;
  /** Fixed floor as a share of the window (003's "Floors (Fixed)", lower end of each range). */
  floor: number | null;
  /** Never truncated: System, Task, Tools. */
  fixed: boolean;
  /** Slack is reserved in the allocator and the manifest, never rendered. */
  reserved: boolean;
  emptyNote: string;
}

export interface LayeredTemplate {
  id: 'layered-v1';
  defaultWindow: number;
  layers: LayerSpec[];
  /** 003's task profiles: share of the remainder, midpoints of the seed's ranges. */
  profiles: Record<TaskProfile, Record<DynamicLayer, number>>;
  defaultProfile: TaskProfile;
  /** 003's truncation order: Memory (lowest score), then older Evidence, then older Conversation. */
  dropOrder: DynamicLayer[];
  /** Minimal SYSTEM text when resources/protocol/layered-v1-system.md cannot be read. */
  minimalSystem: string;
}

export const LAYERED_V1: LayeredTemplate = {
  id: 'layered-v1',
  defaultWindow: 7_000,
  layers: [
    { name: 'SYSTEM', floor: 0.06, fixed: true, reserved: false, emptyNote: '' },
    { name: 'TASK', floor: 0.08, fixed: true, reserved: false, emptyNote: 'No specific task assigned. This is a free-form session.' },
    { name: 'TOOLS', floor: 0.05, fixed: true, reserved: false, emptyNote: 'No tools in scope for this step.' },
    { name: 'EVIDENCE', floor: null, fixed: false, reserved: false, emptyNote: 'No evidence retrieved for this query.' },
    { name: 'MEMORY', floor: null, fixed: false, reserved: false, emptyNote: 'No memory recorded yet — this is the first cycle.' },
    { name: 'CONVERSATION', floor: null, fixed: false, reserved: false, emptyNote: 'No prior turns (first turn).' },
    // 003: the most important items go at the end of the payload (acceptance, top evidence, the user request).
    { name: 'REQUEST', floor: null, fixed: true, reserved: false, emptyNote: '' },
    { name: 'SLACK', floor: 0.1, fixed: true, reserved: true, emptyNote: '' },
  ],
  profiles: {
    research: { EVIDENCE: 0.6, MEMORY: 0.225, CONVERSATION: 0.125 },
    docs: { EVIDENCE: 0.5, MEMORY: 0.275, CONVERSATION: 0.175 },
    tests: { EVIDENCE: 0.55, MEMORY: 0.225, CONVERSATION: 0.125 },
  },
  defaultProfile: 'research',
  dropOrder: ['MEMORY', 'EVIDENCE', 'CONVERSATION'],
  minimalSystem:
    'You will receive a CONTEXT PACK. Treat its TASK as authoritative for the current step.\nCite EVIDENCE sources; do not fabricate. If evidence is missing, say "unknown".',
};
