// The MCP tools: each one a zod input schema (snake_case, as agents expect), a description an agent can act on, and
// a mapping onto one API method (tool-api.ts). Nothing here touches the store: every call goes through the API's
// dispatcher, so MCP is a third transport beside IPC and HTTP, with the same validation and the same engine.
// An argument that means what its API field means is that field's own schema (`api.…`), described for an agent, so
// its rules reach the tool unchanged; the others differ on purpose (snake_case errors such as `max_tokens must be…`,
// tighter caps, a full hash only, typed memory content) and tool-api.test.ts keeps them within the API's.
import { z } from 'zod';
import { apiInputs as api, searchFiltersSchema } from '../../shared/api/index.ts';
import { capError, MAX_MAX_TOKENS, MEMORY_CONTENT_MAX, MIN_MAX_TOKENS, QUERY_MAX, TAG_MAX, TITLE_MAX, TRANSCRIPT_MAX, TRANSCRIPT_NAME_MAX } from '../../shared/limits.ts';
import { SOURCE_TYPES } from '../../shared/types.ts';
import { filterDateMs } from '../../shared/filters.ts';
import { GLOB_MAX } from '../../shared/globs.ts';
import type { MemoryType } from '../../shared/memory.ts';
import { CONTENT_SPECS, isRequiredField, type FieldSpec } from '../core/memory/validate.ts';

const hash = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'hash must be the 64 lowercase hex digits of a context_snapshot_hash')
  .describe('context_snapshot_hash of a stored packet (64 hex digits), as returned by pack');

const glob = z.string().trim().min(1, 'a glob is empty').max(GLOB_MAX, `a glob is at most ${GLOB_MAX} characters`);
const date = (field: string) =>
  z.string().refine((v) => filterDateMs(v) !== null, `${field} must be a date, e.g. 2026-01-31 or 2026-01-31T12:00:00Z`);

const include = z.array(glob).max(100).optional().describe('globs over paths relative to their root; a hit must match one, e.g. ["docs/**", "src/**/*.ts"]');
const exclude = z.array(glob).max(100).optional().describe('globs over paths relative to their root that no hit may match, e.g. ["test/**"]');
const types = searchFiltersSchema.shape.types.describe(`source types to keep: ${SOURCE_TYPES.join(', ')}`);

const searchFilters = z
  .object({
    include,
    exclude,
    path_glob: z.string().max(1000).optional().describe('SQLite GLOB over the absolute source path, e.g. "*/docs/*.md"'),
    types,
    modified_after: date('filters.modified_after').optional().describe('ISO date: only files modified at or after it'),
    modified_before: date('filters.modified_before').optional().describe('ISO date: only files modified before it'),
  })
  .strict()
  .describe('narrow the hits; every filter given must hold');

/** The same as `contextpack pack --path / --exclude / --type`. */
const packFilters = z.object({ include, exclude, types }).strict().describe('narrow the evidence; every filter given must hold (as `contextpack pack --path/--exclude/--type`)');

const tag = z.string().min(1).max(TAG_MAX, `a tag is at most ${TAG_MAX} characters`);

function fieldSchema(spec: FieldSpec): z.ZodType {
  switch (spec.kind) {
    case 'text':
      return z.string();
    case 'list':
      return z.array(z.string());
    case 'int':
      return z.number().int().min(spec.min).max(spec.max);
    case 'enum':
      return z.enum(spec.values as [string, ...string[]]);
    case 'alternatives':
      return z.array(z.object({ name: z.string().describe('the option'), reason: z.string().describe('why it was not chosen') }).strict());
  }
}

/**
 * Every content field of every memory type, typed and described from the validator's own table, so the schema an
 * agent reads cannot drift from what `remember` accepts. A field two types share with different shapes takes either.
 */
function contentFields(): Record<string, { schema: z.ZodType; kinds: Set<string>; usedBy: string[] }> {
  const out: Record<string, { schema: z.ZodType; kinds: Set<string>; usedBy: string[] }> = {};
  for (const [type, specs] of Object.entries(CONTENT_SPECS) as [MemoryType, Record<string, FieldSpec>][]) {
    for (const [field, spec] of Object.entries(specs)) {
      const required = isRequiredField(field, spec);
      const entry = (out[field] ??= { schema: fieldSchema(spec), kinds: new Set(), usedBy: [] });
      if (!entry.kinds.has(spec.kind)) {
        if (entry.kinds.size > 0) entry.schema = z.union([entry.schema, fieldSchema(spec)]);
        entry.kinds.add(spec.kind);
      }
      entry.usedBy.push(`${type}${required ? ' (required)' : ''}`);
    }
  }
  return out;
}

