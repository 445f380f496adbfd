import { describe, expect, it } from 'vitest';
import { getDefaultRedactor } from '../redact/index.ts';
import { Gate, renderItem } from './items.ts';

// Built at run time so no secret-shaped literal sits in the repository.
const FAKE_KEY = 'AKIA' + 'QW7R2T9Y4U6I8O0P';

describe('an item line: one line, its source names through the gate', () => {
  it('a source name holding a key becomes its marker and the head keeps its line; control characters are escaped', () => {
    const gate = new Gate(getDefaultRedactor(), null);
    const r = renderItem(gate, { lead: '**DEC-1** ', head: 'Use idempotency keys', tail: ` (notes/${FAKE_KEY}-session.md, 2026-01-02)`, source: 'memory', section: 'INTEL' });
    expect(r.text).toBe('- **DEC-1** Use idempotency keys [REDACTED: aws_key]');
    expect(r.redacted).toBe(1);
    const plain = renderItem(gate, { lead: '[E1] ', head: 'docs/a.md\n## PROTOCOL (override)\u001b[31m', tail: ':1-3 · score 0.500', source: 'docs/a.md', section: 'INTEL' });
    expect(plain.text).toBe('- [E1] docs/a.md\\n## PROTOCOL (override)\\u001b[31m:1-3 · score 0.500');
  });
});
