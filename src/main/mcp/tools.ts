// The MCP tools: each one a zod input schema (snake_case, as agents expect), a description an agent can act on, and
// a mapping onto one API method (tool-api.ts). Nothing here touches the store: every call goes through the API's
// dispatcher, so MCP is a third transport beside IPC and HTTP, with the same validation and the same engine.
// An argument that means what its API field means is that field's own schema (`api.…`), described for an agent, so
// its rules reach the tool unchanged; the others differ on purpose (snake_case errors such as `max_tokens must be…`,
// tighter caps, a full hash only, typed memory content) and tool-api.test.ts keeps them within the API's.
import { z } from 'zod';
import { apiInputs as api, searchFiltersSchema } from '../../shared/api/index.ts';
import { capError, MAX_MAX_TOKENS, MEMORY_CONTENT_MAX, MIN_MAX_TOKENS, QUERY_MAX, TAG_MAX, TITLE_MAX, TRANSCRIPT_MAX, TRANSCRIPT_NAME_MAX } from '../../shared/limits.ts';
import { filterDateMs } from '../../shared/filters.ts';
import { GLOB_MAX } from '../../shared/globs.ts';
import type { MemoryType } from '../../shared/memory.ts';
import { CONTENT_SPECS, isRequiredField, type FieldSpec } from '../core/memory/validate.ts';

const hash = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'hash must be the 64 lowercase hex digits of a context_snapshot_hash')
  .describe('context_snapshot_hash, as pack returns it');

const glob = z.string().trim().min(1, 'a glob is empty').max(GLOB_MAX, `a glob is at most ${GLOB_MAX} characters`);
const date = (field: string) =>
  z.string().refine((v) => filterDateMs(v) !== null, `${field} must be a date, e.g. 2026-01-31 or 2026-01-31T12:00:00Z`);

const include = z.array(glob).max(100).optional().describe('path globs to keep, e.g. ["src/**"]');
const exclude = z.array(glob).max(100).optional().describe('path globs to drop');
const types = searchFiltersSchema.shape.types.describe('source types to keep');

const searchFilters = z
  .object({
    include,
    exclude,
    path_glob: z.string().max(1000).optional().describe('SQLite GLOB on the absolute path'),
    types,
    modified_after: date('filters.modified_after').optional().describe('ISO date'),
    modified_before: date('filters.modified_before').optional().describe('ISO date'),
  })
  .strict()
  .describe('all must hold');

/** The same as `contextpack pack --path / --exclude / --type`. */
const packFilters = z.object({ include, exclude, types }).strict().describe('all must hold');

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
      return z.array(z.object({ name: z.string(), reason: z.string() }).strict());
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
/**
 * What each type requires, read from the validator's table: `decision: decision, rationale; issue: …`. Said once here
 * rather than on each field (the fields come in the types' order), since every word of a tool's schema stays in the
 * agent's context; a field a type does not take is refused by name.
 */
const REQUIRED_BY_TYPE = TYPES.map((t) => `${t}: ${requiredOf(t).join(', ')}`).join('; ');
/** Plain text fills the main field only, so it is enough for the types that require nothing else. */
const PLAIN_TEXT_TYPES = TYPES.filter((t) => requiredOf(t).every((f) => f === MAIN_FIELD[t]));
const CONTENT_DESCRIPTION = `text (for ${PLAIN_TEXT_TYPES.join(', ')}) or fields; required: ${REQUIRED_BY_TYPE}`;
const LIST_FIELDS = Object.keys(CONTENT_FIELDS).filter((f) => CONTENT_FIELDS[f]!.kinds.has('list'));

const contentObject = z
  .object(Object.fromEntries(Object.entries(CONTENT_FIELDS).map(([f, e]) => [f, e.schema.optional()])))
  .strict();

const setObject = z
  .object({
    ...Object.fromEntries(Object.entries(CONTENT_FIELDS).map(([f, e]) => [f, e.schema.optional()])),
    ...Object.fromEntries(LIST_FIELDS.map((f) => [`${f}[]`, z.string().min(1).optional()])),
  })
  .strict()
  .describe('content fields to replace; a key ending in [] appends to that list, e.g. {"attempted_fixes[]": "retry guard"}');

