import RE2 from 're2';
import type { CompileFn, CompileSetFn, MatchHit, Matcher, MatcherSet } from './types.ts';

/** Flags RE2 understands inline; `g`/`u`/`y` make no sense per rule and are dropped. */
function inlineFlags(flags: string): string {
  return [...new Set(flags)].filter((f) => f === 'i' || f === 's' || f === 'm').join('');
}

function withInlineFlags(source: string, flags: string): string {
  const inline = inlineFlags(flags);
  return inline ? `(?${inline})${source}` : source;
}

/** Compiles with RE2 (linear time, no backtracking). Throws RE2's own error on unsupported syntax. */
export const compileRe2: CompileFn = (source, flags) => {
  const re = new RE2(withInlineFlags(source, flags), 'g');
  return {
    findAll(line: string): MatchHit[] {
      const hits: MatchHit[] = [];
      re.lastIndex = 0;
      for (let m = re.exec(line); m !== null; m = re.exec(line)) {
        let value: string = m[0];
        for (let g = 1; g < m.length; g++) {
          const group = m[g];
          if (group !== undefined && group !== null) {
            value = group;
            break;
          }
        }
        const groups: Array<string | undefined> = [];
        for (let g = 1; g < m.length; g++) groups.push(m[g] ?? undefined);
        hits.push({ index: m.index, value, groups, end: m.index + m[0].length });
        // An empty match would never advance lastIndex on its own.
        if (m[0].length === 0) re.lastIndex = m.index + 1;
        if (re.lastIndex > line.length) break;
      }
      return hits;
    },
  } satisfies Matcher;
};

/**
 * One RE2.Set for all rules: a single native call per line instead of one per
 * rule (measured ~50x faster for ~100 rules). RE2.Set throws if matching fails
 * (e.g. out of DFA memory), which the gate turns into a redaction.
 */
export const compileRe2Set: CompileSetFn = (patterns) => {
  const set = new RE2.Set(
    patterns.map((p) => withInlineFlags(p.source, p.flags)),
    { maxMem: 64 * 1024 * 1024 },
  );
  return {
    match(line: string): number[] {
      return set.match(line);
    },
  } satisfies MatcherSet;
};
