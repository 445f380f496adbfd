import RE2 from 're2';
import { BASE64_OF_TEXT } from './normalize.ts';
import type { RedactionRule } from './types.ts';

/*
 * The keyword prefilter, as gitleaks does it, in two steps:
 * 1. One pass over the whole text finds the *hot* lines: those holding a keyword of any rule, the trigger of a
 *    rule without keywords, or the mark of a possible disguise (non-ASCII, string escapes, character references,
 *    percent-encoding). Only the keywords no other keyword is a substring of are needed for this (any `key…`
 *    contains `key`). A line none of these touch cannot match any rule in any view, and is skipped.
 * 2. For a hot line (or one of its views), one RE2.Set call over the lower-cased text names the keywords present;
 *    the candidate rules are the rules of those keywords plus the rules without keywords, in rule order. Rules
 *    whose keywords are everyday words (`key`, `token`, `pass`…) or that have none would be candidates on most hot
 *    lines, so one more RE2.Set over just their patterns (a few dozen, small enough for RE2's DFA) keeps those
 *    that can match.
 * Both steps are RE2 (linear time). After a hit the scan resumes at the next line (one hit per line is enough), so
 * a match can never hide a later line's trigger.
 */

export interface Prefilter {
  /** 1 for each line of `text.split('\n')` that may hold a secret. */
  hotLines(text: string, lineCount: number): Uint8Array;
  /** Indexes (into the rule list) of the rules worth running on this line, ascending. */
  candidates(line: string): number[];
}

// Lines that may hold a disguised secret (normalize.ts): non-ASCII, escapes, entities, percent-encoding.
const DISGUISE = ['[^\\x00-\\x7F]', '\\\\(?:u\\{?[0-9A-Fa-f]|x[0-9A-Fa-f]{2}|/)', '&(?:#|[a-z]+;)', '%[2-7][0-9A-Fa-f]'];
// And a run that may be base64 of text (normalize.ts BASE64_OF_TEXT), scanned on its own: in the trigger
// alternation its DFA slowed the whole scan by a quarter.

function escapeLiteral(s: string): string {
  return s.replace(/[\\^$.|?*+()[\]{}]/g, (c) => `\\${c}`);
}

function triggerOf(rule: RedactionRule): string {
  const source = rule.trigger ?? rule.pattern;
  const inline = [...new Set(rule.flags ?? '')].filter((f) => f === 'i' || f === 's').join('');
  return inline ? `(?${inline}:${source})` : `(?:${source})`;
}

/** Keywords that contain no other keyword: enough to decide whether a line holds any keyword at all. */
function minimalKeywords(keywords: readonly string[]): string[] {
  const sorted = [...keywords].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const k of sorted) if (!kept.some((s) => k.includes(s))) kept.push(k);
  return kept;
}

function scanHot(re: InstanceType<typeof RE2>, buf: Buffer, hot: Uint8Array): void {
  const exec = re.exec.bind(re) as unknown as (b: Buffer) => RegExpExecArray | null;
  let line = 0;
  let lineEnd = buf.indexOf(10, 0); // end of the current line (-1: last line)
  re.lastIndex = 0;
  for (let m = exec(buf); m !== null; m = exec(buf)) {
    while (lineEnd !== -1 && lineEnd < m.index) {
      line++;
      lineEnd = buf.indexOf(10, lineEnd + 1);
    }
    hot[line] = 1;
    if (lineEnd === -1) break;
    re.lastIndex = lineEnd + 1; // one hit marks the line: resume at the next line's start
  }
}

/** Keywords common enough in ordinary code that their rules go through the pattern set as well. */
const EVERYDAY = ['key', 'token', 'pass', 'pwd', 'pw', 'secret', 'cred', 'auth', 'conn', '://', '@', '--', 'private', 'account', 'http', 'login', 'machine', 'uid', 'eth', 'seed', 'sig='];

export function createPrefilter(rules: readonly RedactionRule[]): Prefilter {
  const keywordList: string[] = [];
  const keywordRules: number[][] = [];
  const always: number[] = [];
  const triggers: string[] = [];
  const indexOf = new Map<string, number>();
  rules.forEach((r, i) => {
    if (!r.keywords || r.keywords.length === 0) {
      always.push(i);
      triggers.push(triggerOf(r));
      return;
    }
    for (const raw of new Set(r.keywords.map((k) => k.toLowerCase()))) {
      let at = indexOf.get(raw);
      if (at === undefined) {
        at = keywordList.length;
        indexOf.set(raw, at);
        keywordList.push(raw);
        keywordRules.push([]);
      }
      keywordRules[at]!.push(i);
    }
  });

  // Keywords are matched in lower-cased text (faster than (?i) in RE2's DFA); triggers in the text as written.
  const hotWords = minimalKeywords(keywordList).sort((a, b) => b.length - a.length).map(escapeLiteral);
  const wordScan = hotWords.length > 0 ? new RE2(hotWords.join('|'), 'g') : null;
  const markScan = new RE2(`(?m)${[...triggers, ...DISGUISE].join('|')}`, 'g');
  const base64Scan = new RE2(BASE64_OF_TEXT, 'g');
  const wordSet = keywordList.length > 0 ? new RE2.Set(keywordList.map(escapeLiteral), { anchor: 'unanchored' }) : null;
  const mark = new Uint8Array(rules.length);

  // The rules on (nearly) every hot line: no keywords, or an everyday one. Their patterns form one RE2.Set.
  const busy = rules
    .map((r, i) => ({ r, i }))
    .filter(({ r }) => !r.keywords || r.keywords.length === 0 || r.keywords.some((k) => EVERYDAY.includes(k.toLowerCase())));
  const busyIndex = new Int32Array(rules.length).fill(-1);
  busy.forEach(({ i }, j) => (busyIndex[i] = j));
  const busySet =
    busy.length > 0
      ? new RE2.Set(
          busy.map(({ r }) => {
            const inline = [...new Set(r.flags ?? '')].filter((f) => f === 'i' || f === 's').join('');
            return inline ? `(?${inline})${r.pattern}` : r.pattern;
          }),
          { maxMem: 64 * 1024 * 1024 },
        )
      : null;
  const busyHit = new Uint8Array(busy.length);

  return {
    hotLines(text, lineCount) {
      const hot = new Uint8Array(lineCount);
      // UTF-8 buffers, so RE2 never converts the string again per call; lower-casing never moves a newline.
      if (wordScan) scanHot(wordScan, Buffer.from(text.toLowerCase(), 'utf8'), hot);
      const utf8 = Buffer.from(text, 'utf8');
      scanHot(markScan, utf8, hot);
      scanHot(base64Scan, utf8, hot);
      return hot;
    },
    candidates(line) {
      const found = wordSet ? wordSet.match(line.toLowerCase()) : [];
      const out: number[] = [];
      for (const k of found) {
        for (const i of keywordRules[k]!) {
          if (mark[i] === 1) continue;
          mark[i] = 1;
          out.push(i);
        }
      }
      for (const i of always) {
        if (mark[i] === 1) continue;
        mark[i] = 1;
        out.push(i);
      }
      for (const i of out) mark[i] = 0;
      if (out.length === 0) return out;
      // Busy rules run only where their pattern can match; the set is asked only when one of them is a candidate.
      let kept = out;
      if (busySet && out.some((i) => busyIndex[i]! >= 0)) {
        for (const j of busySet.match(line)) busyHit[j] = 1;
        kept = out.filter((i) => busyIndex[i]! < 0 || busyHit[busyIndex[i]!] === 1);
        busyHit.fill(0);
      }
      return kept.sort((x, y) => x - y);
    },
  };
}