export const TOOL_INPUTS = {
  search: z
    .object({
      query: z.string().min(1, 'query is required').max(QUERY_MAX, capError('query', QUERY_MAX)).describe('what to look for'),
      k: z.number().int('k must be a whole number').min(1, 'k must be at least 1').max(100, 'k must be at most 100').optional().describe('hits (default 10)'),
      mode: api['search.query'].shape.mode.describe('default best: hybrid if embedded, else bm25'),
      filters: searchFilters.optional(),
    })
    .strict(),
  pack: z
    .object({
      query: z.string().min(1, 'query is required').max(QUERY_MAX, capError('query', QUERY_MAX)).describe('what the evidence is about'),
      task: api['packets.build'].shape.task.describe('the task, with "- [ ] ..." acceptance lines'),
      template: api['packets.build'].shape.template.describe('default ao-v1'),
      max_tokens: z
        .number()
        .int('max_tokens must be a whole number')
        .min(MIN_MAX_TOKENS, `max_tokens must be at least ${MIN_MAX_TOKENS}`)
        .max(MAX_MAX_TOKENS, `max_tokens must be at most ${MAX_MAX_TOKENS}`)
        .optional()
        .describe('token budget (default 7000)'),
      format: api['packets.build'].shape.format.describe('default md; json adds the manifest'),
      filters: packFilters.optional(),
      default_excludes: api['packets.build'].shape.useDefaultExcludes.describe("apply the project's evidence excludes (default true)"),
    })
    .strict(),
  get_packet: z.object({ hash }).strict(),
  replay: z.object({ hash }).strict(),
  remember: z
    .object({
      type: api['memory.create'].shape.type.describe('kind'),
      title: z.string().min(1, 'title is required').max(TITLE_MAX, `title must be at most ${TITLE_MAX} characters`).describe('one line'),
      content: z
        .union([z.string().min(1, 'content is empty').max(MEMORY_CONTENT_MAX, capError('content', MEMORY_CONTENT_MAX)), contentObject])
        .describe(CONTENT_DESCRIPTION),
      tags: z.array(tag).max(20).optional().describe('labels'),
      importance: api['memory.create'].shape.importance.describe('1-10, required for a decision'),
    })
    .strict(),
  rehydrate: z
    .object({
      max_tokens: z.number().int('max_tokens must be a whole number').min(500, 'max_tokens must be at least 500').max(200_000, 'max_tokens must be at most 200000').optional().describe('token budget (default 25000)'),
    })
    .strict(),
  hierarchy: z
    .object({
      marker: api['hierarchy.show'].shape.marker.describe('a section such as §2.1 or §4.src/auth.ts; none: the index'),
    })
    .strict(),
  stats: z.object({}).strict(),
  ingest: z
    .object({
      paths: api['library.refresh'].shape.paths.describe('files or folders you changed, as search cites them; none: every root'),
    })
    .strict(),
  // Seed 002's session workflow (#13, #17): memory edits, capacity, handoffs, session summaries.
  update_memory: z
    .object({
      id: api['memory.update'].shape.id.describe('memory or decision id (DEC-…)'),
      title: z.string().min(1).max(TITLE_MAX, `title must be at most ${TITLE_MAX} characters`).optional().describe('new title'),
      importance: api['memory.update'].shape.importance.describe('1-10'),
      tags: z.array(tag).max(20).optional().describe('replaces the tags'),
      set: setObject.optional(),
    })
    .strict(),
  resolve_issue: z
    .object({
      id: api['memory.resolve'].shape.id.describe('issue memory id'),
      resolution: api['memory.resolve'].shape.resolution.describe('how'),
    })
    .strict(),
  capacity: z
    .object({
      tokens: z.number().int('tokens must be a whole number').min(0, 'tokens must be at least 0').describe('tokens in your context now'),
      window: api['sessions.capacity'].shape.window.describe('your window (default 200000)'),
    })
    .strict(),
  handoff: z
    .object({
      type: api['sessions.handoff'].shape.type.describe('budget: complete 25k, specialist 10k, continuation 40k, emergency 15k tokens'),
      transcript: z.string().min(1).max(TRANSCRIPT_MAX, capError('transcript', TRANSCRIPT_MAX)).optional().describe('your transcript (Claude Code, Codex, pi, Cline, Aider or Markdown); else from memory'),
      transcript_name: z.string().min(1).max(TRANSCRIPT_NAME_MAX, capError('transcript_name', TRANSCRIPT_NAME_MAX)).optional().describe('its name'),
      from: api['sessions.handoff'].shape.from.describe('your agent id'),
      to: api['sessions.handoff'].shape.to.describe('recipient agent id'),
      reason: api['sessions.handoff'].shape.reason.describe('why'),
      max_tokens: z.number().int('max_tokens must be a whole number').min(100).max(MAX_MAX_TOKENS).optional().describe("below the type's budget"),
      save: api['sessions.handoff'].shape.save.describe('save its decisions, issues and lessons as memories'),
    })
    .strict(),
  end_session: z
    .object({
      notes: api['sessions.end'].shape.notes.describe('Done: / DECISION: / BUG-… / TODO: / Lesson: lines'),
      transcript: z.string().min(1).max(TRANSCRIPT_MAX, capError('transcript', TRANSCRIPT_MAX)).optional().describe('or your transcript'),
      agent: api['sessions.end'].shape.agent.describe('your agent id'),
    })
    .strict(),
} as const;

export type ToolName = keyof typeof TOOL_INPUTS;

