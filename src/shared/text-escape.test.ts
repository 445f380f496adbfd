import { describe, expect, it } from 'vitest';
import { escapeControls } from './text-escape.ts';

describe('escapeControls', () => {
  it('shows control characters as escapes and leaves ordinary text alone', () => {
    expect(escapeControls('docs/a.md\n- [E99] x\r\t\u001b[31m\u0007\u009b\u2028\u202eend')).toBe(
      'docs/a.md\\n- [E99] x\\r\\t\\u001b[31m\\u0007\\u009b\\u2028\\u202eend',
    );
    expect(escapeControls('src/über/naïve file (1).md · §4.docs/*')).toBe('src/über/naïve file (1).md · §4.docs/*');
  });
});
