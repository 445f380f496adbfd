/**
 * A built-in or user redaction rule, kept as plain data so the rule set can be
 * listed, tested rule-by-rule and extended without touching the gate.
 */
export interface RedactionRule {
  /** Stable id, written to the log as `pattern` (e.g. `jwt_token`). */
  id: string;
  /** Label used in the replacement line `[REDACTED: <type>]`. */
  type: string;
  /** RE2 pattern source. Matched against one line at a time (no newline inside). */
  pattern: string;
  /** RE2 flags; only `i`, `s`, `m` are meaningful for single lines. */
  flags?: string;
  /**
   * Keyword-context requirement: the line must contain at least one of these
   * (case-insensitive substring) for the rule to apply.
   */
  keywords?: readonly string[];
  /**
   * Minimum Shannon entropy (bits per char) of the matched value: the first
   * capture group that took part in the match, else the whole match.
   * Any one match on the line reaching it is enough.
   */
  minEntropy?: number;
  /**
   * RE2 source for values known not to be secrets, e.g. `string` in the
   * TypeScript annotation `password: string`. Tested case-insensitively against
   * the match value; anchor it (`^...$`) so it cannot excuse a longer value.
   */
  allowValue?: string;
  /**
   * Multi-line block: once `pattern` opens a block, every following line is
   * redacted up to and including the first line matching `blockEnd`. A block
   * left open runs to the end of the text.
   */
  blockEnd?: string;
  /**
   * RE2 source of a cheap trigger used by the gate's one-pass hot-line scan when the rule has no keywords: a line
   * with neither a keyword nor a trigger of any rule is skipped without running the rules. Must match (within the
   * line) wherever `pattern` does; a rule with neither keywords nor trigger uses its own pattern.
   */
  trigger?: string;
  /** 1-based capture group holding the secret (gitleaks' secretGroup); default: the first group that took part. */
  secretGroup?: number;
  /** 1-based capture group holding the key name; the value is then the first other group that took part. */
  keyGroup?: number;
  /**
   * A named check the value must pass for the match to count (value-check.ts): `password`, `credential`,
   * `keyed` (password or credential, chosen by the captured key name), `random`, `env`, `userinfo` (not a placeholder).
   */
  valueCheck?: 'password' | 'credential' | 'keyed' | 'random' | 'env' | 'userinfo' | 'prose' | 'flag' | 'email' | 'cookie' | 'token' | 'shape';
  /** The value was a quoted literal (changes what counts as code in `valueCheck`). */
  valueQuoted?: boolean;
  /** Why the rule exists / what it covers. */
  description?: string;
}

/** A pattern supplied by the user (settings / config). Compiled with RE2 or refused. */
export interface UserPattern {
  id: string;
  type: string;
  pattern: string;
  flags?: string;
}

/** One redacted line. Never carries the secret itself. */
export interface RedactionEvent {
  /** ISO-8601 timestamp. */
  ts: string;
  /** Rule id that fired, or `redaction_error` / `redaction_limit` when the gate failed closed. */
  pattern: string;
  /** The `<type>` used in the replacement marker. */
  type: string;
  /** Source file / origin of the text. */
  source: string;
  /** 1-based line number within the text passed to `redactText`. */
  line: number;
  /** Packet section the text was headed for (GOALS, HISTORY, INTEL, TASK, PROTOCOL, ...). */
  section: string;
}

export interface RedactContext {
  source: string;
  section: string;
}

export interface RedactResult {
  text: string;
  redactions: RedactionEvent[];
}

export interface MatchHit {
  /** Offset of the match within the line (UTF-16 units). */
  index: number;
  /** First capture group that took part in the match, else the whole match. */
  value: string;
  /** Every capture group (index 0 = group 1); undefined where a group did not take part. Optional for injected matchers. */
  groups?: ReadonlyArray<string | undefined>;
  /** Offset just past the match. */
  end?: number;
}

/** A compiled single pattern. May throw; the gate treats a throw as a match. */
export interface Matcher {
  findAll(line: string): MatchHit[];
}

export type CompileFn = (source: string, flags: string) => Matcher;

/** Many patterns in one pass: returns the indexes of the patterns that match somewhere in the line. */
export interface MatcherSet {
  match(line: string): number[];
}

export type CompileSetFn = (patterns: ReadonlyArray<{ source: string; flags: string }>) => MatcherSet;

export interface RedactorDeps {
  /** Defaults to BUILTIN_RULES. */
  rules?: readonly RedactionRule[];
  /** Compiled after the rules; any pattern RE2 rejects makes createRedactor throw. */
  userPatterns?: readonly UserPattern[];
  /** Called once per redaction event, after the text has been processed. */
  log?: (event: RedactionEvent) => void;
  now?: () => Date;
  /**
   * Work a line may take, in characters read by the gate's passes (default DEFAULT_WORK_LIMIT). Over it the line is
   * redacted as `limit`: a function of the input alone.
   */
  workLimit?: number;
  /**
   * Last-resort time limit per line, in ms (default 1,000: ten times the old 100 ms budget). Over it by the clock and
   * then by this thread's CPU time, redactText throws RedactionTimeLimitError: an error, never a redaction.
   */
  timeLimitMs?: number;
  /** Told each judged line's work (1-based line, characters read): bench:redact's figures for the work limit. */
  onLineWork?: (line: number, chars: number) => void;
  /** Monotonic ms clock for the last-resort limit (default performance.now). */
  clock?: () => number;
  /**
   * This thread's CPU time in ms, which confirms a line over the time limit by the clock really spent it (a loaded
   * machine stretches wall time, not the gate's work). Default: process.threadCpuUsage where Node has it, unless
   * `clock` is injected; null: the clock alone decides.
   */
  cpuClock?: (() => number) | null;
  /** Single-pattern compiler (default RE2). */
  compile?: CompileFn;
  /**
   * One-pass prefilter over all patterns (default RE2.Set). When `compile` is
   * injected without `compileSet`, no prefilter is used and every rule's
   * matcher runs on every line, so an injected matcher always gets exercised.
   */
  compileSet?: CompileSetFn;
}

export interface Redactor {
  redactText(text: string, ctx: RedactContext): RedactResult;
  /** Adds a user pattern; throws PatternRefusedError when RE2 cannot take it. */
  addUserPattern(pattern: UserPattern): void;
  /** Rules in match order (built-ins, then user patterns). */
  readonly rules: readonly RedactionRule[];
}

export interface RedactionReport {
  source: string;
  totalLines: number;
  redactedLines: number;
  /** Per type: how many lines, and which (1-based). */
  byType: Record<string, { count: number; lines: number[] }>;
  redactions: RedactionEvent[];
  /** The redacted text (what `contextpack redact` prints without --json). */
  text: string;
}
