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
