// The one API contract: every method's input schema (validated at the boundary by main, for both transports) and
// output type. The renderer calls nothing else; preload exposes exactly these names.
import type { CapturedSession } from '../captures.ts';
import { z } from 'zod';
import { filterDateMs } from '../filters.ts';
import { GLOB_MAX, globError } from '../globs.ts';
import { DECISION_FIELD_MAX, DECISION_ID_PATTERN, MAX_MAX_TOKENS, MEMORY_CONTENT_MAX, MIN_MAX_TOKENS, NOTES_MAX, capError, overCap, QUERY_MAX, TAG_MAX, TASK_MAX, TITLE_MAX, TRANSCRIPT_MAX, TRANSCRIPT_NAME_MAX } from '../limits.ts';
import { SOURCE_TYPES, type IngestReport, type ProjectInfo, type ProjectsView, type RootRecord, type SearchHit, type SearchMode, type SourceRecord, type StoreStats, type WatchStatus } from '../types.ts';
import type { ConsistencyFinding, DecisionRecord, ExecutiveSummary, FieldIssue, HierarchyTree, LevelLimitFinding } from '../memory.ts';
// For the agent-facing methods (issue #11): memory.create, memory.rehydrate, hierarchy.show, search retrieval.
import type { RetrievalRanking } from '../types.ts';
import { CHANGE_TYPES, MEMORY_TYPES, type ChangeType, type HierarchySection, type PropagationHint, type SectionDraft, type L4Node, type MemoryRecord, type MemoryType, type NavigationIndex, type RehydrationBundle } from '../memory.ts';
import type { GatedFields } from '../types.ts';
import type { AuditEntry, LifecycleAction, MaintenanceReport, MemorySearchHit } from '../memory.ts';
import { HANDOFF_TYPES, type CapacityReport, type CompactionSummary, type ElementReport, type HandoffPackage, type HandoffResult, type PreservedCheck, type SessionEndResult } from '../session.ts';
import type { AssembledPacket, PacketListItem, ReplayDiff } from '../packet.ts';
import type { ApiMethod } from './methods.ts';
import type { ModelDownloadProgress } from './events.ts';

const empty = z.object({}).strict();
const nonEmpty = (field: string, max = 10_000) => z.string().trim().min(1, `${field} is required`).max(max, capError(field, max));
const capped = (field: string, cap: number) => z.string().max(cap, capError(field, cap));
/** Memory content: an object whose JSON form is at most MEMORY_CONTENT_MAX characters. */
const memoryContentSchema = z.record(z.string(), z.unknown()).superRefine((v, ctx) => {
  const size = JSON.stringify(v).length;
  if (size > MEMORY_CONTENT_MAX) ctx.addIssue({ code: 'custom', message: overCap('content', MEMORY_CONTENT_MAX, size, 'characters of JSON') });
});

/** The engine compares these with file modification times; what it cannot read as a date is refused here, by field. */
const filterDate = (field: string) =>
  z.string().refine((v) => filterDateMs(v) !== null, `${field} must be a date, e.g. 2026-01-31 or 2026-01-31T12:00:00Z`);

const globSchema = z
  .string()
  .trim()
  .min(1, 'a glob is empty')
  .max(GLOB_MAX)
  .refine((g) => !/[\r\n\0]/.test(g), 'a glob is one line')
  .superRefine((g, ctx) => {
    const error = globError(g);
    if (error) ctx.addIssue({ code: 'custom', message: error });
  });

export const searchFiltersSchema = z
  .object({
    pathGlob: z.string().max(1000).optional(),
    include: z.array(globSchema).max(100).optional(),
    exclude: z.array(globSchema).max(100).optional(),
    types: z.array(z.enum(SOURCE_TYPES)).optional(),
    modifiedAfter: filterDate('modifiedAfter').optional(),
    modifiedBefore: filterDate('modifiedBefore').optional(),
  })
  .strict();

