import { compileRe2 } from './re2-compile.ts';
import type { CompileFn, Matcher, UserPattern } from './types.ts';

/** A user pattern the gate will not take. The message names the pattern and the reason. */
export class PatternRefusedError extends Error {
  readonly patternId: string;
  readonly reason: string;
  constructor(patternId: string, source: string, reason: string) {
    super(`Redaction pattern "${patternId}" (/${source}/) refused: ${reason}`);
    this.name = 'PatternRefusedError';
    this.patternId = patternId;
    this.reason = reason;
  }
}

export type PatternValidation =
  | { ok: true; matcher: Matcher }
  | { ok: false; error: PatternRefusedError };

const ID_SHAPE = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Checks a user pattern the way the gate will use it. Refusals are returned,
 * never swallowed: the caller must show `error.message` to the user.
 */
export function validateUserPattern(
  pattern: UserPattern,
  compile: CompileFn = compileRe2,
  takenIds: ReadonlySet<string> = new Set(),
): PatternValidation {
  const refuse = (reason: string): PatternValidation => ({
    ok: false,
    error: new PatternRefusedError(String(pattern.id), String(pattern.pattern), reason),
  });
  if (typeof pattern.id !== 'string' || !ID_SHAPE.test(pattern.id)) {
    return refuse('id must be 1-64 characters of A-Z a-z 0-9 _ . -');
  }
  // The type is printed inside `[REDACTED: <type>]`, so it must not be able to break that marker.
  if (typeof pattern.type !== 'string' || !ID_SHAPE.test(pattern.type)) {
    return refuse('type must be 1-64 characters of A-Z a-z 0-9 _ . -');
  }
  if (takenIds.has(pattern.id)) return refuse(`id "${pattern.id}" is already used by another rule`);
  if (typeof pattern.pattern !== 'string' || pattern.pattern.length === 0) {
    return refuse('pattern is empty');
  }
  let matcher: Matcher;
  try {
    matcher = compile(pattern.pattern, pattern.flags ?? '');
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return refuse(`RE2 cannot compile it: ${reason} (RE2 has no lookaround or backreferences)`);
  }
  try {
    // A pattern that matches nothing-at-all would redact every line of every packet.
    if (matcher.findAll('').length > 0) return refuse('it matches the empty string, so it would redact every line');
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return refuse(`matching failed: ${reason}`);
  }
  return { ok: true, matcher };
}
