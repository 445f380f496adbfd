// The API contract of memory (decisions, memories, the hierarchy, the fitness goals):
// each method's input schema and output type.
import { z } from 'zod';
import { DECISION_ID_PATTERN, QUERY_MAX, TAG_MAX, TITLE_MAX } from '../limits.ts';
import { type ConsistencyFinding, type DecisionRecord, type ExecutiveSummary, type HierarchyTree, type LevelLimitFinding, CHANGE_TYPES, MEMORY_TYPES, type ChangeType, type HierarchySection, type PropagationHint, type SectionDraft, type L4Node, type MemoryRecord, type MemoryType, type NavigationIndex, type RehydrationBundle, type AuditEntry, type LifecycleAction, type MaintenanceReport, type MemorySearchHit } from '../memory.ts';
import { empty, nonEmpty, capped, memoryContentSchema, decisionInputSchema, agentSchema, memoryIdSchema, tagsSchema, importanceSchema, projectIdSchema } from './schemas.ts';

export const memoryInputs = {
  'decisions.list': z
    .object({
      query: z.string().max(500).optional(),
      tag: z.string().max(TAG_MAX).optional(),
      includeSuperseded: z.boolean().optional(),
      tags: tagsSchema.optional().describe('Only decisions with one of these tags (beside `tag`).'),
      importanceGte: z.number().int('importance must be a whole number').min(1).max(10).optional().describe('Only decisions at least this important (1–10).'),
      archived: z.union([z.boolean(), z.literal('any')]).optional().describe("true: only archived (superseded) ones; 'any': both; wins over includeSuperseded."),
      sort: z.enum(['relevance', 'timestamp', 'importance', 'access', 'severity']).optional().describe('The order; default relevance with a query, else newest first.'),
      limit: z.number().int().min(1).max(10_000).optional().describe('At most this many; default 1000.'),
      project: projectIdSchema.optional().describe('Only the decisions of this project.'),
    })
    .strict(),
  'decisions.create': decisionInputSchema,
  'decisions.supersede': z.object({ decisionId: z.string().min(1), replacement: decisionInputSchema.omit({ supersedes: true }) }).strict(),
  /** One decision by its DEC id (or memory id), with its markdown; `chain`: the supersession chain it is part of, oldest first. */
  'decisions.get': z
    .object({
      id: z.string().trim().min(1, 'is required').max(200).describe('A DEC id (DEC-2026-01-31-001) or a memory id.'),
      chain: z.boolean().optional(),
      agent: agentSchema.optional().describe('Who reads it (the access log).'),
    })
    .strict(),
  /** Marks an existing decision superseded by another existing one (both linked, the older archived). */
  'decisions.supersedeBy': z
    .object({
      decisionId: z.string().regex(DECISION_ID_PATTERN, 'must be a decision id like DEC-2026-01-31-001').describe('The older decision.'),
      by: z.string().regex(DECISION_ID_PATTERN, 'must be a decision id like DEC-2026-01-31-001').describe('The newer decision that replaces it.'),
      agent: agentSchema.optional(),
    })
    .strict(),
  /** Writes each decision as `<DEC id>.md` in the template's layout into a folder (usually committed: secrets masked unless includeSecrets). */
  'decisions.exportFiles': z
    .object({
      dir: z.string().min(1).max(4096).regex(/^(\/|[A-Za-z]:[\\/])/, 'dir must be an absolute path').describe('The folder written (absolute), e.g. /repo/docs/decisions.'),
      decisionIds: z.array(z.string().min(1).max(200)).max(10_000).optional().describe('Only these decisions; default every one, archived included.'),
      project: projectIdSchema.optional().describe('Only the decisions of this project.'),
      includeSecrets: z.boolean().optional().describe('Write what looks like a secret as typed (still listed in secrets).'),
    })
    .strict(),
  /** Reads decision files (a folder's *.md, or files) back: new ones created (their id written into the file), edited ones updated. */
  'decisions.import': z
    .object({
      paths: z.array(z.string().min(1).max(4096).regex(/^(\/|[A-Za-z]:[\\/])/, 'paths must be absolute')).min(1, 'give a folder or file').max(1000),
      agent: agentSchema.optional(),
    })
    .strict(),
  'decisions.exportMarkdown': z.object({ decisionIds: z.array(z.string()).optional(), write: z.boolean().optional(), includeSecrets: z.boolean().optional() }).strict(),
  'hierarchy.tree': empty,
  'hierarchy.summary': z
    .object({
      goal: nonEmpty('goal', 2000),
      status_pct: z.number({ error: 'status must be a number from 0 to 100' }).int('status must be a whole number').min(0, 'status must be at least 0').max(100, 'status must be at most 100'),
      status_text: z.string().max(2000).optional(),
      priorities: z.array(z.string().trim().min(1).max(500)).max(3, 'at most 3 priorities').optional(),
      blockers: z.array(z.string().trim().min(1).max(500)).max(20).optional(),
      key_decisions: z.array(z.string().regex(DECISION_ID_PATTERN, 'key decisions are decision ids like DEC-2026-01-31-001')).max(20).optional(),
      /** Who writes (seed 002's ownership rules); default `workbench`. */
      agent: z.string().trim().min(1).max(100).optional(),
    })
    .strict(),
  'hierarchy.show': z.object({ marker: z.string().trim().min(1, 'marker is empty').max(200).optional() }).strict(),
  // Any memory type; decisions go through the decision template and its validation (content: decision, rationale, …).
  'memory.create': z
    .object({
      type: z.enum(MEMORY_TYPES as [MemoryType, ...MemoryType[]]),
      title: nonEmpty('title', TITLE_MAX),
      content: memoryContentSchema,
      tags: z.array(z.string().trim().min(1).max(TAG_MAX)).max(20).optional(),
      importance: z.number().int('importance must be a whole number').min(1, 'importance must be at least 1').max(10, 'importance must be at most 10').optional(),
      agent: z.string().trim().min(1).max(200).optional(),
      parent: memoryIdSchema.optional().describe('The memory this one follows from (its memory_id).'),
      expires: z.string().max(40).optional().describe('When the memory lapses (ISO 8601); lifecycle maintenance archives it then.'),
      timestamp: z.string().max(40).optional().describe('When it happened (ISO 8601); default now.'),
      project: projectIdSchema.optional().describe('The project the memory belongs to, where one store holds several.'),
    })
    .strict(),
  'memory.rehydrate': z
    .object({
      maxTokens: z.number().int().min(500, 'maxTokens must be at least 500').max(200_000, 'maxTokens must be at most 200000').optional(),
      touch: z.boolean().optional().describe('Count the loaded memories as read (access count, last access); default true.'),
      project: projectIdSchema.optional().describe('Only the memories of this project.'),
    })
    .strict(),
  'memory.search': z
    .object({
      query: capped('query', QUERY_MAX).optional(),
      types: z.array(z.enum(['decision', 'issue', 'state', 'learning'])).optional(),
      archived: z.union([z.boolean(), z.literal('any')]).optional(),
      limit: z.number().int().min(1).max(10_000).optional().describe('At most this many hits; default 100 (the command line: 10).'),
      tags: tagsSchema.optional().describe('Only memories with one of these tags.'),
      importanceGte: z.number().int('importance must be a whole number').min(1).max(10).optional().describe('Only memories at least this important (1–10).'),
      after: z.string().max(40).optional().describe('Only memories dated at or after this time (ISO 8601).'),
      before: z.string().max(40).optional().describe('Only memories dated at or before this time (ISO 8601).'),
      sort: z.enum(['relevance', 'timestamp', 'importance', 'access', 'severity']).optional().describe('The order; default relevance with a query, else newest first.'),
      project: projectIdSchema.optional().describe('Only the memories of this project.'),
    })
    .strict(),
  'memory.get': z
    .object({
      id: memoryIdSchema,
      touch: z.boolean().optional().describe('Count this as a read (access count, last access); default false, a preview.'),
      agent: agentSchema.optional(),
    })
    .strict(),
  'memory.update': z
    .object({
      id: memoryIdSchema,
      title: nonEmpty('title', TITLE_MAX).optional(),
      importance: importanceSchema.optional(),
      tags: tagsSchema.optional(),
      set: z.record(z.string(), z.unknown()).optional(),
      expires: z.string().max(40).optional().describe('When the memory lapses (ISO 8601).'),
      agent: agentSchema.optional(),
    })
    .strict(),
  'memory.resolve': z.object({ id: memoryIdSchema, resolution: z.string().max(5000).optional(), agent: agentSchema.optional() }).strict(),
  'memory.archive': z.object({ id: memoryIdSchema, restore: z.boolean().optional(), agent: agentSchema.optional() }).strict(),
  'memory.delete': z.object({ id: memoryIdSchema, agent: agentSchema.optional() }).strict(),
  /** The lifecycle rules over every memory (the app runs them daily): archive what lapsed, delete what expired. */
  'memory.maintain': z
    .object({
      dryRun: z.boolean().optional().describe('Say what would be archived or deleted, changing nothing.'),
      project: projectIdSchema.optional().describe('Only the memories of this project.'),
    })
    .strict(),
  /** The memory audit trail, newest first: every create, change, archive, restore, resolve and delete. */
  'memory.audit': z
    .object({
      id: memoryIdSchema.optional().describe("One memory's entries (its memory_id); default every memory's."),
      limit: z.number().int().min(1).max(10_000).optional().describe('At most this many entries; default 50.'),
    })
    .strict(),
  'hierarchy.addSection': z
    .object({
      level: z.union([z.literal(2), z.literal(3)], { error: 'level must be 2 or 3' }),
      title: nonEmpty('title', 200),
      body: z.string().max(200_000).optional(),
      parent: z.string().max(20).optional(),
      status_pct: z.number().int().min(0).max(100).optional(),
      agent: agentSchema.optional(),
    })
    .strict(),
  'hierarchy.editSection': z
    .object({
      marker: z.string().trim().min(1).max(20),
      title: nonEmpty('title', 200).optional(),
      body: z.string().max(200_000).optional(),
      status_pct: z.number().int().min(0).max(100).nullable().optional(),
      agent: agentSchema.optional(),
    })
    .strict(),
  'hierarchy.own': z
    .object({
      section: z.string().trim().min(1).max(300),
      agent: agentSchema,
      action: z.enum(['acquire', 'release', 'transfer']),
      to: agentSchema.optional(),
      type: z.enum(['exclusive', 'shared-write', 'read-only']).optional(),
      reason: z.string().max(500).optional(),
      expires: z.string().max(40).optional().describe('When an acquired ownership lapses (ISO 8601); default never.'),
    })
    .strict()
    .refine((v) => v.action !== 'transfer' || v.to !== undefined, { message: 'a transfer needs the receiving agent', path: ['to'] }),
  /** The owned sections, and the ownership audit trail (newest first), of one section or all. */
  'hierarchy.owners': z.object({ section: z.string().trim().min(1).max(300).optional().describe("One section's audit entries (e.g. §2.1); default every section's.") }).strict(),
  /** An extractive DRAFT for an L2 or L3 section from the indexed files (never saved: the user edits it first). */
  'hierarchy.draft': z
    .object({
      level: z.union([z.literal(2), z.literal(3)], { error: 'level must be 2 or 3' }),
      title: z.string().trim().min(1).max(200).optional().describe('The draft\'s title; default Draft.'),
      path: z.string().max(1000).optional().describe('Only files under this path relative to the ingest root (e.g. src/auth/).'),
      query: z.string().max(QUERY_MAX).optional().describe('Or the chunks BM25 ranks first for this text.'),
      size: z.number().int().min(1).max(50).optional().describe('L2: sentences in the summary; L3: chunks excerpted (default 4).'),
    })
    .strict(),
  /** Which hierarchy levels a kind of change should update (seed 002's propagation rules), with the sections a path touches. */
  'hierarchy.hints': z
    .object({
      change: z.enum(CHANGE_TYPES as [ChangeType, ...ChangeType[]]),
      path: z.string().max(1000).optional().describe('The changed file, to name the sections that cite it.'),
    })
    .strict(),
  /** The fitness spec (GOALS.md or GOALS.yaml at an indexed root) with each gate's latest recorded result. */
  'goals.show': empty,
  /** One gate result; the gate must be in the current spec. */
  'goals.record': z
    .object({
      gate: z.string().trim().min(1, 'gate is empty').max(200).describe('A gate id of the spec, e.g. tests-pass.'),
      status: z.enum(['pass', 'fail']),
      value: z.string().max(200).optional().describe('What was measured, one line (e.g. 97%).'),
      agent: agentSchema.optional(),
    })
    .strict(),
  /** Text through the redaction gate packets use, with a report of what was masked (by type and line). */
};