/** A tool as the tools file has it (001's tool manifest); description and purpose are one field. */
export const packetToolSchema = z
  .object({
    name: z.string().trim().min(1, 'tool name is required').max(200).refine((v) => !/[\r\n]/.test(v), 'tool name must be one line'),
    description: z.string().max(5000).optional(),
    purpose: z.string().max(5000).optional(),
    input_schema: z.record(z.string(), z.unknown()).optional(),
    capability_class: z.enum(['observe', 'recall', 'think_support', 'verify', 'act']).optional(),
    risk_level: z.enum(['read_safe', 'read_sensitive', 'write_reversible', 'write_external', 'write_irreversible']).optional(),
    approval_mode: z.enum(['read_only', 'local_write', 'network', 'delegated', 'destructive']).optional(),
  })
  .strict()
  .refine((t) => t.description !== undefined || t.purpose !== undefined, { message: 'tool description is required', path: ['description'] });

/** A conversation turn as the JSONL file has it: content (or text). */
export const conversationTurnSchema = z
  .object({ role: z.enum(['user', 'assistant']), content: z.string().max(200_000).optional(), text: z.string().max(200_000).optional(), ts: z.string().max(40).optional() })
  .strict()
  .refine((t) => t.content !== undefined || t.text !== undefined, { message: 'turn content is required', path: ['content'] });

/** A path inside an uploaded folder: relative, forward slashes, no `..`, so it can only land under the imports folder. */
export const relativePathSchema = z
  .string()
  .min(1, 'path is empty')
  .max(1024)
  .refine((p) => !p.startsWith('/') && !/^[a-zA-Z]:/.test(p) && !p.includes('\\') && !p.includes('\0'), 'path must be relative, with forward slashes')
  .refine((p) => p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..'), 'path must not contain empty, "." or ".." segments');

export const decisionAlternativeSchema = z.object({ name: nonEmpty('alternatives_considered.name', 200), reason: nonEmpty('alternatives_considered.reason', 2000) }).strict();

/** The decision template as a form: the fields the seed marks required, with messages a person can act on. */
/** A decision's required text, worded as the engine's validation words it (`title: is required`) at every door. */
const required = (field: string, max: number) => z.string({ error: 'is required' }).trim().min(1, 'is required').max(max, capError(field, max));
const decisionImportanceSchema = z.number({ error: (i) => (i.input === undefined ? 'is required (1–10)' : 'must be an integer from 1 to 10') }).int('must be an integer from 1 to 10').min(1, 'must be an integer from 1 to 10').max(10, 'must be an integer from 1 to 10');

export const decisionInputSchema = z
  .object({
    title: required('title', TITLE_MAX),
    decision: required('decision', DECISION_FIELD_MAX),
    rationale: required('rationale', DECISION_FIELD_MAX),
    alternatives_considered: z.array(decisionAlternativeSchema).max(20).optional(),
    expected_impact: capped('expected_impact', DECISION_FIELD_MAX).optional(),
    validation_criteria: capped('validation_criteria', DECISION_FIELD_MAX).optional(),
    context: capped('context', DECISION_FIELD_MAX).optional(),
    tags: z.array(z.string().trim().min(1).max(TAG_MAX)).max(20).optional(),
    importance: decisionImportanceSchema,
    supersedes: z.string().regex(DECISION_ID_PATTERN, 'supersedes must be a decision id like DEC-2026-01-31-001').optional(),
    agent: z.string().trim().min(1).max(100).optional().describe('Who decided (agent_id); default user.'),
    project: z.string().trim().min(1).max(200).optional().describe('The project the decision belongs to (project_id).'),
    timestamp: z.string().max(40).optional().describe('When it was decided (ISO 8601); default now. Its date is the DEC id\'s.'),
  })
  .strict();

// An id in the Hugging Face layout (owner/name); the engine checks it is one it knows.
const modelIdSchema = z.string().regex(/^[A-Za-z0-9][\w.-]*\/[\w.-]+$/, 'modelId must look like owner/name, e.g. Xenova/all-MiniLM-L6-v2');

// The same rule as core/projects/layout.ts (the renderer cannot import main code).
const projectNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'name must be letters, digits, ".", "_" or "-" (at most 64, starting with a letter or digit)');

