import { MAX_JUDGED_VALUE } from './bounds.ts';
import { isSpace, windowsOf, wrapHead, wrapTail, WRAP_IGNORES } from './line-windows.ts';
export { windowsOf, wrapHead, wrapTail } from './line-windows.ts';
import { shannonEntropy } from './entropy.ts';
import { detectOpening, continueValue, type Pending } from './multiline.ts';
import { joinedStatements } from './joined-lines.ts';
import { kubernetesSecretLines } from './k8s-secret.ts';
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

/*
 * The gate's answer is a function of its input alone (issue #35). What bounds a line is the work it takes, counted
 * in characters the gate's passes read (rules run, views built, values judged): a line over DEFAULT_WORK_LIMIT is
 * redacted as `limit`, on any machine under any load. A clock stays only as a last resort far above any real line
 * (DEFAULT_TIME_LIMIT_MS of this thread's CPU time), and running over it is an error (RedactionTimeLimitError), never
 * a quiet redaction that would change a packet and its hash with the load.
 */

/**
 * Characters of work a line may take. The worst real line measured (a 285 KB one-line JSON transcript turn) reads
 * ~4.3 M; the pathological lines of bench:redact up to ~13.5 M (a 638 KB minified bundle). Over 32 M a line is
 * redacted as `limit`: at the slowest rates measured (~100 M per second of CPU for lines full of hits) that is about
 * 0.3 s, far below the last resort (bench:redact prints each line's work and time).
 */
export const DEFAULT_WORK_LIMIT = 32 * 1024 * 1024;
/**
 * Work charged per hit of a rule, besides the value it judges: the submatch extraction (RE2's NFA over the match, a
 * big program for the key-name rules) and the slices and calls around each check. Measured: ~15 µs per hit of
 * `secret_assignment`, about what 1,000 characters of a plain scan cost.
 */
const HIT_WORK = 1024;
/** Work charged per part of a view holding decoded newlines (each part is judged as a line). */
const PART_WORK = 64;
/** The old per-line budget; the last-resort time limit is ten times it. */
export const DEFAULT_TIME_BUDGET_MS = 100;
export const DEFAULT_TIME_LIMIT_MS = 10 * DEFAULT_TIME_BUDGET_MS;

/**
 * A line the gate could not finish within the last-resort time limit: an error for the caller (nothing is returned,
 * so nothing leaves unjudged), not a redaction, so a packet never differs by the machine's load.
 */
export class RedactionTimeLimitError extends Error {
  readonly code = 'REDACTION_TIME_LIMIT';
  readonly source: string;
  readonly line: number;
  readonly cpuMs: number;
  constructor(source: string, line: number, cpuMs: number) {
    super(`Redaction gate: line ${line} of ${source} took over ${Math.round(cpuMs)} ms of CPU (last-resort limit); nothing was returned`);
    this.name = 'RedactionTimeLimitError';
    this.source = source;
    this.line = line;
    this.cpuMs = cpuMs;
  }
}

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
/** A value under `data:` / `stringData:` of a Kubernetes Secret manifest (k8s-secret.ts). */
export const K8S_SECRET_RULE = { id: 'kubernetes_secret_data', type: 'k8s_secret' } as const;
/** A line over the work limit: redacted whole, the same on every machine. */
export const LIMIT_RULE = { id: 'redaction_limit', type: 'limit' } as const;
/** A line holding part of a value that started on an earlier line (multiline.ts). */
export const MULTILINE_RULE = { id: 'multiline_secret_value', type: 'password' } as const;

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

/** A line's work meter (workFrom): `spend` counts characters read and says whether the line is over the limit. */
interface Work {
  spend(n: number): boolean;
  over(): boolean;
  read(): number;
}

/** Thrown inside the gate when the last-resort time limit is passed; redactText turns it into RedactionTimeLimitError. */
class TimeLimitSignal extends Error {
  readonly ms: number;
  constructor(ms: number) {
    super('redaction time limit');
    this.ms = ms;
  }
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
  const workLimit = deps.workLimit ?? DEFAULT_WORK_LIMIT;
  const timeLimit = deps.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS;
  const clock = deps.clock ?? (() => performance.now());
  const cpuClock = deps.cpuClock !== undefined ? deps.cpuClock : deps.clock ? null : threadCpuMs();