/** One § section, or (no marker) the navigation index with the executive summary; `text` is what to read. */
export interface HierarchyShow {
  marker: string | null;
  text: string;
  section?: HierarchySection;
  index?: NavigationIndex;
  /** No marker: the tree the index was made from (one build serves both). */
  tree?: HierarchyTree;
  /** §4 markers: the indexed files they match. */
  files?: L4Node[];
  /** One §4 file: its chunks in order, with their text. */
  chunks?: { anchor: string; lineStart: number; lineEnd: number; text: string }[];
}

export interface DecisionExport {
  markdown: string;
  count: number;
  /** Where the file was written (desktop, `write: true`); absent when only the text was asked for. */
  path?: string;
  /** Decisions in which the redaction gate masked something (absent with `includeSecrets` or when none). */
  masked?: string[];
}

export interface DecisionList {
  decisions: DecisionRecord[];
}

export interface HierarchyView {
  tree: HierarchyTree;
  findings: ConsistencyFinding[];
  /** Sections outside their level's token range (seed 002: L1 ≤ 1K, L2 200–500, L3 1K–3K). */
  limits: LevelLimitFinding[];
}

/** `decisions.exportFiles`: the files written and left as they were, and the decisions that held a secret. */
export interface DecisionFilesExport {
  dir: string;
  written: string[];
  unchanged: string[];
  secrets: { decision_id: string; file: string; fields: number; masked: boolean }[];
}

