import { describe, expect, it } from 'vitest';
import { anchoredPath, provenance } from './provenance.ts';

describe('provenance', () => {
  it('joins path, anchor and lines; drops the # without an anchor', () => {
    expect(provenance({ path: 'docs/a.md', anchor: 'setup', lineStart: 3, lineEnd: 9 })).toBe('docs/a.md#setup:3-9');
    expect(provenance({ path: 'src/x.ts', anchor: '', lineStart: 1, lineEnd: 1 })).toBe('src/x.ts:1-1');
    expect(anchoredPath('a.md', null)).toBe('a.md');
  });
});
