import { describe, expect, it } from 'vitest';
import { buildLeakCorpus } from './fake-secrets.testkit.ts';
import { compileRe2 } from './re2-compile.ts';
import { createRedactor } from './redactor.ts';

/*
 * The keyword prefilter (prefilter.ts) may only skip work, never change a verdict: the default gate and a gate that
 * runs every rule on every line (an injected compiler turns the prefilter off) must give the same text for secrets,
 * disguises and ordinary code alike.
 */

const ORDINARY = [
  'const key = instance.options.getItemKey(index)',
  'Object.keys(STATUS_CODES).forEach((code) => codes.push(code));',
  '  password: z.string().min(12),',
  '| Option | Type | Description |',
  'export HTTP_PROXY="http://proxy.internal:3128"',
  '/** @param token the bearer token @returns the user */',
  "it('rejects a wrong password', async () => { await login('bob', 'nogood'); });",
].join('\n');

describe('prefilter soundness', () => {
  it('gives the same verdicts as running every rule on every line', () => {
    // The every-rule gate reads far more per line: a work limit it cannot reach, so verdicts are compared, not limits.
    const fast = createRedactor({ workLimit: Number.MAX_SAFE_INTEGER });
    const full = createRedactor({ compile: compileRe2, workLimit: Number.MAX_SAFE_INTEGER });
    const corpus = buildLeakCorpus(31337).filter((_, i) => i % 3 === 0);
    const texts = [...corpus.map((c) => c.text), ORDINARY, `tok\u200ben ghp_${'a1B2'.repeat(9)}`, '{"k": "\\u0041KIAABCDEFGHIJKLMNOP"}'];
    const ctx = { source: 'prefilter.test', section: 'TEST' };
    const differ: string[] = [];
    for (const t of texts) {
      const a = fast.redactText(t, ctx).text;
      const b = full.redactText(t, ctx).text;
      if (a !== b) differ.push(`${t.slice(0, 80)}\n--- prefilter:\n${a}\n--- every rule:\n${b}`);
    }
    expect(differ.slice(0, 3)).toEqual([]);
    expect(texts.length).toBeGreaterThan(400);
  }, 60_000);
});
