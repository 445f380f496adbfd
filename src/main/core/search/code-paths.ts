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
