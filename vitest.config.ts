import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Native addons (better-sqlite3, re2, onnxruntime) are happier in forked processes than in worker threads.
    pool: 'forks',
  },
});