/** A stored snapshot by its hash or a unique prefix (`contextpack replay 3f2a9c`); an ambiguous prefix is refused. */
const hashRefSchema = z
  .string()
  .trim()
  .regex(/^(sha256:)?[0-9a-fA-F]{4,64}$/, 'hash must be a context_snapshot_hash (64 hex digits) or a unique prefix of at least 4')
  .describe('A context_snapshot_hash, or a unique prefix of at least 4 hex digits.');

/** A transcript handed over as text (the browser reads the dropped file): the name is only provenance. */
const transcriptSchema = z.object({ name: z.string().trim().min(1).max(TRANSCRIPT_NAME_MAX, capError('transcript name', TRANSCRIPT_NAME_MAX)), text: z.string().min(1, 'the transcript is empty').max(TRANSCRIPT_MAX, capError('transcript', TRANSCRIPT_MAX)) }).strict();
const agentSchema = z.string().trim().min(1).max(100).regex(/^[^\r\n]+$/, 'agent must be one line');
const memoryIdSchema = z.string().trim().min(1, 'id is required').max(200);
const tagsSchema = z.array(z.string().trim().min(1).max(TAG_MAX)).max(20);
const importanceSchema = z.number().int('importance must be a whole number').min(1, 'importance must be at least 1').max(10, 'importance must be at most 10');
const encodingSchema = z.enum(['o200k_base', 'cl100k_base']);
const projectIdSchema = z.string().trim().min(1).max(200);
const windowSchema = z.number().int('window must be a whole number').min(1, 'window must be at least 1').max(10_000_000);

/** How files are read, for an ingest or a rescan (`contextpack ingest --max-file-mb / --follow-symlinks`). */
const ingestOptionShape = {
  maxFileMb: z.number().int('maxFileMb must be a whole number').min(1, 'maxFileMb must be at least 1').max(1024).optional().describe('Files larger than this many MB are skipped by name; default 20.'),
  followSymlinks: z.boolean().optional().describe('Follow symbolic links (still never outside the root); default false.'),
};

