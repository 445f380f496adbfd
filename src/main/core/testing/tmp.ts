import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A temp folder per test file; `cleanup` in afterAll/afterEach removes everything made. */
export function tempDirs(prefix = 'cp-') {
  const made: string[] = [];
  return {
    make(): string {
      const d = mkdtempSync(join(tmpdir(), prefix));
      made.push(d);
      return d;
    },
    cleanup(): void {
      for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** Writes a tree of files given as { 'rel/path': content }. */
export function writeTree(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
}
