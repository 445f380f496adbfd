import { describe, expect, it } from 'vitest';
import { getDefaultRedactor } from '../redact/index.ts';
import { createCompressor } from './compress.ts';
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
});