/** `decisions.import`: what each decision file did, and the markdown files that are not decision files. */
export interface DecisionFilesImport {
  results: { file: string; decision_id: string; action: 'created' | 'updated' | 'unchanged'; id_written?: boolean }[];
  skipped: { file: string; reason: string }[];
}

export interface OwnershipView {
  section_id: string;
  owner_agent_id: string;
  ownership_type: 'exclusive' | 'shared-write' | 'read-only';
  acquired_at: string;
  expires_at: string | null;
  previous_owner: string | null;
  lock_reason: string;
}

export interface OwnershipAuditView {
  id: number;
  ts: string;
  section_id: string;
  action: 'acquire' | 'release' | 'transfer' | 'refused';
  agent_id: string;
  owner_agent_id: string | null;
  previous_owner: string | null;
  ownership_type: string | null;
  reason: string;
}

export interface MemoryPatchView {
  memory: MemoryRecord;
  changed: boolean;
  lifecycle: LifecycleAction | null;
}

/** A gate of the fitness spec and its latest recorded result (null: never recorded). */
export interface GateView {
  id: string;
  description: string;
  threshold: string | null;
  status: 'pass' | 'fail' | null;
  value: string | null;
  recorded_at: string | null;
}

/** The fitness state; `file` null when no spec is at any indexed root. */
export interface FitnessView {
  file: string | null;
  version?: number | null;
  gates: GateView[];
  directives: string[];
  passing: number;
  failing: number;
  unmeasured: number;
}