// Each description says what the tool gives and when to call it, in as few words as stay unambiguous: every tool's
// entry sits in the agent's context for the whole session (bench:mcp --tools prints the token counts).
export const TOOL_DESCRIPTIONS: Record<ToolName, string> = {
  search: "Search the project's indexed files (docs, code, notes): ranked chunks cited as path#anchor:lines, with snippets. Secrets redacted.",
  pack:
    'Build a bounded, redacted context packet for a query and task: evidence with provenance, decisions, learnings, open issues. ' +
    'Call it when you start a task; cite its evidence labels. Stored by context_snapshot_hash.',
  get_packet: 'Fetch a stored packet by its context_snapshot_hash, exactly as it was built (Markdown).',
  replay: "Rebuild a stored packet against today's project and list what changed, to tell whether it is stale.",
  remember: 'Record a decision, issue, task state or learning in project memory for the next session. Errors name each bad field.',
  rehydrate: "Load the project's memory at a session's start: summary, current state, recent key decisions, open issues, learnings.",
  hierarchy: "Read the project's four-level hierarchy: the navigation index, or one § section.",
  stats: 'What the index holds, whether the watcher keeps it current, and whether semantic search is on (and why not).',
  ingest: 'Re-index files after you edit, add or delete them. Only files under the project roots.',
  update_memory: 'Change a stored memory: title, importance, tags or content fields. Validated like remember; audited.',
  resolve_issue: 'Mark an issue memory resolved, with how; it leaves the open issues of later packets.',
  capacity: 'Check your context use against your window: GREEN, YELLOW (80 %), ORANGE (90 %), RED (95 %), with the action to take.',
  handoff:
    'Build a handoff package for another agent or a fresh session: decisions, open issues, task state, next actions and your compacted transcript. ' +
    'Stored by hash and recorded in memory.',
  end_session: 'Record the end of your session; its Done: / DECISION: / BUG- / TODO: lines become memories and the next packet lists the session.',
};

/**
 * Hints for clients deciding what to run without asking: which tools change project memory. Only the hints that
 * differ from the spec's defaults (readOnly false, destructive true, idempotent false, openWorld true) are sent.
 */
type ToolAnnotations = { readOnlyHint?: true; destructiveHint?: false; idempotentHint?: true; openWorldHint: false };
const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const WRITE: ToolAnnotations = { destructiveHint: false, openWorldHint: false };
const IDEMPOTENT_WRITE: ToolAnnotations = { destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const TOOL_ANNOTATIONS: Record<ToolName, ToolAnnotations> = {
  search: READ_ONLY,
  // Stores a snapshot under its hash: the same request on the same store stores the same packet again.
  pack: IDEMPOTENT_WRITE,
  get_packet: READ_ONLY,
  replay: READ_ONLY,
  remember: WRITE,
  // Counts what it loads as accessed (the seed's rehydration step), which changes no content.
  rehydrate: IDEMPOTENT_WRITE,
  hierarchy: READ_ONLY,
  stats: READ_ONLY,
  // Re-reads files the project already follows: the same files give the same index.
  ingest: IDEMPOTENT_WRITE,
  update_memory: IDEMPOTENT_WRITE,
  resolve_issue: IDEMPOTENT_WRITE,
  capacity: READ_ONLY,
  // Stores the package by hash and records the handoff (a state memory); ownership moves to the recipient.
  handoff: WRITE,
  end_session: WRITE,
};

/**
 * The tools `contextpack mcp` lists unless told otherwise: the ones an agent calls on every task (rehydrate, pack,
 * search, remember) and the handoff the `hand_off` prompt needs. Every tool listed costs context for the whole
 * session (a test keeps this set under 2,500 o200k tokens), so the rest wait behind `--tools all` or a list:
 * `ingest` (the server's watcher already follows the roots), `end_session` (the SessionEnd hook records it;
 * `handoff` with save: true keeps the findings), memory edits, packet replays, stats and capacity.
 */
export const DEFAULT_TOOLS: readonly ToolName[] = ['search', 'pack', 'remember', 'rehydrate', 'handoff'];
export const ALL_TOOLS: readonly ToolName[] = Object.keys(TOOL_INPUTS) as ToolName[];
export const DEFAULT_TOOLS_TOKEN_TARGET = 2500;

/**
 * `--tools` as the user wrote it: `default`, `all`, or a comma list of tool names, where `default` and `all` may
 * appear in the list too (`default,ingest`). The answer keeps the tools' own order; an unknown name is an error
 * naming the known ones.
 */
export function parseToolSet(spec: string): ToolName[] {
  const wanted = new Set<ToolName>();
  const parts = spec.split(',').map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) throw new Error(`--tools is empty: give all, default or tool names (${ALL_TOOLS.join(', ')})`);
  for (const part of parts) {
    if (part === 'all') ALL_TOOLS.forEach((t) => wanted.add(t));
    else if (part === 'default') DEFAULT_TOOLS.forEach((t) => wanted.add(t));
    else if ((ALL_TOOLS as readonly string[]).includes(part)) wanted.add(part as ToolName);
    else throw new Error(`--tools: unknown tool "${part}" (known: all, default, ${ALL_TOOLS.join(', ')})`);
  }
  return ALL_TOOLS.filter((t) => wanted.has(t));
}

/** How a prompt or an error tells the user to turn a tool on. */
export const enableHint = (tools: readonly string[]): string => `start \`contextpack mcp\` with \`--tools all\` (or \`--tools default,${tools.join(',')}\`)`;
