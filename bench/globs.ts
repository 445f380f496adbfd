// npm run bench:globs
// Path-glob matching time against file names of growing length, on the patterns that backtrack as regular
// expressions (issue #22: `*L*L*L*L*L*L*z` against a 250-character name ran over 60 s). Linear matching shows as a
// time per match that doubles (at most) when the name doubles. The last line times ordinary globs on ordinary paths. Also measured: the `ignore` package that compiles
// .gitignore / .contextpackignore rules during ingest, on the same patterns.
import ignore from 'ignore';
import { globMatches } from '../src/shared/globs.ts';

const PATTERNS = ['*L*L*L*L*L*L*z', '**/*L*L*L*L*L*L*L*L*.x', '**/**/**/**/**/**/**/z', '*?*?*?*?*?*?*?*?z', '[L]*[L]*[L]*[L]*[L]*[L]*z'];
const LENGTHS = [64, 128, 250, 512, 1024];

function time(fn: () => void): number {
  // Best of several rounds of enough calls to measure: microseconds per call.
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    let n = 0;
    const t0 = performance.now();
    do {
      fn();
      n++;
    } while (performance.now() - t0 < 20);
    best = Math.min(best, ((performance.now() - t0) * 1000) / n);
  }
  return best;
}

const pathOf = (n: number, slashy: boolean) => (slashy ? `${'L/'.repeat(n / 2)}y` : `docs/${'L'.repeat(n)}.md`);
let worstRatio = 0;
let worstUs = 0;
for (const engine of ['globs.ts', 'ignore'] as const) {
  console.log(`${engine}: µs per match by name length ${LENGTHS.join(' / ')}`);
  for (const pattern of PATTERNS) {
    const slashy = pattern.startsWith('**/**');
    const ig = ignore().add(pattern);
    const us = LENGTHS.map((n) => {
      const p = pathOf(n, slashy);
      // `ignore` caches its answer per path: each call gets a path of its own (same length class).
      let i = 0;
      return time(engine === 'ignore' ? () => ig.ignores(`${p}${i++}`) : () => globMatches(pattern, p));
    });
    const ratio = Math.max(...us.slice(1).map((u, i) => u / us[i]!));
    if (engine === 'globs.ts') {
      worstRatio = Math.max(worstRatio, ratio);
      worstUs = Math.max(worstUs, us.at(-1)!);
    }
    console.log(`  ${pattern.padEnd(28)} ${us.map((u) => u.toFixed(1).padStart(8)).join(' ')}   (largest step ×${ratio.toFixed(2)} for ×2 length)`);
  }
}
console.log(`globs.ts worst: ${worstUs.toFixed(1)} µs per match at ${LENGTHS.at(-1)} characters; largest growth ×${worstRatio.toFixed(2)} per doubling (linear ≈ ×2)`);

const ORDINARY = ['test/**', '*.md', '**/fixtures/**', 'src/**/*.ts', 'docs/', 'lib/*/index.?s'];
const PATHS = ['src/main/core/packet/assemble.ts', 'node_modules/react-dom/cjs/react-dom-client.production.js', 'docs/guide/intro.md', 'test/fixtures/a/b/c/data.json'];
const ordinary = time(() => {
  for (const g of ORDINARY) for (const p of PATHS) globMatches(g, p);
}) / (ORDINARY.length * PATHS.length);
console.log(`ordinary globs (${ORDINARY.join(', ')}) on ordinary paths: ${ordinary.toFixed(2)} µs per match`);
