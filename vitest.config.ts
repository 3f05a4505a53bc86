import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Temporal's native module does not survive worker threads; each test file gets a process.
    pool: 'forks',
    globalSetup: ['test/setup/global-setup.ts'],
    setupFiles: ['test/setup/per-file.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    maxWorkers: 2,
  },
});
