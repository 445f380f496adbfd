// Issue #32 part 2: an issue-length task finds the file it is about: word forms meet (`concatenating` → concat),
// a traceback frame's file and a named function count, and a test does not outrank the module it tests.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestPaths } from '../ingest/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { createBm25Retriever, ISSUE_SIGNALS } from './bm25.ts';
import type { Retriever } from './retriever.ts';
import { indexedTask } from './task-scores.ts';
import { taskTerms } from './task-terms.ts';

const fixture = (name: string) => readFileSync(new URL(`../../../../test-fixtures/issues/${name}.md`, import.meta.url), 'utf8');
const filler = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `// ${topic} helper ${i}: rows, frames, names and values are read here.\nexport function ${topic}Helper${i}(rows) {\n  return rows.map((r) => r.value + ${i});\n}\n`).join('\n');

const TREE: Record<string, string> = {
  'src/frame/concat.ts': 'export function concat(frames, axis = 0) {\n  const rows = frames.flatMap((f) => f.rows);\n  // the index name is taken from the first frame only when all agree\n  return new Frame({ rows, indexName: undefined });\n}\n',
  'src/frame/frame.ts': `export class Frame {\n  constructor(opts) {\n    this.rows = opts.rows;\n    this.indexName = opts.indexName;\n  }\n}\n${filler('frame', 6)}`,
  'src/frame/stack.ts': 'export function stack_rows(frames) {\n  // keeps index_name when every frame has the same one\n  return frames[0];\n}\n',
  'src/frame/concat.test.ts': "import { concat } from './concat';\ntest('concatenating frames keeps the index name', () => {\n  const left = new Frame({ rows: [1], indexName: 'id' });\n  const right = new Frame({ rows: [2], indexName: 'id' });\n  expect(concat([left, right]).indexName).toBe('id');\n  expect(concat([left, right]).rows).toEqual([1, 2]);\n});\n",
  'docs/frames.md': '# Frames\n\nConcatenating frames: rows of several frames become one frame. The index name, frames and rows are explained here.\n',
  'inventory/catalog.py': 'class Catalog:\n    def merge_entries(self, other, prefer="newer"):\n        for key, theirs in other.items():\n            self._apply_preference(key, theirs, prefer)\n        return self\n',
  'inventory/_resolve.py': 'def _apply_preference(self, key, theirs, prefer):\n    """Keep the newer entry."""\n    del self._index[key]\n',
  'inventory/report.py': `def describe_catalog(catalog):\n    """Describe the bug report of a catalog: entries, keys, rows and their preference."""\n    return [key for key in catalog]\n\n${'# catalog entries merged by key, preference newer\n'.repeat(3)}`,
  'src/settings/loader.ts': "import os from 'node:os';\nexport function resolveConfigDir() {\n  return os.homedir();\n}\nexport function readConfig() {\n  return readFileSync(resolveConfigDir() + '/.toolrc');\n}\n",
  'src/cli.ts': "import { readConfig } from './settings/loader';\nexport function main() {\n  return readConfig();\n}\n",
  'test/loader.test.ts': "import { readConfig, resolveConfigDir } from '../src/settings/loader';\ntest('config dir on macOS', () => {\n  expect(resolveConfigDir()).toContain('home');\n  expect(readConfig()).toBeDefined();\n});\n",
  'weather/units.py': 'PRESSURE = {"hpa": 1.0, "inhg": 0.02953}\n\ndef convert_pressure(value, to="hpa"):\n    return value * PRESSURE.get(to, 1.0)\n',
  'weather/reading.py': 'from weather.units import convert_pressure\n\nclass PressureReading:\n    def as_unit(self, unit):\n        return convert_pressure(self.value, to=unit)\n',
};

describe('an issue finds the file it is about', () => {
  const tmp = tempDirs('cp-issue-rank-');
  let store: Store;
  let bm25: Retriever;
  beforeAll(async () => {
    const root = tmp.make();
    writeTree(root, TREE);
    store = openStore(':memory:');
    await ingestPaths(store.db, [root]);
    bm25 = createBm25Retriever(store.db);
  });
  afterAll(() => {
    store.close();
    tmp.cleanup();
  });
  const files = async (text: string) => {
    const hits = await bm25.search({ text, k: 20 });
    return [...new Set(hits.map((h) => h.relPath))];
  };

  it('a code block and "concatenating": the module defining concat, before its test and the docs', async () => {
    // Word forms: the index holds `concat`, the title says "Concatenating".
    expect(indexedTask(store.db, taskTerms(fixture('codeblock'))).terms.map((t) => t.term)).toContain('concat');
    // The report names stack_rows too (`like stack_rows does`): both modules lead, the test and the docs follow.
    const top = await files(fixture('codeblock'));
    expect(top.slice(0, 2).sort()).toEqual(['src/frame/concat.ts', 'src/frame/stack.ts']);
    expect(top.indexOf('src/frame/concat.ts')).toBeLessThan(top.indexOf('src/frame/concat.test.ts'));
    expect(top.indexOf('src/frame/concat.ts')).toBeLessThan(top.indexOf('docs/frames.md'));
  });

  it('word forms meet: an issue that only says "concatenating" searches `concat`, the form the index holds', async () => {
    const prose = 'Concatenating several frames loses their shared index name\n\nWhen concatenating frames whose index names agree, the result has no index name at all. Stacking keeps it, so I expected concatenating to keep it as well; this breaks reports that group rows by the index name afterwards.';
    const task = indexedTask(store.db, taskTerms(prose));
    expect(taskTerms(prose).terms.map((t) => t.term)).not.toContain('concat');
    expect(task.terms.find((t) => t.term === 'concat')?.weight).toBeGreaterThan(0);
    expect((await files(prose)).indexOf('src/frame/concat.ts')).toBeLessThan(3);
  });

  it('a traceback: the innermost project frame\'s file and the named method', async () => {
    // By the words alone (the default) the method's module leads; with the named-file boosts on (measured, off by
    // default: docs/packets.md) both frames' files lead.
    const top = await files(fixture('traceback'));
    expect(['inventory/_resolve.py', 'inventory/catalog.py']).toContain(top[0]);
    const saved = { ...ISSUE_SIGNALS };
    Object.assign(ISSUE_SIGNALS, { pathBoost: 1, symbolBoost: 1 });
    try {
      expect((await files(fixture('traceback'))).slice(0, 2).sort()).toEqual(['inventory/_resolve.py', 'inventory/catalog.py']);
    } finally {
      Object.assign(ISSUE_SIGNALS, saved);
    }
  });

  it('paths and a stack: the file the frames and prose name, before its test', async () => {
    const top = await files(fixture('path'));
    expect(top[0]).toBe('src/settings/loader.ts');
    expect(top.indexOf('src/settings/loader.ts')).toBeLessThan(top.indexOf('test/loader.test.ts'));
  });

  it('dotted names: the module a dotted name points to', async () => {
    // `PressureReading.as_unit` is named too: the module and its caller lead.
    const top = await files(fixture('dotted'));
    expect(top.slice(0, 2).sort()).toEqual(['weather/reading.py', 'weather/units.py']);
  });
});
