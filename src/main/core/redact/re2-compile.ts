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

/**
 * A line longer than this is matched as a UTF-8 Buffer made once. node-re2 converts a string argument to UTF-8 on
 * every `exec`, so walking the hits of a string costs the whole line per hit: quadratic for a long line full of
 * hits (60,000 `password=x` in one line took seconds). On a Buffer each exec starts at lastIndex.
 */
const BUFFER_FROM = 1024;

/** UTF-16 index of a UTF-8 byte offset, walked forward only (hits come in order), so all of a line's hits cost one pass. */
function utf16Cursor(buf: Buffer): (byte: number) => number {
  let bytePos = 0;
  let charPos = 0;
  return (byte) => {
    while (bytePos < byte) {
      const lead = buf[bytePos]!;
      const len = lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
      charPos += len === 4 ? 2 : 1;
      bytePos += len;
    }
    return charPos;
  };
}

/** A compiler that matches lines longer than `bufferFrom` as a Buffer (the tests compare both paths). */
export const compileRe2From = (bufferFrom: number): CompileFn => (source, flags) => {
  const re = new RE2(withInlineFlags(source, flags), 'g');
  const execBuf = re.exec.bind(re) as unknown as (b: Buffer) => Array<Buffer | undefined> & { index: number } | null;

  function fromBuffer(line: string): MatchHit[] {
    const buf = Buffer.from(line, 'utf8');
    const ascii = buf.length === line.length;
    const at = ascii ? (b: number) => b : utf16Cursor(buf);
    const text = (b: Buffer) => b.toString(ascii ? 'latin1' : 'utf8');
    const hits: MatchHit[] = [];
    re.lastIndex = 0;
    for (let m = execBuf(buf); m !== null; m = execBuf(buf)) {
      const whole = m[0]!;
      let value: string | undefined;
      const groups: Array<string | undefined> = [];
      for (let g = 1; g < m.length; g++) {
        const group = m[g];
        const s = group === undefined || group === null ? undefined : text(group);
        groups.push(s);
        if (value === undefined && s !== undefined) value = s;
      }
      const index = at(m.index);
      hits.push({ index, value: value ?? text(whole), groups, end: at(m.index + whole.length) });
      if (whole.length === 0) re.lastIndex = m.index + 1;
      if (re.lastIndex > buf.length) break;
    }
    return hits;
  }

  return {
    findAll(line: string): MatchHit[] {
      if (line.length > bufferFrom) return fromBuffer(line);
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

/** Compiles with RE2 (linear time, no backtracking). Throws RE2's own error on unsupported syntax. */
export const compileRe2: CompileFn = compileRe2From(BUFFER_FROM);

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
