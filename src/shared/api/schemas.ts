// The building blocks of the API's input schemas, shared by every capability's contract file.
import { z } from 'zod';
import { filterDateMs } from '../filters.ts';
import { GLOB_MAX, globError } from '../globs.ts';
import { DECISION_FIELD_MAX, DECISION_ID_PATTERN, MEMORY_CONTENT_MAX, capError, overCap, TAG_MAX, TITLE_MAX, TRANSCRIPT_MAX, TRANSCRIPT_NAME_MAX } from '../limits.ts';
import { SOURCE_TYPES } from '../types.ts';

export const empty = z.object({}).strict();
export const nonEmpty = (field: string, max = 10_000) => z.string().trim().min(1, `${field} is required`).max(max, capError(field, max));
export const capped = (field: string, cap: number) => z.string().max(cap, capError(field, cap));
/** Memory content: an object whose JSON form is at most MEMORY_CONTENT_MAX characters. */
export const memoryContentSchema = z.record(z.string(), z.unknown()).superRefine((v, ctx) => {
  const size = JSON.stringify(v).length;
  if (size > MEMORY_CONTENT_MAX) ctx.addIssue({ code: 'custom', message: overCap('content', MEMORY_CONTENT_MAX, size, 'characters of JSON') });
});

/** The engine compares these with file modification times; what it cannot read as a date is refused here, by field. */
export const filterDate = (field: string) =>
  z.string().refine((v) => filterDateMs(v) !== null, `${field} must be a date, e.g. 2026-01-31 or 2026-01-31T12:00:00Z`);

export const globSchema = z
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
export const required = (field: string, max: number) => z.string({ error: 'is required' }).trim().min(1, 'is required').max(max, capError(field, max));
export const decisionImportanceSchema = z.number({ error: (i) => (i.input === undefined ? 'is required (1–10)' : 'must be an integer from 1 to 10') }).int('must be an integer from 1 to 10').min(1, 'must be an integer from 1 to 10').max(10, 'must be an integer from 1 to 10');

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
export const modelIdSchema = z.string().regex(/^[A-Za-z0-9][\w.-]*\/[\w.-]+$/, 'modelId must look like owner/name, e.g. Xenova/all-MiniLM-L6-v2');

// The same rule as core/projects/layout.ts (the renderer cannot import main code).
export const projectNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'name must be letters, digits, ".", "_" or "-" (at most 64, starting with a letter or digit)');

/** A stored snapshot by its hash or a unique prefix (`contextpack replay 3f2a9c`); an ambiguous prefix is refused. */
export const hashRefSchema = z
  .string()
  .trim()
  .regex(/^(sha256:)?[0-9a-fA-F]{4,64}$/, 'hash must be a context_snapshot_hash (64 hex digits) or a unique prefix of at least 4')
  .describe('A context_snapshot_hash, or a unique prefix of at least 4 hex digits.');

/** A transcript handed over as text (the browser reads the dropped file): the name is only provenance. */
export const transcriptSchema = z.object({ name: z.string().trim().min(1).max(TRANSCRIPT_NAME_MAX, capError('transcript name', TRANSCRIPT_NAME_MAX)), text: z.string().min(1, 'the transcript is empty').max(TRANSCRIPT_MAX, capError('transcript', TRANSCRIPT_MAX)) }).strict();
export const agentSchema = z.string().trim().min(1).max(100).regex(/^[^\r\n]+$/, 'agent must be one line');
export const memoryIdSchema = z.string().trim().min(1, 'id is required').max(200);
export const tagsSchema = z.array(z.string().trim().min(1).max(TAG_MAX)).max(20);
export const importanceSchema = z.number().int('importance must be a whole number').min(1, 'importance must be at least 1').max(10, 'importance must be at most 10');
export const encodingSchema = z.enum(['o200k_base', 'cl100k_base']);
export const projectIdSchema = z.string().trim().min(1).max(200);
export const windowSchema = z.number().int('window must be a whole number').min(1, 'window must be at least 1').max(10_000_000);

/** How files are read, for an ingest or a rescan (`contextpack ingest --max-file-mb / --follow-symlinks`). */
export const ingestOptionShape = {
  maxFileMb: z.number().int('maxFileMb must be a whole number').min(1, 'maxFileMb must be at least 1').max(1024).optional().describe('Files larger than this many MB are skipped by name; default 20.'),
  followSymlinks: z.boolean().optional().describe('Follow symbolic links (still never outside the root); default false.'),
};