export const apiInputs = {
  'app.info': empty,
  'stats.get': empty,
  'sources.list': empty,
  'library.ingest': z.object({ paths: z.array(z.string().min(1).max(4096)).min(1, 'give at least one path').max(1000), ...ingestOptionShape }).strict(),
  'library.import': z
    .object({
      // A file over the upload limit is skipped by name (not refused with the request); this cap only bounds a request.
      files: z
        .array(z.object({ path: relativePathSchema, base64: z.string().max(64 * 1024 * 1024) }).strict())
        .max(5000),
      /** A folder sent in batches: the same id on every request, `final` on the last (which swaps in and ingests). */
      batch: z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'batch.id must be 8–64 letters, digits, _ or -'), final: z.boolean() }).strict().optional(),
      /** Files the browser left out (over the limit), reported by name with the import. */
      skipped: z.array(z.object({ path: z.string().max(1024), reason: z.string().max(500) }).strict()).max(100_000).optional(),
    })
    .strict()
    .refine((v) => v.files.length > 0 || v.batch !== undefined || (v.skipped?.length ?? 0) > 0, { message: 'give at least one file', path: ['files'] }),
  'sources.remove': z.object({ id: z.number().int().positive() }).strict(),
  'sources.reindex': z.object({ id: z.number().int().positive() }).strict(),
  'sources.chunks': z.object({ path: z.string().min(1).max(4096) }).strict(),
  'settings.get': empty,
  'settings.set': z.object({ evidenceExclude: z.array(globSchema).max(100).optional() }).strict(),
  'library.rescan': z.object(ingestOptionShape).strict(),
  /** Re-index the project's roots (no paths), or files and folders under them: relative to a root, or absolute inside one. */
  // Embeds the chunks that lack a vector (resumable); a modelId becomes the configured model first, and its vectors
  // replace the old ones once they cover every chunk.
  'library.embed': z.object({ modelId: modelIdSchema.optional(), batch: z.number().int('batch must be a whole number').min(1, 'batch must be at least 1').max(100_000).optional() }).strict(),
  'library.refresh': z.object({ paths: z.array(z.string().trim().min(1, 'a path is empty').max(4096)).max(1000).optional() }).strict(),
  'search.query': z
    .object({
      query: z.string().trim().min(1, 'query is empty').max(QUERY_MAX, capError('query', QUERY_MAX)),
      k: z.number().int().min(1).max(200).optional(),
      /** Absent or 'best': hybrid when every chunk has a vector and the model is here, else bm25 (the reason comes back). */
      mode: z.enum(['best', 'bm25', 'vector', 'hybrid']).optional(),
      mmrLambda: z.number().min(0).max(1).optional(),
      filters: searchFiltersSchema.optional(),
    })
    .strict(),
  'chunks.context': z.object({ chunkId: z.number().int().positive(), radius: z.number().int().min(0).max(20).optional() }).strict(),
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
  'packets.build': z
    .object({
      query: z.string().trim().min(1, 'query is required').max(QUERY_MAX, capError('query', QUERY_MAX)),
      task: capped('task', TASK_MAX).optional(),
      template: z.enum(['ao-v1', 'layered-v1']).optional(),
      maxTokens: z
        .number({ error: 'token budget must be a number' })
        .int('token budget must be a whole number')
        .min(MIN_MAX_TOKENS, `token budget must be at least ${MIN_MAX_TOKENS}`)
        .max(MAX_MAX_TOKENS, `token budget must be at most ${MAX_MAX_TOKENS}`)
        .optional(),
      /** Evidence hits fetched (the engine's range: 0 leaves evidence out). */
      k: z.number().int('k must be a whole number').min(0, 'k must be at least 0').max(100_000, 'k must be at most 100000').optional(),
      filters: searchFiltersSchema.optional(),
      useDefaultExcludes: z.boolean().optional(),
      /** The tokenizer budgets are counted with (`pack --encoding`). */
      encoding: z.enum(['o200k_base', 'cl100k_base']).optional(),
      // Issue #17: the same fields as `pack --format / --profile / --session / --tools-file / --conversation-file`.
      /** The rendering of `text` (md by default); the stored snapshot and its hash do not depend on it. */
      format: z.enum(['md', 'json', 'contextos']).optional(),
      profile: z.enum(['research', 'docs', 'tests']).optional(),
      sessionId: z.string().trim().min(1, 'session id is empty').max(200).optional(),
      tools: z.array(packetToolSchema).max(200).optional(),
      conversation: z.array(conversationTurnSchema).max(2000).optional(),
      keepTurns: z.number().int().min(0).max(1000).optional(),
    })
    .strict(),
  'packets.list': z.object({ limit: z.number().int().min(1).max(1000).optional() }).strict(),
  'packets.get': z
    .object({
      hash: hashRefSchema,
      format: z.enum(['md', 'json', 'contextos']).optional().describe('The rendering of `text`; default md.'),
      raw: z.boolean().optional().describe('Also answer `stored`: the exact stored bytes (canonical JSON), which hash to the id.'),
    })
    .strict(),
  'packets.replay': z.object({ hash: hashRefSchema }).strict(),
  'models.list': empty,
  'models.download': z.object({ modelId: modelIdSchema, allowUnverified: z.boolean().optional() }).strict(),
  'models.cancel': z.object({ modelId: modelIdSchema }).strict(),
  'models.use': z.object({ modelId: modelIdSchema }).strict(),
  'projects.list': empty,
  'projects.create': z.object({ name: projectNameSchema }).strict(),
  'projects.switch': z.object({ name: projectNameSchema }).strict(),
  'projects.rename': z.object({ name: projectNameSchema, newName: projectNameSchema }).strict(),
  'projects.delete': z.object({ name: projectNameSchema }).strict(),
  'roots.list': empty,
  'roots.setWatch': z.object({ rootId: z.number().int().positive(), watch: z.boolean() }).strict(),
  'watch.status': empty,
  'desktop.pickPaths': z.object({ kind: z.enum(['files', 'folders']) }).strict(),
  'desktop.copyText': z.object({ text: z.string().max(10 * 1024 * 1024) }).strict(),
  'sessions.capacity': z
    .object({
      tokens: z.number().int().min(0).optional(),
      window: windowSchema.optional(),
      transcript: transcriptSchema.optional(),
      encoding: encodingSchema.optional().describe("The tokenizer a transcript's turns are counted with; default o200k_base."),
    })
    .strict()
    .refine((v) => (v.tokens === undefined) !== (v.transcript === undefined), { message: 'give tokens or a transcript', path: ['tokens'] }),
  'sessions.analyze': z
    .object({
      transcript: transcriptSchema,
      window: windowSchema.optional(),
      targetReduction: z.number().min(0).max(0.95).optional(),
      targetTokens: z.number().int().min(1).optional().describe('Compact to about this many tokens (targetReduction wins when both are given); default: the seed\'s target for the size.'),
    })
    .strict(),
  'sessions.handoff': z
    .object({
      type: z.enum(HANDOFF_TYPES as unknown as [string, ...string[]]),
      transcript: transcriptSchema.optional(),
      from: agentSchema.optional(),
      to: agentSchema.optional(),
      reason: z.string().trim().max(2000).optional(),
      maxTokens: z.number().int().min(100, 'token budget must be at least 100').max(MAX_MAX_TOKENS).optional(),
      save: z.boolean().optional(),
      format: z.enum(['md', 'json']).optional(),
      sections: z.array(z.string().trim().min(1).max(300)).max(100).optional().describe('Hierarchy sections to hand over (e.g. §2.1); default every section the sender owns.'),
      encoding: encodingSchema.optional().describe('The tokenizer the budget is counted with; default o200k_base.'),
    })
    .strict(),
  'sessions.handoffGet': z
    .object({ hash: hashRefSchema, raw: z.boolean().optional().describe('Also answer `stored`: the exact stored bytes, which hash to the id.') })
    .strict(),
  'sessions.end': z
    .object({
      notes: z.string().min(1).max(NOTES_MAX, capError('notes', NOTES_MAX)).optional(),
      notesName: z.string().trim().min(1).max(1024).optional().describe("Where the notes came from (a file name), kept as the session's source; default notes."),
      transcript: transcriptSchema.optional(),
      agent: agentSchema.optional(),
    })
    .strict()
    .refine((v) => (v.notes === undefined) !== (v.transcript === undefined), { message: 'give notes or a transcript', path: ['notes'] }),
  'sessions.list': z.object({ limit: z.number().int().min(1).max(1000).optional() }).strict(),
  'sessions.captures': z.object({ limit: z.number().int().min(1).max(1000).optional(), window: windowSchema.optional() }).strict(),
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
  'redact.text': z
    .object({
      text: z.string().max(64 * 1024 * 1024),
      source: z.string().trim().min(1).max(1024).optional().describe('The name the redactions are reported under (a file name); default text.'),
      patterns: z
        .array(
          z
            .object({
              id: z.string().trim().min(1).max(100),
              type: z.string().trim().min(1).max(100).describe('The <type> of the [REDACTED: <type>] marker.'),
              pattern: z.string().min(1).max(2000).describe('An RE2 regular expression; one RE2 cannot compile is refused.'),
            })
            .strict(),
        )
        .max(100)
        .optional()
        .describe('Extra patterns, beside the built-in rules.'),
    })
    .strict(),
} satisfies Record<ApiMethod, z.ZodType>;

