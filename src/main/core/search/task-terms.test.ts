import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeWordTerms, identifierPhrases } from './code-words.ts';
import { framesIn, isLongTask, pathsIn, segmentTask, stem, taskTerms, TASK_WEIGHTS } from './task-terms.ts';

// Issue texts written for these tests (test-fixtures/issues/): a traceback, a code block with an environment dump,
// paths with a JS stack, dotted names.
const fixture = (name: string) => readFileSync(new URL(`../../../../test-fixtures/issues/${name}.md`, import.meta.url), 'utf8');
const weightOf = (t: ReturnType<typeof taskTerms>, term: string) => t.terms.find((x) => x.term === term)?.weight ?? 0;

describe('task value: a short query is what it was', () => {
  it('weighs every code-word term 1 and keeps the phrases', () => {
    const q = 'fix(aws): handle package_name in acceptsCharsets';
    const t = taskTerms(q);
    expect(t.long).toBe(false);
    expect(t.terms.map((x) => x.term)).toEqual(codeWordTerms(q));
    expect(t.terms.every((x) => x.weight === 1)).toBe(true);
    expect(t.phrases).toEqual(identifierPhrases(q));
    expect(t.codeTask).toBe(true);
  });

  it('is computed once per text', () => {
    expect(taskTerms('retry backoff')).toBe(taskTerms('retry backoff'));
  });

  it('a subject line is short, an issue is long', () => {
    expect(isLongTask('aws: region ignored when profile set')).toBe(false);
    expect(isLongTask(fixture('dotted'))).toBe(true);
    expect(isLongTask('short\n```\ncode\n```')).toBe(true);
  });
});

describe('task value: a traceback', () => {
  const t = taskTerms(fixture('traceback'));

  it('reads the frames, installed ones by their path inside the package', () => {
    expect(t.frames.map((f) => [f.file, f.line, f.func])).toEqual([
      ['/home/me/project/repro.py', 5, null],
      ['inventory/catalog.py', 212, 'merge_entries'],
      ['inventory/_resolve.py', 48, '_apply_preference'],
    ]);
    expect(t.frames.every((f) => !f.external)).toBe(true);
    expect(t.paths).toContain('inventory/catalog.py');
    expect(t.paths).toContain('inventory/_resolve.py');
  });

  it('names the error type and the functions, and weighs them over prose', () => {
    expect(t.errors).toEqual(['KeyError']);
    expect(t.symbols).toEqual(expect.arrayContaining(['merge_entries', '_apply_preference', 'Catalog']));
    expect(t.phrases.slice(0, 2)).toEqual([
      ['merge', 'entries'],
      ['apply', 'preference'],
    ]);
    expect(weightOf(t, 'merge')).toBeGreaterThan(weightOf(t, 'overlapping'));
    expect(weightOf(t, 'keyerror')).toBeGreaterThanOrEqual(TASK_WEIGHTS.errorType);
  });

  it('weighs the environment list and template headings little', () => {
    for (const w of ['ubuntu', 'numpy', 'environment', 'describe', 'bug']) expect(weightOf(t, w)).toBeLessThanOrEqual(TASK_WEIGHTS.template);
    expect(t.codeTask).toBe(true);
    expect(t.aboutTests).toBe(false);
  });
});

describe('task value: a code block and an environment dump', () => {
  const t = taskTerms(fixture('codeblock'));

  it('keeps the code identifiers and their parts', () => {
    expect(weightOf(t, 'indexname')).toBeGreaterThanOrEqual(TASK_WEIGHTS.codeIdentifier);
    expect(weightOf(t, 'concat')).toBeGreaterThan(TASK_WEIGHTS.prose);
    expect(t.symbols).toEqual(expect.arrayContaining(['concat', 'index_name', 'stack_rows']));
  });

  it('an interpreter banner and pip freeze weigh as noise', () => {
    for (const w of ['pyarrow', 'pytz', 'gcc', 'copyright', 'freeze']) expect(weightOf(t, w)).toBeLessThanOrEqual(TASK_WEIGHTS.noise * 1.5);
    const kinds = segmentTask(fixture('codeblock')).filter((s) => /pyarrow|GCC/.test(s.text)).map((s) => s.kind);
    expect(kinds.every((k) => k === 'noise')).toBe(true);
  });
});

describe('task value: paths and a JS stack', () => {
  const t = taskTerms(fixture('path'));

  it('reads the paths the prose names and the stack frames', () => {
    expect(t.paths).toEqual(expect.arrayContaining(['src/settings/loader.ts', 'test/loader.test.ts', '/home/me/tool/src/settings/loader.ts']));
    // node:fs's frame is the runtime's, not a file of the project: not read as one.
    expect(t.frames.map((f) => f.func)).toEqual(['readConfig', 'main']);
  });

  it('searches a path by its words, not its extension or home folder', () => {
    expect(weightOf(t, 'loader')).toBeGreaterThanOrEqual(TASK_WEIGHTS.path);
    expect(weightOf(t, 'ts')).toBeLessThan(TASK_WEIGHTS.path);
    expect(t.symbols).toEqual(expect.arrayContaining(['resolveConfigDir', 'readConfig', 'homedir']));
  });
});

describe('task value: dotted names', () => {
  const t = taskTerms(fixture('dotted'));

  it('a dotted name is a phrase, a module path and a symbol', () => {
    expect(t.phrases[0]).toEqual(['weather', 'units', 'convert', 'pressure']);
    expect(t.paths).toContain('weather/units/convert_pressure');
    expect(t.symbols).toEqual(expect.arrayContaining(['convert_pressure', 'PressureReading', 'as_unit']));
    expect(weightOf(t, 'pressurereading')).toBeGreaterThanOrEqual(TASK_WEIGHTS.identifier);
  });
});

describe('task value parts', () => {
  it('frames of other languages', () => {
    expect(framesIn('    at com.acme.billing.Invoice.total(Invoice.java:88)')).toEqual([{ file: 'com/acme/billing/Invoice.java', line: 88, func: 'total', external: false, installed: false }]);
    expect(framesIn('  src/server/router.go:41 +0x1d')[0]).toMatchObject({ file: 'src/server/router.go', line: 41 });
  });

  it('paths in prose, not URLs or versions', () => {
    expect(pathsIn('see lib/core/parse.rb and setup.cfg, not https://x.org/a.html or 1.2.3')).toEqual(['lib/core/parse.rb', 'setup.cfg']);
  });

  it('one stemmer', () => {
    expect(['completions', 'filtering', 'parsed', 'matches'].map(stem)).toEqual(['completion', 'filter', 'pars', 'match']);
  });

  it('caps the terms of a very long task', () => {
    const words = Array.from({ length: 3000 }, (_, i) => `word${i.toString(36)}x`).join(' ');
    const t = taskTerms(words);
    expect(t.terms.length).toBeLessThanOrEqual(96);
  });
});