  /**
   * One line's work meter. `spend(n)` counts n characters read and says whether the line is now over the work limit
   * (the input decides). Each call also checks the last-resort time limit: the wall clock first (no system call);
   * once a line is past the limit by it, this thread's CPU time from then on must pass the limit too, so a thread
   * starved by other processes or paused never trips it — only a line that really spent the time does.
   */
  function workFrom(): Work {
    const start = clock();
    let read = 0;
    let cpuMark: number | null = null;
    const spend = (n: number): boolean => {
      read += n;
      if (clock() - start > timeLimit) {
        if (!cpuClock) throw new TimeLimitSignal(clock() - start);
        if (cpuMark === null) cpuMark = cpuClock();
        else if (cpuClock() - cpuMark > timeLimit) throw new TimeLimitSignal(timeLimit + (cpuClock() - cpuMark));
      }
      return read > workLimit;
    };
    return { spend, over: () => spend(0), read: () => read };
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

  function realHits(c: CompiledRule, line: string, work: Work | null): MatchHit[] {
    const hits = c.matcher.findAll(line);
    if (hits.length === 0) return hits;
    const r = c.rule;
    // Each hit costs what its checks read: a fixed share for the slices and calls, plus its value.
    if (work) work.spend(hits.length * HIT_WORK);
    return hits.filter((h) => {
      if (r.minEntropy === undefined && !c.allow && !r.valueCheck) return true;
      const { value, key } = valueOf(r, h);
      if (work) work.spend(value.length + (key?.length ?? 0));
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
  function scan(line: string, work: Work): { verdict: Verdict; open: CompiledRule | null } | null {
    let lower: string | null = null;
    if (work.spend(line.length)) return { verdict: LIMIT_RULE, open: null };
    for (const i of candidates(line)) {
      // Each rule reads the line once (RE2: linear), plus the values its hits hand to the checks (bounded).
      if (work.spend(line.length)) return { verdict: LIMIT_RULE, open: null };
      const c = compiled[i];
      if (c.keywords) {
        lower ??= line.toLowerCase();
        const l = lower;
        if (!c.keywords.some((k) => l.includes(k))) continue;
      }
      const hits = realHits(c, line, work);
      if (work.over()) return { verdict: LIMIT_RULE, open: null };
      if (hits.length === 0) continue;
      let next: CompiledRule | null = null;
      if (c.blockEnd) {
        const ends = c.blockEnd.findAll(line);
        // Opens unless the block also closes later on this same line.
        if (maxIndex(ends) < maxIndex(hits)) next = c;
      }
      return { verdict: { id: c.rule.id, type: c.rule.type }, open: next };
    }
    if (work.over()) return { verdict: LIMIT_RULE, open: null };
    return null;
  }

  /** One piece of a view against the rules, continuing an open block. */
  function judge(part: string, block: CompiledRule | null, work: Work): { verdict: Verdict | null; block: CompiledRule | null } {
    if (block) {
      // Inside a private-key body: redacted regardless; only look for where it ends.
      const ends = (block.blockEnd as Matcher).findAll(part);
      let next: CompiledRule | null = block;
      if (ends.length > 0) {
        const reopened = realHits(block, part, null).some((h) => h.index > maxIndex(ends));
        next = reopened ? block : null;
      }
      return { verdict: { id: block.rule.id, type: block.rule.type }, block: next };
    }
    const found = scan(part, work);
    return found ? { verdict: found.verdict, block: found.open } : { verdict: null, block: null };
  }

  /** A view may hold decoded newlines (`\n` escapes): each part is judged in turn, carrying an open block. */
  function judgeView(view: string, block: CompiledRule | null, work: Work): { verdict: Verdict | null; block: CompiledRule | null } {
    if (!view.includes('\n')) return judge(view, block, work);
    let verdict: Verdict | null = null;
    let open = block;
    for (const part of view.split('\n')) {
      if (part.length === 0) continue; // nothing to match, nothing that ends a block
      // Each part is a line of its own to the rules: a share of work for the calls, whatever its length.
      if (work.spend(PART_WORK)) {
        verdict ??= LIMIT_RULE;
        break;
      }
      const r = judge(part, open, work);
      verdict ??= r.verdict;
      open = r.block;
      if (verdict === LIMIT_RULE) break;
    }
    return { verdict, block: open };
  }

  /** Verdict for one line and the state for the next. */
  function checkLine(line: string, hot: boolean, state: LineState, work: Work): { verdict: Verdict | null; state: LineState } {
    let pending = state.pending;
    let fromValue = false;
    try {
      if (pending) {
        work.spend(line.length);
        const c = continueValue(line, pending);
        fromValue = c.redact;
        pending = c.next;
      }
      if (!hot && !state.block) {
        const verdict = fromValue ? MULTILINE_RULE : state.pending && work.over() ? LIMIT_RULE : null;
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
        if (verdict === LIMIT_RULE || work.spend(piece.length)) {
          verdict = LIMIT_RULE;
          break;
        }
        const warm = hot && (!long || isHot(piece));
        if (!warm && !block) continue;
        const views = warm && mayDisguise(piece) ? canonicalViews(piece) : [];
        // Building the views read the piece once per view.
        if (views.length > 0 && work.spend(piece.length * views.length)) {
          verdict = LIMIT_RULE;
          break;
        }
        if (p === pieces.length - 1) lastViews = views;
        const raw = judgeView(piece, block, work);
        const before = block;
        verdict ??= raw.verdict;
        block = raw.block;
        for (const view of views) {
          if (verdict === LIMIT_RULE) break;
          const r = judgeView(view, before, work);
          verdict ??= r.verdict;
          block ??= r.block;
        }
      }
      if (hot && !pending && !fromValue) {
        // A sensitive key whose value continues on the following lines (judged in its canonical form too).
        // The whole line (detectOpening is RE2 and linear scans), and the last window's views.
        for (const form of [line, ...lastViews]) {
          // Counted, but never skipped: a value opening here must redact the lines that continue it (fail closed).
          work.spend(form.length);
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
      // The limit covers the whole line, not only the rules: views, multi-line state and value checks included.
      if (!verdict && work.over()) verdict = LIMIT_RULE;
      return { verdict, state: { block, pending } };
    } catch (err) {
      if (err instanceof TimeLimitSignal) throw err;
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
  function joinWrapped(lines: string[], verdicts: Array<Verdict | null>, source: string): void {
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
      // The joined check has a work limit of its own, like every line; over it, the first line is redacted as `limit`.
      const work = workFrom();
      let found: { verdict: Verdict; open: CompiledRule | null } | null = null;
      try {
        // Halves of a token read as random characters, not as names (`encodeOptions` ending a line of code).
        if (isWordy(tail) || isWordy(head)) continue;
        // Only a shape that needs both halves: a token complete on its own line does not spill onto the next.
        const alone = scan(tail, work) ?? scan(head, work);
        found = alone ? (alone.verdict === LIMIT_RULE ? alone : null) : scan(tail + head, work);
      } catch (err) {
        if (err instanceof TimeLimitSignal) throw new RedactionTimeLimitError(source, i + 1, err.ms);
        found = { verdict: ERROR_RULE, open: null };
      }
      if (found?.verdict === LIMIT_RULE) {
        verdicts[i] ??= LIMIT_RULE;
        continue;
      }
      if (!found || WRAP_IGNORES.has(found.verdict.id)) continue;
      verdicts[i] ??= found.verdict;
      verdicts[i + 1] ??= found.verdict;
    }
  }

  /** Name/value pairs across lines and values built from several literals (joined-lines.ts), judged as one line. */
  function judgeJoined(text: string, lines: string[], verdicts: Array<Verdict | null>, source: string): void {
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
        // The joined statement is judged under the same per-line work limit: over it, its lines are redacted as `limit`.
        found = scan(j.text, workFrom());
      } catch (err) {
        if (err instanceof TimeLimitSignal) throw new RedactionTimeLimitError(source, (j.lines[0] ?? 0) + 1, err.ms);
        found = { verdict: ERROR_RULE };
      }
      if (found) for (const i of j.lines) verdicts[i] ??= found.verdict;
    }
  }

  function redactText(text: string, ctx: RedactContext): RedactResult {
    const lines = text.split('\n');
    let hot: Uint8Array | null;
    try {
      // One RE2 pass over the whole text (linear); a scan that failed decides nothing: every line is judged itself.
      hot = hotLines(text, lines.length);
    } catch {
      hot = null;
    }
    const verdicts: Array<Verdict | null> = new Array(lines.length).fill(null);
    let state: LineState = { block: null, pending: null };
    for (let i = 0; i < lines.length; i++) {
      if (hot && hot[i] === 0 && !state.block && !state.pending) continue;
      const raw = lines[i];
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      let result: ReturnType<typeof checkLine>;
      const work = workFrom();
      try {
        result = checkLine(line, hot ? hot[i] === 1 : true, state, work);
      } catch (err) {
        if (err instanceof TimeLimitSignal) throw new RedactionTimeLimitError(ctx.source, i + 1, err.ms);
        throw err;
      }
      deps.onLineWork?.(i + 1, work.read());
      state = result.state;
      verdicts[i] = result.verdict;
    }
    joinWrapped(lines, verdicts, ctx.source);
    judgeJoined(text, lines, verdicts, ctx.source);
    try {
      for (const i of kubernetesSecretLines(lines, text)) verdicts[i] ??= K8S_SECRET_RULE;
    } catch {
      // an extra pass, like the joined lines: every line has been judged on its own already
    }
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