const CONTENT_FIELDS = contentFields();

/** The main field of each memory type: the one plain-text content fills. */
export const MAIN_FIELD: Record<MemoryType, string> = { decision: 'decision', issue: 'description', state: 'task_description', learning: 'lesson' };
const requiredOf = (type: MemoryType): string[] => Object.entries(CONTENT_SPECS[type] as Record<string, FieldSpec>).filter(([f, spec]) => isRequiredField(f, spec)).map(([f]) => f);
const TYPES = Object.keys(CONTENT_SPECS) as MemoryType[];
/** Read from the validator's table, as the fields are: `decision needs decision and rationale; issue needs …`. */
const REQUIRED_CONTENT = TYPES.map((t) => `${t} needs ${requiredOf(t).join(' and ')}`).join('; ');
/** Plain text fills the main field only, so it is enough for the types that require nothing else. */
const PLAIN_TEXT_TYPES = TYPES.filter((t) => requiredOf(t).every((f) => f === MAIN_FIELD[t]));
const CONTENT_DESCRIPTION =
  `the typed fields, or plain text for the main field of ${PLAIN_TEXT_TYPES.map((t) => `a ${t} (${MAIN_FIELD[t]})`).join(' or ')}. ` +
  `${REQUIRED_CONTENT}`;
const LIST_FIELDS = Object.keys(CONTENT_FIELDS).filter((f) => CONTENT_FIELDS[f]!.kinds.has('list'));

const contentObject = z
  .object(Object.fromEntries(Object.entries(CONTENT_FIELDS).map(([f, e]) => [f, e.schema.optional().describe(e.usedBy.join(', '))])))
  .strict()
  .describe('the typed fields of the memory (each says which types use it)');

const setObject = z
  .object({
    ...Object.fromEntries(Object.entries(CONTENT_FIELDS).map(([f, e]) => [f, e.schema.optional().describe(`replaces it (${e.usedBy.map((u) => u.replace(' (required)', '')).join(', ')})`)])),
    ...Object.fromEntries(LIST_FIELDS.map((f) => [`${f}[]`, z.string().min(1).optional().describe(`appends one entry to ${f}`)])),
  })
  .strict()
  .describe('content fields to change, e.g. {"next_actions": "..."}; a key ending in [] appends to a list field, e.g. {"attempted_fixes[]": "retry guard"}');

