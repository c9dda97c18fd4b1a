import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds the command line (out/cli) once when missing or stale, before test files start it side by side.
    globalSetup: ['test/support/global-setup.ts'],
    // better-sqlite3 is a native addon: separate processes, not worker threads.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: two test files at a time.
    maxWorkers: 2,
  },
});
