// Input limits the engine enforces, defined once for it, the API contract and the forms, so they cannot disagree.

/** A memory's title, in characters (after trimming). */
export const TITLE_MAX = 100;
/** One tag, in characters (after trimming). */
export const TAG_MAX = 50;
/** DEC-YYYY-MM-DD-NNN: three digits or more (a busy day can pass 999). */
export const DECISION_ID_PATTERN = /^DEC-(\d{4})-(\d{2})-(\d{2})-(\d{3,})$/;
/** A packet's token budget: 000's budget table minimum is 1,000 chars = 250 tokens. */
export const MIN_MAX_TOKENS = 250;
export const MAX_MAX_TOKENS = 2_000_000;
/** One uploaded file (browser folder upload, serve mode): the ingest's default per-file limit; bigger ones are skipped by name. */
export const UPLOAD_FILE_MAX_BYTES = 20 * 1024 * 1024;
/** Raw bytes per upload request: large folders arrive in batches of about this size. */
export const UPLOAD_BATCH_BYTES = 8 * 1024 * 1024;

// Size caps at every door (issue #22): one number per field, used by the API schemas, the MCP tool schemas, the CLI
// and the engine's own validation, so a value refused by one transport is refused by all, with the same message.
// Text is measured in characters (UTF-16 code units, what every schema sees).

/** One MCP stdio message (a JSON-RPC line), in bytes: the SDK's read buffer. Over it, a JSON-RPC error (not a hang-up). */
export const MCP_MESSAGE_MAX_BYTES = 10 * 1024 * 1024;
/** A transcript handed over as text (handoff, capacity, compaction, session end): fits in one MCP message. */
export const TRANSCRIPT_MAX = 8 * 1024 * 1024;
/** A transcript's name (a file name or path, an MCP `transcript_name`): provenance only. */
export const TRANSCRIPT_NAME_MAX = 1024;
/** Session notes (`Done:` / `DECISION:` / `TODO:` lines). */
export const NOTES_MAX = 1024 * 1024;
/** A memory's content: its JSON form (a lesson, a state, an issue, a decision with its alternatives). */
export const MEMORY_CONTENT_MAX = 256 * 1024;
/** Each text field of a decision (decision, rationale, context, expected impact, validation criteria). */
export const DECISION_FIELD_MAX = 10_000;
/** A packet's task (with its acceptance criteria). */
export const TASK_MAX = 100_000;
/** A search or packet query: an issue handed over whole is one (issue #32), so it takes the task's cap. */
export const QUERY_MAX = TASK_MAX;

/** The message every cap gives: the field, the cap and the size that broke it. */
export function overCap(field: string, cap: number, got: number, unit = 'characters'): string {
  return `${field} is too long: ${got} ${unit}, over the cap of ${cap} ${unit}`;
}

/** The same message as a schema's error for a `.max(cap, …)` check (zod's `{ error }` form; this module imports nothing). */
export function capError(field: string, cap: number) {
  return { error: (iss: { input?: unknown }) => overCap(field, cap, typeof iss.input === 'string' ? iss.input.length : 0) };
}
