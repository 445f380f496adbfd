import { shannonEntropy } from './entropy.ts';
import { compileRe2, compileRe2Set } from './re2-compile.ts';
import { BUILTIN_RULES } from './rules.ts';
import { validateUserPattern } from './user-patterns.ts';
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

/** Rule ids used when the gate fails closed rather than on a pattern match. */
export const ERROR_RULE = { id: 'redaction_error', type: 'error' } as const;
export const TIMEOUT_RULE = { id: 'redaction_timeout', type: 'timeout' } as const;

export function redactionMarker(type: string): string {
  return `[REDACTED: ${type}]`;
}

interface CompiledRule {
  rule: RedactionRule;
  matcher: Matcher;
  keywords: string[] | null;
  allow: Matcher | null;
  blockEnd: Matcher | null;
}

interface Verdict {
  id: string;
  type: string;
}

function compileRule(rule: RedactionRule, compile: (s: string, f: string) => Matcher): CompiledRule {
  const at = (what: string, fn: () => Matcher): Matcher => {
    try {
      return fn();
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`Redaction rule "${rule.id}": ${what} does not compile: ${reason}`);
    }
  };
  return {
    rule,
    matcher: at('pattern', () => compile(rule.pattern, rule.flags ?? '')),
    keywords: rule.keywords && rule.keywords.length > 0 ? rule.keywords.map((k) => k.toLowerCase()) : null,
    allow: rule.allowValue ? at('allowValue', () => compile(rule.allowValue as string, 'i')) : null,
    blockEnd: rule.blockEnd ? at('blockEnd', () => compile(rule.blockEnd as string, rule.flags ?? '')) : null,
  };
}

const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;

/** Byte-wise %XX decoding that cannot throw (decodeURIComponent does on malformed input). */
function percentDecode(line: string): string {
  return line.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

function maxIndex(hits: readonly MatchHit[]): number {
  let max = -1;
  for (const h of hits) if (h.index > max) max = h.index;
  return max;
}

/**
 * The redaction gate. Every line is checked against the rules in order; the
 * first rule that fires replaces the whole line with `[REDACTED: <type>]`.
 * Fail-closed: a throwing matcher or a line whose checks exceed the time
 * budget is redacted too.
 */
export function createRedactor(deps: RedactorDeps = {}): Redactor {
  const compile = deps.compile ?? compileRe2;
  const compileSet = deps.compileSet ?? (deps.compile ? null : compileRe2Set);
  const budget = deps.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS;
  const clock = deps.clock ?? (() => performance.now());
  const now = deps.now ?? (() => new Date());

  const compiled: CompiledRule[] = (deps.rules ?? BUILTIN_RULES).map((r) => compileRule(r, compile));
  let prefilter: MatcherSet | null = null;

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
  }

  for (const p of deps.userPatterns ?? []) addUserPattern(p);

  function candidates(line: string): number[] {
    if (!compileSet) return compiled.map((_, i) => i);
    prefilter ??= compileSet(compiled.map((c) => ({ source: c.rule.pattern, flags: c.rule.flags ?? '' })));
    return prefilter.match(line).sort((a, b) => a - b);
  }

  function realHits(c: CompiledRule, line: string): MatchHit[] {
    const hits = c.matcher.findAll(line);
    if (hits.length === 0) return hits;
    return hits.filter((h) => {
      if (c.rule.minEntropy !== undefined && shannonEntropy(h.value) < c.rule.minEntropy) return false;
      if (c.allow && c.allow.findAll(h.value).length > 0) return false;
      return true;
    });
  }

  /** First rule that fires on the line, or null; also reports whether it opens a block. */
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

  /** Returns the verdict for one line and the block state for the next. */
  function checkLine(line: string, open: CompiledRule | null): { verdict: Verdict | null; open: CompiledRule | null } {
    const start = clock();
    const overBudget = () => clock() - start > budget;
    try {
      if (open) {
        // Inside a private-key body: redacted regardless; only look for where it ends.
        const ends = (open.blockEnd as Matcher).findAll(line);
        let next: CompiledRule | null = open;
        if (ends.length > 0) {
          const reopened = realHits(open, line).some((h) => h.index > maxIndex(ends));
          next = reopened ? open : null;
        }
        return { verdict: { id: open.rule.id, type: open.rule.type }, open: next };
      }

      const found = scan(line, overBudget);
      if (found || !PERCENT_ESCAPE.test(line)) return found ?? { verdict: null, open: null };
      // Secrets in query strings arrive percent-encoded (%2F, %3A): look at the decoded line too.
      return scan(percentDecode(line), overBudget) ?? { verdict: null, open: null };
    } catch {
      // Keep an open block open: the body is still being redacted either way.
      return { verdict: ERROR_RULE, open };
    }
  }

  function redactText(text: string, ctx: RedactContext): RedactResult {
    const lines = text.split('\n');
    const redactions: RedactionEvent[] = [];
    let open: CompiledRule | null = null;
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i];
      const crlf = raw.endsWith('\r');
      const line = crlf ? raw.slice(0, -1) : raw;
      const result = checkLine(line, open);
      open = result.open;
      if (!result.verdict) continue;
      lines[i] = redactionMarker(result.verdict.type) + (crlf ? '\r' : '');
      redactions.push({
        ts: now().toISOString(),
        pattern: result.verdict.id,
        type: result.verdict.type,
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

/** Shared redactor with the built-in rules only (compiling ~100 RE2 patterns is not free). */
export function getDefaultRedactor(): Redactor {
  defaultRedactor ??= createRedactor();
  return defaultRedactor;
}
