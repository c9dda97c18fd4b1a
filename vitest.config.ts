import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // better-sqlite3 is a native addon: separate processes, not worker threads.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: two test files at a time.
    maxWorkers: 2,
  },
});