export interface Capability {
  available: boolean;
  /** Why it is off, in words for the user ("packet engine not built yet (#5)"). */
  reason?: string;
}

export type CapabilityName = 'vector' | 'decisions' | 'hierarchy' | 'packets';

/** What opening the store found: a new file, a quick_check run or skipped (unchanged file), in memory, or damaged (read-only). */
export type StoreIntegrity = 'new' | 'ran' | 'unchanged' | 'memory' | 'damaged';

export interface AppInfo {
  version: string;
  transport: 'ipc' | 'http' | 'mcp' | 'cli';
  dataDir: string;
  dbPath: string;
  capabilities: Record<CapabilityName, Capability>;
}

export interface SearchResponse {
  mode: SearchMode;
  hits: SearchHit[];
  /** How the hits were ranked: fusion and MMR settings, and why hybrid was not used when it was asked for or best. */
  retrieval?: RetrievalRanking & { fallback_reason: string | null };
}

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

export interface ChunkView {
  chunkId: number;
  ordinal: number;
  headingPath: string;
  anchor: string;
  lineStart: number;
  lineEnd: number;
  text: string;
  /** The chunk's text and labels after the redaction gate (shown by default; issue #10). */
  gated?: GatedFields;
}

export interface ChunkContext {
  path: string;
  title: string;
  /** `path` and `title` after the redaction gate. */
  gatedPath?: string;
  gatedTitle?: string;
  documentId: number;
  focus: number;
  chunks: ChunkView[];
}

