import { defineConfig } from '@playwright/test';

// Debian's Chromium (apt-get install chromium); Playwright's own browser download is never used.
export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  globalSetup: './global-setup.ts',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list'], ['./summary-reporter.ts']],
  outputDir: '../test-results/e2e',
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.CONTEXTPACK_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
    permissions: ['clipboard-read', 'clipboard-write'],
    viewport: { width: 1280, height: 860 },
    trace: 'retain-on-failure',
  },
});
