/*
 * What keeps the gate linear in a line's length. Matching is RE2; the checks written in JavaScript around it (value
 * checks, multi-line values, wrap joining) only ever see a bounded slice of a line, so no input can make them
 * quadratic. Over a bound, the gate fails closed: the part is treated as a secret, never skipped.
 */

/** Longest value (or key) the value checks judge; a longer one counts as a secret without being judged. */
export const MAX_JUDGED_VALUE = 1024;

/** Longest half of a hard-wrapped token (the run ending one line, the run starting the next) joined and judged. */
export const WRAP_MAX = 512;

/**
 * A line longer than this is judged in windows of this length (minified code, a data blob, a pasted log), so every
 * step between two budget checks is short. Windows overlap by WINDOW_OVERLAP: longer than any one-line secret with
 * its key, so a secret cut by a window's edge is whole in the next one.
 */
export const LINE_WINDOW = 64 * 1024;
export const WINDOW_OVERLAP = 4 * 1024;
