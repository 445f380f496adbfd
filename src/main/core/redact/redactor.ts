import { LINE_WINDOW, MAX_JUDGED_VALUE, WINDOW_OVERLAP, WRAP_MAX } from './bounds.ts';
import { shannonEntropy } from './entropy.ts';
import { detectOpening, continueValue, type Pending } from './multiline.ts';
import { joinedStatements } from './joined-lines.ts';
import { canonicalViews, mayDisguise } from './normalize.ts';
import { compileRe2, compileRe2Set } from './re2-compile.ts';
import { BUILTIN_RULES } from './rules.ts';
import { validateUserPattern } from './user-patterns.ts';
import { createPrefilter, type Prefilter } from './prefilter.ts';
import { checkValue, isWordy } from './value-check.ts';
import type {
  MatchHit,
  Matcher,
  MatcherSet,
  RedactContext,
  RedactionEvent,
  RedactionRule,
  RedactResult,
  Redactor,
  RedactorDeps,
  UserPattern,
} from './types.ts';

export const DEFAULT_TIME_BUDGET_MS = 100;
/** Wall ms after which a line's CPU time is sampled (budgetFrom): most lines finish long before. */
const CPU_MARK_MS = 5;

/** This thread's CPU time in ms (user + system), or null where Node lacks process.threadCpuUsage. */
function threadCpuMs(): (() => number) | null {
  const usage = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;
  if (typeof usage !== 'function') return null;
  return () => {
    const u = usage.call(process);
    return (u.user + u.system) / 1000;
  };
}

/** Rule ids used when the gate fails closed rather than on a pattern match. */
export const ERROR_RULE = { id: 'redaction_error', type: 'error' } as const;
export const TIMEOUT_RULE = { id: 'redaction_timeout', type: 'timeout' } as const;
/** A line holding part of a value that started on an earlier line (multiline.ts). */
export const MULTILINE_RULE = { id: 'multiline_secret_value', type: 'password' } as const;

/*
 * A hard-wrapped token's halves: the run of token characters ending one line and the run starting the next. Found
 * by a scan from the line's end (a V8 regex anchored at `$` retries from every start: quadratic on a long run), and
 * at most WRAP_MAX characters each: a half longer than that is a token line judged on its own.
 */
const TAIL_CHARS = charSet('A-Za-z0-9', '_-+/=.~:');
const HEAD_CHARS = charSet('A-Za-z0-9', '_-+/=.~');
/** Generic rules a glued pair of words could trip; only token shapes count across a wrap. */
const WRAP_IGNORES = new Set([
  'base64_blob_line', 'high_entropy_secret', 'env_var_assignment', 'email_address', 'private_ipv4', 'private_ipv6',
  'secret_assignment', 'secret_assignment_quoted', 'password_in_prose', 'hex_private_key', 'pgpass_line', 'url_credentials',
  'connection_string', 'twilio_api_key', 'discord_bot_token', 'redaction_error', 'redaction_timeout',
]);

function charSet(ranges: string, others: string): Uint8Array {
  const set = new Uint8Array(128);
  for (const [from, to] of [['A', 'Z'], ['a', 'z'], ['0', '9']] as const) {
    if (ranges.includes(`${from}-${to}`)) for (let c = from.charCodeAt(0); c <= to.charCodeAt(0); c++) set[c] = 1;
  }
  for (const c of others) set[c.charCodeAt(0)] = 1;
  return set;
}

const inSet = (set: Uint8Array, c: number) => c < 128 && set[c] === 1;

/** The token-character run ending `line` (trailing whitespace ignored), at most WRAP_MAX long, or '' under 8. */
export function wrapTail(line: string): string {
  let end = line.length;
  while (end > 0 && isSpace(line.charCodeAt(end - 1))) end--;
  let start = end;
  while (start > 0 && end - start < WRAP_MAX && inSet(TAIL_CHARS, line.charCodeAt(start - 1))) start--;
  return end - start >= 8 ? line.slice(start, end) : '';
}

/** The token-character run starting `line` after its indentation, at most WRAP_MAX long, or '' under 6. */
export function wrapHead(line: string): string {
  let start = 0;
  while (start < line.length && isSpace(line.charCodeAt(start))) start++;
  let end = start;
  while (end < line.length && end - start < WRAP_MAX && inSet(HEAD_CHARS, line.charCodeAt(end))) end++;
  return end - start >= 6 ? line.slice(start, end) : '';
}

