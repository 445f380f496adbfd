import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

const VITEST_JSON = fileURLToPath(new URL('../test-results/vitest.json', import.meta.url));

/**
 * Ends `npm test` with one plain line counting every test of the run: the unit and integration tests (from
 * vitest's JSON report, written just before) plus these end-to-end tests.
 */
export default class SummaryReporter implements Reporter {
  private passed = 0;
  private failed = 0;

  onTestEnd(test: TestCase, result: TestResult): void {
    if (result.status === 'skipped') return;
    // Count a test once, on its final attempt.
    if (result.retry < test.retries && result.status !== 'passed') return;
    if (result.status === 'passed') this.passed++;
    else this.failed++;
  }

  onEnd(_result: FullResult): void {
    let unit = { passed: 0, failed: 0 };
    if (existsSync(VITEST_JSON)) {
      const r = JSON.parse(readFileSync(VITEST_JSON, 'utf8')) as { numPassedTests: number; numFailedTests: number };
      unit = { passed: r.numPassedTests, failed: r.numFailedTests };
    }
    console.log(`unit ${unit.passed} passed, e2e ${this.passed} passed`);
    console.log(`tests: ${unit.passed + this.passed} passed, ${unit.failed + this.failed} failed`);
  }
}