export interface ImportReport extends IngestReport {
  /** The managed folder the uploaded files were written to. */
  folder: string;
  /** A non-final batch: how many of its files were staged (nothing is indexed until the final batch). */
  staged?: number;
}

/** What a refresh changed, every path as the index cites it (root-relative; never absolute). */
export interface RefreshReport {
  /** The project's roots, by name. */
  roots: string[];
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: number;
  skipped: { path: string; reason: string }[];
  failed: { path: string; reason: string }[];
  files: number;
  chunks: number;
  durationMs: number;
}

/** One embedding run (library.embed): what it embedded, coverage of the model's space, and whether searches use it. */
export interface EmbedReport {
  spaceId: number;
  modelId: string;
  fingerprint: string;
  dims: number;
  chunkerVersion: number;
  embedded: number;
  done: number;
  total: number;
  /** Chunks of other chunker versions still in the store (a rescan re-chunks them); they block the swap. */
  otherVersion: number;
  /** True when this space is the one searches use after the run. */
  active: boolean;
  /** True when this run made it active (and dropped the spaces it replaced). */
  swapped: boolean;
  dropped: number[];
  /** Stopped before the end (interrupted); a later run resumes. */
  aborted: boolean;
  durationMs: number;
}

export interface RemovedSource {
  id: number;
  path: string;
  chunks: number;
  /** An uploaded file is deleted from the imports folder too (a rescan would bring it back otherwise). */
  deletedFile: boolean;
}

