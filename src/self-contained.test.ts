// A clone with nothing beside it must pass `npm test`: no test, testkit or fixture helper may read outside the
// repository (the development machines have a ../shared folder that users and CI clones do not).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', '.git', 'out', 'dist', 'test-results', '.electron-native', 'test-fixtures']);

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.(ts|tsx|mjs|cjs|js)$/.test(e.name)) out.push(p);
  }
  return out;
}

// Test code: test and spec files, testkits, anything under a testing/ folder, and the e2e suite.
const isTestCode = (p: string) => /\.(test|spec|testkit)\.tsx?$/.test(p) || p.includes(`${sep}testing${sep}`) || relative(repo, p).startsWith(`e2e${sep}`);

/** Relative path literals ('../…') in a file that, resolved from that file's folder, land outside the repository. */
export function escapingPaths(file: string, text: string, root = repo): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/['"`]((?:\.\.\/)+[^'"`]*)['"`]/g)) {
    const target = resolve(dirname(file), m[1]!);
    if (target !== root && !target.startsWith(root + sep)) found.push(m[1]!);
  }
  // Named folders that only exist on the development machines, however the path is put together.
  for (const m of text.matchAll(/['"`][^'"`]*\bshared\/(models|bench|seeds|sealed)\b[^'"`]*['"`]/g)) found.push(m[0]);
  return found;
}

describe('tests are self-contained', () => {
  it('no test code reaches outside the repository', () => {
    const offenders: string[] = [];
    const files = walk(repo).filter((f) => isTestCode(f) && f !== import.meta.filename);
    expect(files.length).toBeGreaterThan(40);
    for (const f of files) for (const p of escapingPaths(f, readFileSync(f, 'utf8'))) offenders.push(`${relative(repo, f)}: ${p}`);
    expect(offenders).toEqual([]);
  });

  it('the lint sees an escape when there is one', () => {
    const f = join(repo, 'src/main/core/x.test.ts');
    expect(escapingPaths(f, "new URL('../../../../shared/models/x', import.meta.url)")).not.toEqual([]);
    expect(escapingPaths(f, "join(root, '../shared/seeds', seed)")).not.toEqual([]);
    expect(escapingPaths(f, "new URL('../../../resources/protocol/', import.meta.url)")).toEqual([]);
  });

  it('the tokenizer fixtures match their pinned sha256', () => {
    const dir = join(repo, 'test-fixtures/tokenizers/Xenova/all-MiniLM-L6-v2');
    const sums = readFileSync(join(dir, 'SHA256SUMS'), 'utf8').trim().split('\n');
    expect(sums.length).toBe(5);
    for (const line of sums) {
      const [hash, name] = line.split(/\s+/);
      expect(createHash('sha256').update(readFileSync(join(dir, name!))).digest('hex'), name).toBe(hash);
    }
  });
});