export interface GateRecordView {
  id: number;
  gate_id: string;
  status: 'pass' | 'fail';
  value: string | null;
  spec_file: string;
  recorded_at: string;
}

export interface MemoryOutputs {
  'decisions.list': DecisionList;
  'decisions.create': DecisionRecord;
  'decisions.get': { decision: DecisionRecord; markdown: string; chain?: DecisionRecord[] };
  'decisions.supersedeBy': { older: DecisionRecord; newer: DecisionRecord };
  'decisions.exportFiles': DecisionFilesExport;
  'decisions.import': DecisionFilesImport;
  'decisions.supersede': DecisionRecord;
  'decisions.exportMarkdown': DecisionExport;
  'hierarchy.tree': HierarchyView;
  'hierarchy.summary': ExecutiveSummary;
  'hierarchy.show': HierarchyShow;
  'memory.create': MemoryRecord;
  'memory.rehydrate': RehydrationBundle;
  'memory.search': { hits: MemorySearchHit[] };
  'memory.get': MemoryRecord;
  'memory.update': MemoryPatchView;
  'memory.resolve': MemoryPatchView;
  'memory.archive': MemoryRecord;
  'memory.delete': LifecycleAction;
  'memory.maintain': MaintenanceReport;
  'memory.audit': { entries: AuditEntry[] };
  'goals.show': FitnessView;
  'goals.record': GateRecordView;
  'hierarchy.addSection': HierarchySection;
  'hierarchy.editSection': HierarchySection;
  'hierarchy.own': { ownership: OwnershipView | null };
  'hierarchy.owners': { owners: OwnershipView[]; audit: OwnershipAuditView[] };
  'hierarchy.draft': SectionDraft;
  'hierarchy.hints': { change: ChangeType; hints: PropagationHint[] };
}