export interface ProjectSettingsView {
  /** Globs left out of packet evidence by default (manifest: retrieval.filters.excludeDefault). */
  evidenceExclude: string[];
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

/** An assembled or stored packet as JSON: the snapshot bytes are left out (the hash names them). */
export type PacketView = Omit<AssembledPacket, 'bytes'>;

export interface ModelEntry {
  id: string;
  dims: number;
  /** Installed in one of the model folders (the first that has it). */
  installed: boolean;
  dir?: string;
  /** Bytes of the installed folder. */
  sizeBytes?: number;
  /** Installed from files that had no digest to check, because the user accepted that. */
  unverified?: boolean;
  /** A download in progress (or the last one's end state, until the next list after it). */
  download?: ModelDownloadProgress;
}

export interface ModelsView {
  /** The model new vectors are made with (`contextpack embed --model`, or the Models panel). */
  configured: string;
  semantic: { on: boolean; reason?: string; active?: { modelId: string; dims: number; vectors: number; chunks: number } };
  /** Where downloads go (the user-data models folder); null where this window cannot download. */
  downloadDir: string | null;
  baseUrl: string;
  models: ModelEntry[];
}

/** A transcript as the method read it: the lines it skipped come back, so a caller can say so without parsing it again. */
export interface TranscriptRead {
  name: string;
  format: string;
  turns: number;
  problems: { line: number; message: string }[];
}

/** A dropped transcript, measured and compacted (the Sessions view). */
export interface SessionAnalysis {
  name: string;
  format: string;
  session_id: string | null;
  turns: number;
  problems: { line: number; message: string }[];
  redactions: number;
  capacity: CapacityReport;
  compaction: CompactionSummary;
  reduction: number;
  target_tokens: number | null;
  preserved: PreservedCheck[];
  elements: ElementReport[];
  text: string;
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

export interface StoredSessionView {
  id: string;
  agent_id: string;
  started_at: string | null;
  ended_at: string;
  source: string;
  headline: string;
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

/** What the redaction gate masked in one text; the secrets themselves are never in it. */
export interface RedactionReportView {
  source: string;
  totalLines: number;
  redactedLines: number;
  byType: Record<string, { count: number; lines: number[] }>;
  redactions: { ts: string; pattern: string; type: string; source: string; line: number; section: string }[];
  text: string;
}

export interface ApiOutputs {
  'app.info': AppInfo;
  'stats.get': StoreStats & { integrity: StoreIntegrity };
  'sources.list': SourceRecord[];
  'library.ingest': IngestReport;
  'library.import': ImportReport;
  'library.rescan': IngestReport;
  'library.refresh': RefreshReport;
  'library.embed': EmbedReport;
  'sources.remove': RemovedSource;
  'sources.reindex': IngestReport;
  'sources.chunks': ChunkContext;
  'settings.get': ProjectSettingsView;
  'settings.set': ProjectSettingsView;
  'search.query': SearchResponse;
  'chunks.context': ChunkContext;
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
  'packets.build': PacketView;
  'packets.list': PacketListItem[];
  'packets.get': PacketView & { stored?: string };
  'packets.replay': ReplayDiff;
  'models.list': ModelsView;
  'models.download': { started: boolean };
  'models.cancel': { cancelled: boolean };
  'models.use': { configured: string };
  'projects.list': ProjectsView;
  'projects.create': ProjectInfo;
  'projects.switch': { current: string };
  'projects.rename': ProjectInfo;
  'projects.delete': { deleted: string };
  'roots.list': RootRecord[];
  'roots.setWatch': RootRecord;
  'watch.status': WatchStatus;
  'desktop.pickPaths': string[];
  'desktop.copyText': { copied: number };
  'sessions.capacity': CapacityReport & { transcript?: TranscriptRead };
  'sessions.analyze': SessionAnalysis;
  'sessions.handoff': HandoffResult & { transcript?: TranscriptRead };
  'sessions.handoffGet': { hash: string; package: HandoffPackage; text: string; stored?: string };
  'sessions.end': SessionEndResult & { transcript?: TranscriptRead };
  'sessions.list': StoredSessionView[];
  'sessions.captures': CapturedSession[];
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
  'redact.text': RedactionReportView;
  'hierarchy.addSection': HierarchySection;
  'hierarchy.editSection': HierarchySection;
  'hierarchy.own': { ownership: OwnershipView | null };
  'hierarchy.owners': { owners: OwnershipView[]; audit: OwnershipAuditView[] };
  'hierarchy.draft': SectionDraft;
  'hierarchy.hints': { change: ChangeType; hints: PropagationHint[] };
}

export type ApiInput<M extends ApiMethod> = z.input<(typeof apiInputs)[M]>;
export type ApiParsedInput<M extends ApiMethod> = z.output<(typeof apiInputs)[M]>;
export type ApiOutput<M extends ApiMethod> = ApiOutputs[M];

/** `tampered`: a stored snapshot's bytes no longer hash to its id; it is refused, never served. */
export type ApiErrorCode = 'invalid_input' | 'unknown_method' | 'unavailable' | 'not_found' | 'busy' | 'failed' | 'forbidden' | 'conflict' | 'tampered';

export interface ApiError {
  code: ApiErrorCode;
  message: string;
  /** Per-field problems (invalid_input), for forms to show next to the field. */
  issues?: FieldIssue[];
}

/** Both transports carry this envelope, so structured errors survive IPC (which would keep only a message). */
export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: ApiError };