/** A line cut into windows of LINE_WINDOW characters overlapping by WINDOW_OVERLAP; a short line is its own window. */
export function windowsOf(line: string): string[] {
  if (line.length <= LINE_WINDOW) return [line];
  const out: string[] = [];
  for (let start = 0; ; ) {
    let end = Math.min(line.length, start + LINE_WINDOW);
    // Never split a surrogate pair.
    if (end < line.length && isHighSurrogate(line.charCodeAt(end - 1))) end--;
    out.push(line.slice(start, end));
    if (end === line.length) return out;
    start = end - WINDOW_OVERLAP;
    if (isHighSurrogate(line.charCodeAt(start - 1))) start--;
  }
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff || (c >= 0x2000 && c <= 0x200a) || c === 0x3000;
}

export function redactionMarker(type: string): string {
  return `[REDACTED: ${type}]`;
}

interface CompiledRule {
  readonly rule: RedactionRule;
  readonly matcher: Matcher;
  readonly keywords: string[] | null;
  readonly allow: Matcher | null;
  readonly blockEnd: Matcher | null;
}

interface Verdict {
  id: string;
  type: string;
}

/**
 * A rule whose RE2 programs are compiled on first use: a CLI search that prints three hits should not pay for
 * compiling ~350 patterns, most of which no line will ever need (the prefilter picks the candidates). A pattern
 * that does not compile throws when first used, which the gate turns into a redaction (fail closed); the rule
 * tests compile every built-in rule.
 */
function compileRule(rule: RedactionRule, compile: (s: string, f: string) => Matcher): CompiledRule {
  const at = (what: string, fn: () => Matcher): Matcher => {
    try {
      return fn();
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`Redaction rule "${rule.id}": ${what} does not compile: ${reason}`);
    }
  };
  let matcher: Matcher | null = null;
  let allow: Matcher | null | undefined;
  let blockEnd: Matcher | null | undefined;
  return {
    rule,
    get matcher() {
      return (matcher ??= at('pattern', () => compile(rule.pattern, rule.flags ?? '')));
    },
    keywords: rule.keywords && rule.keywords.length > 0 ? rule.keywords.map((k) => k.toLowerCase()) : null,
    get allow() {
      if (allow === undefined) allow = rule.allowValue ? at('allowValue', () => compile(rule.allowValue as string, 'i')) : null;
      return allow;
    },
    get blockEnd() {
      if (blockEnd === undefined) blockEnd = rule.blockEnd ? at('blockEnd', () => compile(rule.blockEnd as string, rule.flags ?? '')) : null;
      return blockEnd;
    },
  };
}

function maxIndex(hits: readonly MatchHit[]): number {
  let max = -1;
  for (const h of hits) if (h.index > max) max = h.index;
  return max;
}

/** The secret a hit holds: the rule's secret group, else the first group that took part other than the key. */
function valueOf(rule: RedactionRule, hit: MatchHit): { value: string; key: string | undefined } {
  const groups = hit.groups;
  if (!groups) return { value: hit.value, key: undefined };
  const key = rule.keyGroup ? groups[rule.keyGroup - 1] : undefined;
  if (rule.secretGroup) return { value: groups[rule.secretGroup - 1] ?? '', key };
  for (let g = 0; g < groups.length; g++) {
    if (g === (rule.keyGroup ?? 0) - 1) continue;
    if (groups[g] !== undefined) return { value: groups[g]!, key };
  }
  return { value: hit.value, key };
}

interface LineState {
  /** Open private-key style block (blockEnd rule). */
  block: CompiledRule | null;
  /** Open multi-line value under a sensitive key. */
  pending: Pending | null;
}

/**
 * The redaction gate. Every line is checked against the rules in order; the
 * first rule that fires replaces the whole line with `[REDACTED: <type>]`.
 * Each line is judged as written and in its canonical views (normalize.ts);
 * values that run over several lines redact every line they touch (multiline.ts).
 * Fail-closed: a throwing matcher or a line whose checks exceed the time
 * budget is redacted too.
 */
