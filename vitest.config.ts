// Two projects by what a test needs. `unit` is the pure controller and friends: no Temporal dev
// server, no world, no Chromium, so `npm run test:unit` answers in seconds. `integration` is
// everything else, with the global setup that starts those once for the run. `vitest run` runs
// both, each file exactly once; `--project unit` or `--project integration` runs one.
import { configDefaults, defineConfig } from 'vitest/config';

const UNIT = 'test/unit/**/*.test.ts';

export default defineConfig({
  test: {
    // Temporal's native module does not survive worker threads: child processes.
    pool: 'forks',
    // A test's last resort, never its mechanism: waits in tests give up at the patience of
    // test/support/wait.ts (100 s), just below these, so a failure names what it waited for.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // expect.poll's own default is one second: a loaded host misses it. The same patience.
    expect: { poll: { timeout: 100_000, interval: 100 } },
    fileParallelism: true,
    // Three files at a time on two cores: an integration test spends much of its time waiting
    // (timers, servers, a person's decision), and a third file fills it (measured: docs/performance.md).
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [UNIT],
          // The files share their worker's modules instead of importing zod, the controller and
          // the domains afresh each (about a quarter of the project's CPU). So a unit test leaves
          // no global behind: no module mocks, no edited process.env, no patched shared objects.
          isolate: false,
          // Said outright: nothing is started or provided here, so inject() has nothing to give.
          globalSetup: [],
          setupFiles: [],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          // Each test process runs file after file with the modules it has already loaded (the
          // SDK, zod, the engine): a fresh process per file cost a minute and a quarter of the
          // suite's wall time. So a file edits nothing shared: no process.env it does not
          // restore, no hooks registered by a support module (test/setup/per-file.ts runs for
          // every file), a worker passed its environment instead.
          isolate: false,
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, UNIT, 'test/kubernetes/**'],
          globalSetup: ['test/setup/global-setup.ts'],
          setupFiles: ['test/setup/per-file.ts'],
        },
      },
    ],
  },
});