export const TOOL_INPUTS = {
  search: z
    .object({
      query: z.string().min(1, 'query is required').max(QUERY_MAX, capError('query', QUERY_MAX)).describe('what to look for, in words'),
      k: z.number().int('k must be a whole number').min(1, 'k must be at least 1').max(100, 'k must be at most 100').optional().describe('number of hits (default 10)'),
      mode: api['search.query'].shape.mode.describe('best (default): hybrid when every chunk has a vector and the model is installed, else bm25'),
      filters: searchFilters.optional(),
    })
    .strict(),
  pack: z
    .object({
      query: z.string().min(1, 'query is required').max(QUERY_MAX, capError('query', QUERY_MAX)).describe('what the evidence should be about'),
      task: api['packets.build'].shape.task.describe('the task and its acceptance criteria ("- [ ] ..." lines)'),
      template: api['packets.build'].shape.template.describe('ao-v1 (default: GOALS, HISTORY, INTEL, TASK, PROTOCOL) or layered-v1'),
      max_tokens: z
        .number()
        .int('max_tokens must be a whole number')
        .min(MIN_MAX_TOKENS, `max_tokens must be at least ${MIN_MAX_TOKENS}`)
        .max(MAX_MAX_TOKENS, `max_tokens must be at most ${MAX_MAX_TOKENS}`)
        .optional()
        .describe('token budget of the packet (default 7000)'),
      format: api['packets.build'].shape.format.describe('md (default), json (with the manifest) or contextos'),
      filters: packFilters.optional(),
      default_excludes: api['packets.build'].shape.useDefaultExcludes.describe("apply the project's default evidence excludes (default true; false is `contextpack pack --no-default-excludes`)"),
    })
    .strict(),
  get_packet: z.object({ hash }).strict(),
  replay: z.object({ hash }).strict(),
  remember: z
    .object({
      type: api['memory.create'].shape.type.describe('kind of memory'),
      title: z.string().min(1, 'title is required').max(TITLE_MAX, `title must be at most ${TITLE_MAX} characters`).describe('one line'),
      content: z
        .union([z.string().min(1, 'content is empty').max(MEMORY_CONTENT_MAX, capError('content', MEMORY_CONTENT_MAX)), contentObject])
        .describe(CONTENT_DESCRIPTION),
      tags: z.array(tag).max(20).optional().describe('labels to find it by, e.g. ["security"]'),
      importance: api['memory.create'].shape.importance.describe('1-10 (required for decisions)'),
    })
    .strict(),
  rehydrate: z
    .object({
      max_tokens: z.number().int('max_tokens must be a whole number').min(500, 'max_tokens must be at least 500').max(200_000, 'max_tokens must be at most 200000').optional().describe('token budget (default 25000)'),
    })
    .strict(),
  hierarchy: z
    .object({
      marker: api['hierarchy.show'].shape.marker.describe('a § section such as §1.0, §2.1, §3.1.2 or §4.src/auth.ts; none: the navigation index'),
    })
    .strict(),
  stats: z.object({}).strict(),
  ingest: z
    .object({
      paths: api['library.refresh'].shape.paths.describe("files or folders you changed, relative to a project root (as search cites them) or absolute inside one; none: re-walk every root. Paths outside the project's roots are refused"),
    })
    .strict(),
  // Seed 002's session workflow (#13, #17): memory edits, capacity, handoffs, session summaries.
  update_memory: z
    .object({
      id: api['memory.update'].shape.id.describe('memory id, or a decision id such as DEC-2026-01-31-001'),
      title: z.string().min(1).max(TITLE_MAX, `title must be at most ${TITLE_MAX} characters`).optional().describe('a new title (one line)'),
      importance: api['memory.update'].shape.importance.describe('a new importance, 1-10 (the lifecycle rules may archive an old decision lowered to 5 or less)'),
      tags: z.array(tag).max(20).optional().describe('replaces the tags'),
      set: setObject.optional(),
    })
    .strict(),
  resolve_issue: z
    .object({
      id: api['memory.resolve'].shape.id.describe('memory id of an issue'),
      resolution: api['memory.resolve'].shape.resolution.describe('how it was resolved (appended to its investigation status)'),
    })
    .strict(),
  capacity: z
    .object({
      tokens: z.number().int('tokens must be a whole number').min(0, 'tokens must be at least 0').describe('tokens currently in your context'),
      window: api['sessions.capacity'].shape.window.describe('your context window in tokens (default 200000)'),
    })
    .strict(),
  handoff: z
    .object({
      type: api['sessions.handoff'].shape.type.describe('complete (25k tokens), specialist (10k), continuation (40k) or emergency (15k)'),
      transcript: z.string().min(1).max(TRANSCRIPT_MAX, capError('transcript', TRANSCRIPT_MAX)).optional().describe('your session transcript (Claude Code JSONL or JSON array, Codex rollout, pi session, Cline api_conversation_history.json, Aider chat history, or a Markdown chat export); without it the package comes from project memory'),
      transcript_name: z.string().min(1).max(TRANSCRIPT_NAME_MAX, capError('transcript_name', TRANSCRIPT_NAME_MAX)).optional().describe('a name for the transcript, shown as provenance'),
      from: api['sessions.handoff'].shape.from.describe('your agent id'),
      to: api['sessions.handoff'].shape.to.describe('the receiving agent id'),
      reason: api['sessions.handoff'].shape.reason.describe('why you hand off, e.g. "context window at 90 %"'),
      max_tokens: z.number().int('max_tokens must be a whole number').min(100).max(MAX_MAX_TOKENS).optional().describe("lower than the type's budget to tighten it"),
      save: api['sessions.handoff'].shape.save.describe('also save the decisions, open issues and lessons found as memories (deduplicated)'),
    })
    .strict(),
  end_session: z
    .object({
      notes: api['sessions.end'].shape.notes.describe('session notes with Done: / DECISION: / BUG-… / TODO: / Lesson: lines'),
      transcript: z.string().min(1).max(TRANSCRIPT_MAX, capError('transcript', TRANSCRIPT_MAX)).optional().describe('or the session transcript'),
      agent: api['sessions.end'].shape.agent.describe('your agent id'),
    })
    .strict(),
} as const;

