import { describe, expect, it } from 'vitest';
import { getDefaultRedactor } from '../redact/index.ts';
import { createCompressor, EXCERPT_LINES, regainExcerpts } from './compress.ts';
import { Gate, type Item } from './items.ts';

const item = (source: string, text: string): Item => ({ id: source, kind: 'evidence', section: 'INTEL', group: 'evidence', source, score: 0.3, ts: null, text, redactedLines: 0 });

describe('compress before drop', () => {
  const compress = createCompressor(new Gate(getDefaultRedactor(), null), 'retry backoff');
  const body = ['  Retries back off exponentially.', '  The first wait is short.', '  Backoff is capped at a minute.', '  Nothing else matters here.'].join('\n');

  it('keeps prose evidence as its provenance line and its key sentences', () => {
    const c = compress(item('docs/retry.md#retries:1-4', `- [E1] docs/retry.md#retries:1-4 · score 0.300\n${body}`))!;
    expect(c.compressed).toBe(true);
    expect(c.text).toBe('- [E1] docs/retry.md#retries:1-4 · score 0.300\n  (compressed: 2 of 4 sentences)\n  • Retries back off exponentially.\n  • Backoff is capped at a minute.');
  });

  it('keeps code evidence (source or test) as its provenance line alone, saying so', () => {
    const code = ['  def retry(fn):', '      # backoff: retry with a growing wait', '      for i in range(5):', '          sleep(2 ** i)'].join('\n');
    for (const src of ['src/retry.py#retry:10-13', 'tests/test_retry.py#test_retry:1-4']) {
      const c = compress(item(src, `- [E2] ${src} · score 0.300\n${code}`))!;
      expect(c).toMatchObject({ compressed: true, text: `- [E2] ${src} · score 0.300 (compressed to its pointer)` });
    }
    // Not evidence (a decision), or nothing to compress: as before.
    expect(compress({ ...item('DEC-1', `- DEC-1 Retry\n${body}`), kind: 'decision' })!.text).toContain('(compressed: 2 of 4 sentences)');
    expect(compress(item('src/a.py#a:1-1', '- [E3] src/a.py#a:1-1'))).toBeNull();
  });

  // A 30-line function where only line 120 (its 21st) says what the query asks about.
  const fn = Array.from({ length: 30 }, (_, i) => (i === 20 ? '      wait = min(wait * 2, cap)  # backoff' : `      step_${i} = run(${i})`));
  const long = (src: string, score = 0.3): Item => ({ ...item(src, [`- [E4] ${src} · score ${score.toFixed(3)}`, ...fn.map((l) => `  ${l}`)].join('\n')), score });

  it('gives code evidence an excerpt: the lines that match the query, with their own line numbers', () => {
    const e = compress.excerpt!(long('src/retry.py#retry:100-129'))!;
    expect(e).toMatchObject({ compressed: true, shown: '118-122' });
    const [head, ...rest] = e.text.split('\n');
    expect(head).toBe('- [E4] src/retry.py#retry:100-129 · score 0.300 (compressed to lines 118-122)');
    // Lines 118–122 of the file: the body's 19th to 23rd lines, unchanged.
    expect(rest).toEqual(fn.slice(18, 23).map((l) => `  ${l}`));
    // Compressed again (the packet still over budget), an excerpt becomes its pointer, and a pointer stays.
    const p = compress(e)!;
    expect(p.text).toBe('- [E4] src/retry.py#retry:100-129 · score 0.300 (compressed to its pointer)');
    expect(p.shown).toBeUndefined();
    expect(compress(p)).toBeNull();
    // No line matches, prose, or a body that is not the span's lines: no excerpt.
    expect(compress.excerpt!(item('src/a.py#a:1-2', '- [E5] src/a.py#a:1-2\n  x = 1\n  y = 2'))).toBeNull();
    expect(compress.excerpt!(item('docs/retry.md#retries:1-4', `- [E1] docs/retry.md#retries:1-4\n${body}`))).toBeNull();
    expect(compress.excerpt!(long('src/retry.py#retry:100-101'))).toBeNull();
  });

  it('an excerpt of several windows keeps them apart and stays within its line cap', () => {
    const lines = Array.from({ length: 60 }, (_, i) => (i % 20 === 5 ? `  retry_backoff(${i})` : `  other(${i})`));
    const e = compress.excerpt!(item('src/r.py#r:1-60', ['- [E6] src/r.py#r:1-60', ...lines].join('\n')))!;
    expect(e.shown).toBe('4-8,24-28');
    expect(e.text.split('\n').filter((l) => l === '  ⋯')).toHaveLength(1);
    expect(e.text.split('\n').length - 2).toBeLessThanOrEqual(EXCERPT_LINES);
  });

  it('regains excerpts for the best pointers while the layout still fits, and leaves items shown whole alone', () => {
    const whole = long('src/a.py#a:1-30', 0.9);
    const originals = [long('src/b.py#b:1-30', 0.2), long('src/c.py#c:1-30', 0.5), long('src/d.py#d:1-30', 0.4)];
    const pointers = originals.map((o) => compress(o)!);
    const list = [whole, ...pointers];
    const size = () => list.reduce((n, i) => n + i.text.length, 0);
    // Room for exactly one excerpt: it goes to the best of the three (c, 0.5).
    const room = size() + compress.excerpt!(originals[1]!)!.text.length - pointers[1]!.text.length;
    const swapped: string[] = [];
    regainExcerpts(list, new Map(pointers.map((p, i) => [p, originals[i]!])), compress, () => size() <= room, (x) => swapped.push(x.id));
    expect(list[0]).toBe(whole);
    expect(list.map((i) => i.shown ?? null)).toEqual([null, null, '19-23', null]);
    expect(list[2]!.text).toContain('(compressed to lines 19-23)');
    expect(size()).toBeLessThanOrEqual(room);
    // Best first; d's and b's excerpts were tried and taken back.
    expect(swapped).toEqual(['src/c.py#c:1-30', 'src/d.py#d:1-30', 'src/d.py#d:1-30', 'src/b.py#b:1-30', 'src/b.py#b:1-30']);
  });
});
