// Path conventions shared by ranking (test demotion) and the localization benchmark (which files are tests).

const TEST_DIRS = new Set(['test', 'tests', '__tests__', 'spec', 'specs', 'testdata', 'test-data', 'fixtures', '__fixtures__', 'fixture', '__mocks__', 'mocks', 'e2e', 'testing', 'test-fixtures', 'benchmarks', 'examples', 'example']);
const TEST_FILE = /(?:^|[._-])(?:test|tests|spec|specs|testkit|fixture|fixtures)\.[a-z0-9]+$|^test_[^/]*\.py$|_test\.(?:go|py|rs|exs?)$|(?:Test|Tests|IT)\.(?:java|kt|scala)$|^conftest\.py$/;

/**
 * True for tests, fixtures and examples: `test/app.js`, `src/x.test.ts`, `pkg/x_test.go`, `tests/test_app.py`,
 * `FooTest.java`, `__mocks__/x.js`. Works on relative or absolute paths with either separator.
 */
export function isTestPath(path: string): boolean {
  const parts = path.split(/[\\/]/).filter(Boolean);
  const file = parts.pop() ?? '';
  if (TEST_FILE.test(file)) return true;
  return parts.some((p) => TEST_DIRS.has(p.toLowerCase()));
}

/** Words that say a query is about tests themselves, when test files should not be demoted. */
const TEST_WORDS = new Set(['test', 'tests', 'testing', 'spec', 'specs', 'fixture', 'fixtures', 'mock', 'mocks', 'flaky', 'coverage', 'e2e', 'unittest', 'pytest', 'vitest', 'jest', 'mocha']);

export function queryIsAboutTests(terms: readonly string[]): boolean {
  return terms.some((t) => TEST_WORDS.has(t));
}

/**
 * What a file is to a code task. 'changelog', 'lock', 'generated' and 'image' are never evidence for one unless the
 * query names them; 'doc' and 'test' rank below source. Paths relative or absolute, either separator.
 */
export type PathRole = 'source' | 'test' | 'doc' | 'changelog' | 'lock' | 'generated' | 'image' | 'other';

const CHANGELOG = /^(?:changes|changelog|history|news|releases?|release[-_]notes|upgrading|migrating)(?:\.[a-z0-9]+)*$/i;
const LOCK = /^(?:package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|cargo\.lock|go\.sum|poetry\.lock|pipfile\.lock|uv\.lock|pdm\.lock|composer\.lock|gemfile\.lock|podfile\.lock|mix\.lock|flake\.lock|packages\.lock\.json|[^/]+\.lock)$/i;
const IMAGE = /\.(?:svg|png|jpe?g|gif|webp|ico|bmp|tiff?|avif)$/i;
const GENERATED = /(?:\.min\.(?:js|css|mjs)|\.bundle\.js|\.map|[._-]generated\.[a-z]+|\.pb\.go|_pb2\.py|\.snap)$/i;
const GENERATED_DIRS = new Set(['dist', 'vendor', 'node_modules', 'third_party', 'generated', '__generated__', 'coverage']);
const DOC_DIRS = new Set(['doc', 'docs', 'documentation', 'man', 'site', 'website', 'guide', 'guides']);
const DOC_EXT = /\.(?:md|mdx|markdown|rst|txt|adoc|asciidoc|html?|textile|pod|1|3|5|7|8)$/i;
const SOURCE_EXT = /\.(?:[cm]?[jt]sx?|py|pyi|go|rs|java|kt|kts|scala|rb|php|cs|fs|swift|m|mm|c|cc|cpp|cxx|h|hh|hpp|hxx|lua|dart|ex|exs|erl|hs|ml|mli|clj|cljs|r|jl|zig|nim|sh|bash|zsh|ps1|pl|pm|vue|svelte|sql)$/i;

export function pathRole(path: string): PathRole {
  const parts = path.split(/[\\/]/).filter(Boolean);
  const file = parts[parts.length - 1] ?? '';
  if (IMAGE.test(file)) return 'image';
  if (LOCK.test(file)) return 'lock';
  if (CHANGELOG.test(file)) return 'changelog';
  if (GENERATED.test(file) || parts.slice(0, -1).some((p) => GENERATED_DIRS.has(p.toLowerCase()))) return 'generated';
  if (isTestPath(path)) return 'test';
  if (DOC_EXT.test(file) || parts.slice(0, -1).some((p) => DOC_DIRS.has(p.toLowerCase()))) return SOURCE_EXT.test(file) ? 'source' : 'doc';
  if (SOURCE_EXT.test(file)) return 'source';
  return 'other';
}

/** The roles that are not what a code fix changes: the benchmark's "noise" share counts these. */
export function isNoiseRole(role: PathRole): boolean {
  return role !== 'source' && role !== 'other';
}