export type ToolName = keyof typeof TOOL_INPUTS;

export const TOOL_DESCRIPTIONS: Record<ToolName, string> = {
  search:
    "Search the project's indexed files (docs, code, notes) and get ranked chunks, each cited as path#anchor:lines with a score and a snippet. " +
    'Use it to find where something is written before opening files; follow up with pack for a bounded, redacted context packet. ' +
    'Secrets in the results are replaced by [REDACTED: type] markers.',
  pack:
    'Assemble a context packet for a query (and optionally a task): goals, recent history, retrieved evidence with provenance, decisions, learnings and open issues, ' +
    'within a token budget, redacted, and stored immutably under its context_snapshot_hash (also readable as the resource contextpack://packet/<hash>). ' +
    'Call it at the start of a task and put the packet in your working context; cite the evidence labels it gives.',
  get_packet: 'Fetch a stored packet by its context_snapshot_hash, exactly as it was built (Markdown). Use it to re-read a packet you or another agent made earlier.',
  replay:
    "Rebuild a stored packet against today's project state and report the difference by item (added, removed, changed evidence and memories), " +
    'so you can tell whether a packet you are working from is stale.',
  remember:
    'Write a memory the next session will see: a decision (goes through the decision template: content needs decision and rationale, and importance is required), ' +
    'an issue, the current state of a task, or a learning. Invalid input comes back as an error naming each bad field, e.g. content.rationale.',
  rehydrate:
    "Load the project's memory at the start of a session: the executive summary, current state, key decisions of the last 30 days, open critical and high issues, " +
    'and recent learnings, within a token budget.',
  hierarchy:
    "Read the project's four-level hierarchy: without a marker, the navigation index (L1 executive summary, L2 sections, L3 details, L4 files) and the summary; " +
    'with a marker such as §2.1, that section.',
  stats:
    'Report what the index holds (sources, documents, chunks, last ingest), whether the watcher keeps it current, and which capabilities are on, ' +
    'e.g. whether semantic search is available and why not.',
  ingest:
    'Bring the index up to date after you edited, added or deleted files: give the paths you changed (relative to a project root, as search cites them), ' +
    "or none to re-walk every root the project remembers. Only files under the project's roots are read. Answers what was added, updated and removed.",
  update_memory:
    'Change a stored memory: title, importance, tags, or content fields (a key ending in [] appends to a list). Validated like remember; audited; ' +
    'the lifecycle rules run afterwards (e.g. an old decision lowered to importance 5 is archived).',
  resolve_issue: 'Mark an issue memory resolved, with how; it then leaves the open issues of the next packet and rehydration. Audited as RESOLVED.',
  capacity:
    'Check your context usage against your window: GREEN below 80 %, YELLOW (plan compaction), ORANGE at 90 % (compact now), RED at 95 % (emergency compaction), ' +
    'with the action to take.',
  handoff:
    'Build a handoff package for another agent or a fresh session (seed 002): decisions with rationale, open issues, task state, next actions, ' +
    'success criteria and your transcript compacted to the type\'s token budget; stored by hash and recorded in project memory. Give your transcript for the best package.',
  end_session:
    'Record the end of your session: what was done, decisions, bugs and TODOs (from Done: / DECISION: / BUG- / TODO: lines of your notes or transcript). ' +
    'The next packet lists it under Recent Sessions and the findings are saved as memories.',
};

/** Hints for clients deciding what to run without asking: which tools change project memory. */
export const TOOL_ANNOTATIONS: Record<ToolName, { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: boolean }> = {
  search: { readOnlyHint: true, openWorldHint: false },
  // Stores a snapshot under its hash: the same request on the same store stores the same packet again.
  pack: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  get_packet: { readOnlyHint: true, openWorldHint: false },
  replay: { readOnlyHint: true, openWorldHint: false },
  remember: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  // Counts what it loads as accessed (the seed's rehydration step), which changes no content.
  rehydrate: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  hierarchy: { readOnlyHint: true, openWorldHint: false },
  stats: { readOnlyHint: true, openWorldHint: false },
  // Re-reads files the project already follows: the same files give the same index.
  ingest: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  update_memory: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  resolve_issue: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  capacity: { readOnlyHint: true, openWorldHint: false },
  // Stores the package by hash and records the handoff (a state memory); ownership moves to the recipient.
  handoff: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  end_session: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
};
