import { describe, expect, it } from 'vitest';
import { createRng } from './fake-secrets.testkit.ts';
import { compileRe2From } from './re2-compile.ts';
import { BUILTIN_RULES } from './rules.ts';

/*
 * A long line is matched as a Buffer (linear in its hits, not quadratic); a short one as a string. Both paths must
 * give the same hits — UTF-16 offsets, values and groups — on ASCII, non-ASCII and astral text alike.
 */
describe('Buffer and string matching agree', () => {
  const viaBuffer = compileRe2From(0);
  const viaString = compileRe2From(Number.POSITIVE_INFINITY);
  const r = createRng(4242);
  const pieces = [
    'password=x ', 'token: "Zr8qLm2Wx9pT4vB6" ', 'ghp_' + 'aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5', ' é ', 'ｐａｓｓ ', '😀', '\u00a0',
    'AKIAABCDEFGHIJKLMNOP ', 'postgres://u:Zr8qLm2Wx9@db/x ', '漢字 ', 'key = "😀Zr8qLm2Wx9pT4vB6" ', '\\u0041 ', 'a',
  ];
  const lines = Array.from({ length: 40 }, () => Array.from({ length: r.int(1, 200) }, () => r.pick(pieces)).join(''));
  const rules = BUILTIN_RULES.filter((_, i) => i % 7 === 0).concat(BUILTIN_RULES.filter((x) => /secret_assignment|password_in_prose|email|connection_string/.test(x.id)));

  it.each(rules.map((x) => [x.id, x] as const))('%s', (_id, rule) => {
    const b = viaBuffer(rule.pattern, rule.flags ?? '');
    const s = viaString(rule.pattern, rule.flags ?? '');
    for (const line of lines) expect(b.findAll(line)).toEqual(s.findAll(line));
  });

  it('finds hits in a long line with many of them, at their UTF-16 offsets', () => {
    const line = 'é😀 password=x '.repeat(20_000);
    const m = viaBuffer('password=(\\w)', '');
    const hits = m.findAll(line);
    expect(hits).toHaveLength(20_000);
    expect(hits[1]).toEqual({ index: 15 + 4, value: 'x', groups: ['x'], end: 15 + 14 });
    expect(line.slice(hits[19_999]!.index, hits[19_999]!.end)).toBe('password=x');
  });
});