export function createRedactor(deps: RedactorDeps = {}): Redactor {
  const compile = deps.compile ?? compileRe2;
  const compileSet = deps.compileSet ?? (deps.compile ? null : compileRe2Set);
  // Default engines: the keyword prefilter (prefilter.ts) picks the lines and the rules worth running. With an
  // injected compiler or set there is no keyword prefilter, so injected matchers are exercised on every line.
  const useKeywords = !deps.compile && !deps.compileSet;
  const budget = deps.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS;
  const clock = deps.clock ?? (() => performance.now());
  const cpuClock = deps.cpuClock !== undefined ? deps.cpuClock : deps.clock ? null : threadCpuMs();

  /**
   * A per-line budget: over `budget` ms by the clock, and (when there is a CPU clock) by this thread's CPU time too.
   * The CPU clock is a system call, so it is read only for a line already past CPU_MARK_MS: before that mark its wall
   * time is counted as CPU time (an upper bound), after it the CPU clock's own difference.
   */
  function budgetFrom(): () => boolean {
    const start = clock();
    let mark: { wall: number; cpu: number } | null = null;
    return () => {
      const wall = clock() - start;
      if (wall <= budget) {
        if (cpuClock && mark === null && wall > CPU_MARK_MS) mark = { wall, cpu: cpuClock() };
        return false;
      }
      if (!cpuClock) return true;
      mark ??= { wall, cpu: cpuClock() };
      return mark.wall + (cpuClock() - mark.cpu) > budget;
    };
  }
  const now = deps.now ?? (() => new Date());

  const compiled: CompiledRule[] = (deps.rules ?? BUILTIN_RULES).map((r) => compileRule(r, compile));
  let prefilter: MatcherSet | null = null;
  let keywordFilter: Prefilter | null = null;
  const keywordIndex = (): Prefilter => (keywordFilter ??= createPrefilter(compiled.map((c) => c.rule)));

  const ruleList = (): RedactionRule[] => compiled.map((c) => c.rule);

  function addUserPattern(pattern: UserPattern): void {
    const taken = new Set(compiled.map((c) => c.rule.id));
    const checked = validateUserPattern(pattern, compile, taken);
    if (!checked.ok) throw checked.error;
    compiled.push({
      rule: { id: pattern.id, type: pattern.type, pattern: pattern.pattern, flags: pattern.flags ?? '' },
      matcher: checked.matcher,
      keywords: null,
      allow: null,
      blockEnd: null,
    });
    prefilter = null;
    keywordFilter = null;
  }

  for (const p of deps.userPatterns ?? []) addUserPattern(p);

  function candidates(line: string): number[] {
    if (useKeywords) return keywordIndex().candidates(line);
    if (!compileSet) return compiled.map((_, i) => i);
    prefilter ??= compileSet(compiled.map((c) => ({ source: c.rule.pattern, flags: c.rule.flags ?? '' })));
    return prefilter.match(line).sort((a, b) => a - b);
  }

  function realHits(c: CompiledRule, line: string): MatchHit[] {
    const hits = c.matcher.findAll(line);
    if (hits.length === 0) return hits;
    const r = c.rule;
    return hits.filter((h) => {
      if (r.minEntropy === undefined && !c.allow && !r.valueCheck) return true;
      const { value, key } = valueOf(r, h);
      if (r.minEntropy !== undefined && shannonEntropy(value) < r.minEntropy) return false;
      if (c.allow && c.allow.findAll(value).length > 0) return false;
      if (r.valueCheck) {
        // The value checks are not linear in a value's length (bounds.ts): a longer value counts as a secret.
        if (value.length > MAX_JUDGED_VALUE || (key?.length ?? 0) > MAX_JUDGED_VALUE) return true;
        const after = h.end !== undefined ? line.slice(h.end, h.end + 8) : '';
        const whole = h.end !== undefined ? line.slice(h.index, h.end) : '';
        const at = whole.lastIndexOf(value);
        const before = at > 0 ? whole.slice(Math.max(0, at - 24), at) : '';
        const lead = line.slice(Math.max(0, h.index - 48), h.index);
        if (!checkValue(r.valueCheck, { value, key, quoted: r.valueQuoted === true, after, before, lead })) return false;
      }
      return true;
    });
  }

  /** First rule that fires on one line of one view, or null; also reports whether it opens a block. */
  function scan(line: string, overBudget: () => boolean): { verdict: Verdict; open: CompiledRule | null } | null {
    let lower: string | null = null;
    for (const i of candidates(line)) {
      if (overBudget()) return { verdict: TIMEOUT_RULE, open: null };
      const c = compiled[i];
      if (c.keywords) {
        lower ??= line.toLowerCase();
        const l = lower;
        if (!c.keywords.some((k) => l.includes(k))) continue;
      }
      const hits = realHits(c, line);
      if (hits.length === 0) continue;
      let next: CompiledRule | null = null;
      if (c.blockEnd) {
        const ends = c.blockEnd.findAll(line);
        // Opens unless the block also closes later on this same line.
        if (maxIndex(ends) < maxIndex(hits)) next = c;
      }
      return { verdict: { id: c.rule.id, type: c.rule.type }, open: next };
    }
    if (overBudget()) return { verdict: TIMEOUT_RULE, open: null };
    return null;
  }

  /** One piece of a view against the rules, continuing an open block. */
  function judge(part: string, block: CompiledRule | null, overBudget: () => boolean): { verdict: Verdict | null; block: CompiledRule | null } {
    if (block) {
      // Inside a private-key body: redacted regardless; only look for where it ends.
      const ends = (block.blockEnd as Matcher).findAll(part);
      let next: CompiledRule | null = block;
      if (ends.length > 0) {
        const reopened = realHits(block, part).some((h) => h.index > maxIndex(ends));
        next = reopened ? block : null;
      }
      return { verdict: { id: block.rule.id, type: block.rule.type }, block: next };
    }
    const found = scan(part, overBudget);
    return found ? { verdict: found.verdict, block: found.open } : { verdict: null, block: null };
  }

  /** A view may hold decoded newlines (`\n` escapes): each part is judged in turn, carrying an open block. */
  function judgeView(view: string, block: CompiledRule | null, overBudget: () => boolean): { verdict: Verdict | null; block: CompiledRule | null } {
    if (!view.includes('\n')) return judge(view, block, overBudget);
    let verdict: Verdict | null = null;
    let open = block;
    for (const part of view.split('\n')) {
      if (part.length === 0) continue; // nothing to match, nothing that ends a block
      const r = judge(part, open, overBudget);
      verdict ??= r.verdict;
      open = r.block;
      if (verdict === TIMEOUT_RULE) break;
    }
    return { verdict, block: open };
  }

  /** Verdict for one line and the state for the next. */
  function checkLine(line: string, hot: boolean, state: LineState): { verdict: Verdict | null; state: LineState } {
    const overBudget = budgetFrom();
    let pending = state.pending;
    let fromValue = false;
    try {
      if (pending) {
        const c = continueValue(line, pending);
        fromValue = c.redact;
        pending = c.next;
      }
      if (!hot && !state.block) {
        const verdict = fromValue ? MULTILINE_RULE : state.pending && overBudget() ? TIMEOUT_RULE : null;
        return { verdict, state: { block: null, pending } };
      }

      // A long line is judged in overlapping windows (bounds.ts): no single step runs long, the budget is checked
      // between them, and a cold window (no keyword, no trigger) costs one scan.
      const pieces = windowsOf(line);
      const long = pieces.length > 1;
      let verdict: Verdict | null = null;
      let block = state.block;
      let lastViews: string[] = [];
      for (let p = 0; p < pieces.length; p++) {
        const piece = pieces[p]!;
        if (verdict === TIMEOUT_RULE || overBudget()) break;
        const warm = hot && (!long || isHot(piece));
        if (!warm && !block) continue;
        const views = warm && mayDisguise(piece) ? canonicalViews(piece) : [];
        if (p === pieces.length - 1) lastViews = views;
        const raw = judgeView(piece, block, overBudget);
        const before = block;
        verdict ??= raw.verdict;
        block = raw.block;
        for (const view of views) {
          if (verdict === TIMEOUT_RULE || overBudget()) break;
          const r = judgeView(view, before, overBudget);
          verdict ??= r.verdict;
          block ??= r.block;
        }
      }
      if (hot && !pending && !fromValue) {
        // A sensitive key whose value continues on the following lines (judged in its canonical form too).
        // The whole line (detectOpening is RE2 and linear scans), and the last window's views.
        for (const form of [line, ...lastViews]) {
          const opening = detectOpening(form.split('\n').at(-1) as string);
          if (!opening) continue;
          pending = opening.pending;
          if (opening.redactSelf) verdict ??= MULTILINE_RULE;
          break;
        }
      }
      if (verdict && !pending && verdict !== MULTILINE_RULE && line.trimEnd().endsWith('\\') && !block) {
        pending = { kind: 'cont' }; // `export TOKEN=abc\` + next line
      }
      if (!verdict && fromValue) verdict = MULTILINE_RULE;
      // The budget covers the whole line, not only the rules: views, multi-line state and value checks included.
      if (!verdict && overBudget()) verdict = TIMEOUT_RULE;
      return { verdict, state: { block, pending } };
    } catch {
      // Keep an open block open: the body is still being redacted either way.
      return { verdict: ERROR_RULE, state: { block: state.block, pending } };
    }
  }

  function isHot(piece: string): boolean {
    return !useKeywords || keywordIndex().hotLines(piece, 1)[0] === 1;
  }

  function hotLines(text: string, lineCount: number): Uint8Array | null {
    return useKeywords ? keywordIndex().hotLines(text, lineCount) : null;
  }

  /**
   * A token hard-wrapped over two lines (a long JWT or API key in prose or a markdown table): the end of one line
   * and the start of the next are judged joined, and a token shape found only there redacts both lines. Generic
   * rules are left out of this (two identifiers glued together are not a secret).
   */
  function joinWrapped(lines: string[], verdicts: Array<Verdict | null>): void {
    for (let i = 0; i + 1 < lines.length; i++) {
      if (verdicts[i] && verdicts[i + 1]) continue;
      const a = lines[i];
      let e = a.length;
      while (e > 0 && isSpace(a.charCodeAt(e - 1))) e--;
      const last = a.charCodeAt(e - 1);
      // Cheap exit first: most lines end in punctuation.
      if (!(last >= 48 && last <= 57) && !(last >= 65 && last <= 90) && !(last >= 97 && last <= 122) && last !== 95 && last !== 45) continue;
      const tail = wrapTail(a);
      const head = tail ? wrapHead(lines[i + 1]) : '';
      if (!tail || !head || tail.length + head.length < 20) continue;
      // The joined check has a budget of its own, like every line; over it, the first line is redacted as `timeout`.
      const overBudget = budgetFrom();
      let found: { verdict: Verdict; open: CompiledRule | null } | null = null;
      try {
        // Halves of a token read as random characters, not as names (`encodeOptions` ending a line of code).
        if (isWordy(tail) || isWordy(head)) continue;
        // Only a shape that needs both halves: a token complete on its own line does not spill onto the next.
        const alone = scan(tail, overBudget) ?? scan(head, overBudget);
        found = alone ? (alone.verdict === TIMEOUT_RULE ? alone : null) : scan(tail + head, overBudget);
      } catch {
        found = { verdict: ERROR_RULE, open: null };
      }
      if (found?.verdict === TIMEOUT_RULE) {
        verdicts[i] ??= TIMEOUT_RULE;
        continue;
      }
      if (!found || WRAP_IGNORES.has(found.verdict.id)) continue;
      verdicts[i] ??= found.verdict;
      verdicts[i + 1] ??= found.verdict;
    }
  }

  /** Name/value pairs across lines and values built from several literals (joined-lines.ts), judged as one line. */
  function judgeJoined(text: string, lines: string[], verdicts: Array<Verdict | null>): void {
    let joined: ReturnType<typeof joinedStatements>;
    try {
      joined = joinedStatements(lines, text);
    } catch {
      return; // an extra pass: every line has been judged on its own already
    }
    for (const j of joined) {
      if (j.lines.every((i) => verdicts[i])) continue;
      let found: { verdict: Verdict } | null;
      try {
        // The joined statement is judged under the same per-line budget: over it, its lines are redacted as timeout.
        found = scan(j.text, budgetFrom());
      } catch {
        found = { verdict: ERROR_RULE };
      }
      if (found) for (const i of j.lines) verdicts[i] ??= found.verdict;
    }
  }

  function redactText(text: string, ctx: RedactContext): RedactResult {
    const lines = text.split('\n');
    let hot: Uint8Array | null;
    try {
      const over = budgetFrom();
      hot = hotLines(text, lines.length);
      // A scan that failed or ran over the per-line budget decides nothing: every line is judged (and timed) itself.
      if (over()) hot = null;
    } catch {
      hot = null;
    }
    const verdicts: Array<Verdict | null> = new Array(lines.length).fill(null);
    let state: LineState = { block: null, pending: null };
    for (let i = 0; i < lines.length; i++) {
      if (hot && hot[i] === 0 && !state.block && !state.pending) continue;
      const raw = lines[i];
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      const result = checkLine(line, hot ? hot[i] === 1 : true, state);
      state = result.state;
      verdicts[i] = result.verdict;
    }
    joinWrapped(lines, verdicts);
    judgeJoined(text, lines, verdicts);
    const redactions: RedactionEvent[] = [];
    for (let i = 0; i < lines.length; i++) {
      const verdict = verdicts[i];
      if (!verdict) continue;
      const crlf = lines[i].endsWith('\r');
      lines[i] = redactionMarker(verdict.type) + (crlf ? '\r' : '');
      redactions.push({
        ts: now().toISOString(),
        pattern: verdict.id,
        type: verdict.type,
        source: ctx.source,
        line: i + 1,
        section: ctx.section,
      });
    }
    if (deps.log) for (const e of redactions) deps.log(e);
    return { text: lines.join('\n'), redactions };
  }

  return {
    redactText,
    addUserPattern,
    get rules() {
      return ruleList();
    },
  };
}

let defaultRedactor: Redactor | null = null;

/** Shared redactor with the built-in rules only (compiling ~350 RE2 patterns is not free). */
export function getDefaultRedactor(): Redactor {
  defaultRedactor ??= createRedactor();
  return defaultRedactor;
}
