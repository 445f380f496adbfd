/*
 * Token bodies written by hand. A provider shape (`ghp_…`, `AKIA…`, `glpat-…`) proves the format, not that the
 * characters after the prefix came from a generator: docs fill the format with the placeholder letter
 * (`ghp_xxxx…`, `AKIAXXXX…`, `glpat-XXXX…`) or with `#` / `*`, and write credentials by hand in alphabet order
 * (`sk_abcdefghijklmnopqrstuvwxyz123`, `dapi1234567890…`).
 * Deliberately not here: any repeated letter or a repeated unit. Peer scanners' own positives use them
 * (secretlint: `sk_test_BBBB…`, `tskey-api-AAAA…`; gitleaks: `AGE-SECRET-KEY-1QQQQ…`, `…EXAMPLEEXAMPLE…`), so only
 * `x` — the letter docs write for "a character goes here" — counts as filler.
 */

// The next character when typing the alphabet or the digits in order (9 runs on to 0, as on a keyboard row).
const NEXT: Record<string, string> = {};
for (const row of ['abcdefghijklmnopqrstuvwxyz', '01234567890']) for (let i = 0; i + 1 < row.length; i++) NEXT[row[i]!] = row[i + 1]!;

/** Letters and digits typed in order (`abcdef`, `aBcDeF`, `aAbBcC` with case pairs read as one letter, `7890123`). */
function orderedRuns(segment: string): number[] {
  // Case pairs (`aA`, `Bb`) fold into one letter; other repeats do not count as steps.
  const folded: string[] = [];
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    const prev = segment[i - 1];
    if (prev !== undefined && prev !== c && prev.toLowerCase() === c.toLowerCase()) folded[folded.length - 1] += c;
    else folded.push(c);
  }
  const runs: number[] = [];
  let chars = folded[0]?.length ?? 0;
  let len = 1;
  for (let i = 1; i <= folded.length; i++) {
    if (i < folded.length && NEXT[folded[i - 1]!.slice(-1).toLowerCase()] === folded[i]![0]!.toLowerCase()) {
      len++;
      chars += folded[i]!.length;
      continue;
    }
    if (len >= 3) runs.push(chars);
    if (i < folded.length) {
      len = 1;
      chars = folded[i]!.length;
    }
  }
  return runs;
}

/**
 * Share of the letters and digits inside runs of 3+ typed in order, and the longest run; runs stop at separators
 * (`abcd/efgh` is two runs of 4).
 */
export function orderedShare(value: string): { share: number; longest: number } {
  let total = 0;
  let inRuns = 0;
  let longest = 0;
  for (const seg of value.match(/[A-Za-z0-9]+/g) ?? []) {
    total += seg.length;
    for (const n of orderedRuns(seg)) {
      inRuns += n;
      if (n > longest) longest = n;
    }
  }
  return { share: total === 0 ? 0 : inRuns / total, longest };
}

/**
 * A credential typed in alphabet or digit order (`sk_abcdefghijklmnopqrstuvwxyz123`, `dapi1234567890…`): a run of 6+
 * and 30 % or more of the body in such runs. A generator gives a run of 3 at a position with odds ~1/16² for hex,
 * ~1/62² otherwise, and a run of 6 almost never.
 */
export function typedInOrder(value: string): boolean {
  const { share, longest } = orderedShare(value);
  return longest >= 6 && share >= 0.3;
}

/** Filler that is never part of a generated token: `####`, `****`, a run of six `x` / `X`. */
const FILLER = /#{4,}|\*{4,}|x{6,}|X{6,}/;

/**
 * A token body (prefix included) made by hand: filler, one or two characters repeated, or a repeated unit. Judged on
 * 12+ letters and digits; shorter values are left to the rule's own shape.
 */
export function isPlaceholderToken(value: string): boolean {
  // A URL (`hooks.slack.com/services/TXXXXX/…`) is judged by its host and path, not as a token body.
  return !value.includes('/') && FILLER.test(value);
}
