import { describe, expect, it } from 'vitest';
import { distinctInOrder, fileAccAt, isHeldOut, parseIssueSet, patchGold } from './issue-set.ts';
import { createWholeFileBm25, orQuery } from './whole-file-bm25.ts';

// A patch as the SWE-bench family stores them: three lines of context, several files.
const PATCH = [
  'diff --git a/src/parser.rs b/src/parser.rs',
  'index 1111111..2222222 100644',
  '--- a/src/parser.rs',
  '+++ b/src/parser.rs',
  '@@ -10,7 +10,8 @@ fn parse(input: &str) -> Result<Ast> {',
  '     let a = 1;',
  '     let b = 2;',
  '     let c = 3;',
  '-    let d = a + b;',
  '-    let e = d * c;',
  '+    let d = a.checked_add(b)?;',
  '+    let e = d.checked_mul(c)?;',
  '+    let f = e;',
  '     let g = 4;',
  '     let h = 5;',
  '     let i = 6;',
  '@@ -40,6 +41,7 @@ fn other() {',
  '     one();',
  '     two();',
  '     three();',
  '+    four();',
  '     five();',
  '     six();',
  '     seven();',
  'diff --git a/src/new.rs b/src/new.rs',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/src/new.rs',
  '@@ -0,0 +1,2 @@',
  '+fn fresh() {}',
  '+',
  'diff --git a/tests/parser.rs b/tests/parser.rs',
  '--- a/tests/parser.rs',
  '+++ b/tests/parser.rs',
  '@@ -1,3 +1,4 @@',
  ' use x;',
  '+use y;',
  ' fn t() {}',
  ' fn u() {}',
  'diff --git a/README.md b/README.md',
  '--- a/README.md',
  '+++ b/README.md',
  '@@ -1 +1 @@',
  '-old',
  '+new',
  'diff --git a/src/top.rs b/src/top.rs',
  '--- a/src/top.rs',
  '+++ b/src/top.rs',
  '@@ -1,2 +1,3 @@',
  '+// header',
  ' fn a() {}',
  ' fn b() {}',
  '\\ No newline at end of file',
  '',
].join('\n');

describe('patchGold', () => {
  it('gives the modified non-test source files and their hunks in the old numbering, as git diff -U0 would', () => {
    const gold = patchGold(PATCH);
    expect(gold.files).toEqual(['src/parser.rs', 'src/top.rs']);
    expect(gold.hunks).toEqual([
      // two removed lines replaced by three: the removed lines
      { file: 'src/parser.rs', start: 13, end: 14 },
      // a pure insertion after old line 42: placed on line 42
      { file: 'src/parser.rs', start: 42, end: 42 },
      // an insertion at the top: line 1
      { file: 'src/top.rs', start: 1, end: 1 },
    ]);
  });

  it('agrees with a -U0 diff of the same change', () => {
    const u0 = ['--- a/lib/a.py', '+++ b/lib/a.py', '@@ -5,2 +5,1 @@ def f():', '-    x = 1', '-    y = 2', '+    x = y = 1', '@@ -20,0 +20,1 @@', '+    return x'].join('\n');
    expect(patchGold(u0).hunks).toEqual([
      { file: 'lib/a.py', start: 5, end: 6 },
      { file: 'lib/a.py', start: 20, end: 20 },
    ]);
  });

  it('keeps separate runs of one hunk apart', () => {
    const p = ['--- a/a.go', '+++ b/a.go', '@@ -1,5 +1,5 @@', '-x', '+X', ' y', ' z', '-w', '+W', ' v'].join('\n');
    expect(patchGold(p).hunks).toEqual([
      { file: 'a.go', start: 1, end: 1 },
      { file: 'a.go', start: 4, end: 4 },
    ]);
  });
});

describe('parseIssueSet', () => {
  const row = { instance_id: 'o__r-1', repo: 'o/r', base_commit: 'a'.repeat(40), patch: 'diff', problem_statement: 'It breaks', language: 'Rust' };
  it('reads one instance a line and skips blank lines', () => {
    expect(parseIssueSet(`${JSON.stringify(row)}\n\n${JSON.stringify({ ...row, instance_id: 'o__r-2' })}\n`, 'set.jsonl').map((x) => x.instance_id)).toEqual(['o__r-1', 'o__r-2']);
  });
  it('names the file, the line and the field of a bad row', () => {
    expect(() => parseIssueSet(`${JSON.stringify(row)}\n{`, 'set.jsonl')).toThrow(/^set\.jsonl:2: not JSON/);
    expect(() => parseIssueSet(JSON.stringify({ ...row, patch: '' }), 'set.jsonl')).toThrow('set.jsonl:1: patch must be a non-empty string');
    expect(() => parseIssueSet(JSON.stringify({ ...row, base_commit: 'main' }), 'set.jsonl')).toThrow('set.jsonl:1: base_commit must be a commit hash');
  });
});

describe('held-out repositories', () => {
  it('are refused by full name and by name', () => {
    expect(isHeldOut('sympy/sympy')).toBe(true);
    expect(isHeldOut('someone/xarray')).toBe(true);
    expect(isHeldOut('clap-rs/clap')).toBe(false);
  });
});

describe('file ranking metrics', () => {
  it('Acc@k counts a gold file among the first k distinct files', () => {
    const ranked = ['a.rs', 'a.rs', 'b.rs', 'c.rs', 'b.rs', 'd.rs'];
    expect(distinctInOrder(ranked)).toEqual(['a.rs', 'b.rs', 'c.rs', 'd.rs']);
    expect(fileAccAt(ranked, ['c.rs'], 1)).toBe(0);
    expect(fileAccAt(ranked, ['c.rs'], 3)).toBe(1);
    expect(fileAccAt(ranked, ['x.rs', 'd.rs'], 3)).toBe(0);
    expect(fileAccAt(ranked, ['x.rs', 'd.rs'], 5)).toBe(1);
  });
});

describe('whole-file BM25', () => {
  it('ranks the file that holds the rare words of an issue first, stemming word forms', () => {
    const bm25 = createWholeFileBm25([
      { path: 'src/concat.rs', text: 'pub fn concatenate(parts: &[&str]) -> String { parts.join("") }' },
      { path: 'src/lib.rs', text: 'mod concat; mod util; pub use concat::concatenate;' },
      { path: 'src/util.rs', text: 'pub fn helper() {} pub fn other() {}' },
    ]);
    expect(bm25.rank('Concatenating parts panics on empty input', 3)[0]).toBe('src/concat.rs');
    expect(bm25.rank('helper', 3)).toEqual(['src/util.rs']);
    expect(bm25.rank('!!!', 3)).toEqual([]);
    bm25.close();
  });
  it('quotes every word, so FTS5 operators in an issue are words', () => {
    expect(orQuery('NOT a AND b OR "c" NEAR(d)')).toBe('"not" OR "a" OR "and" OR "b" OR "or" OR "c" OR "near" OR "d"');
  });
});
