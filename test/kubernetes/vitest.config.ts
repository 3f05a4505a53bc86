// `npm run test:kubernetes` (kubernetes/test-kubernetes.ts) runs vitest with this file: the
// tests against a real Kubernetes control plane, which the global setup starts once for the run
// from the binaries built into .temporal/kubernetes/bin/. Not part of `npm test`: those binaries
// take a long build, which is never implicit there. The incidents domain's Kubernetes
// implementation is tested through real workflows, so the integration project's own global setup
// runs first (the Temporal dev server, the examples' workflow bundle, the test approver
// directory; and the world and the Chromium check it also does), and its per-file setup (the
// SDK's logs kept to warnings, spawned workers stopped) runs before each file.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/kubernetes/**/*.test.ts'],
    pool: 'forks',
    // The same last resorts as vitest.config.ts: waits give up at test/support/wait.ts's patience first.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 100_000, interval: 100 } },
    globalSetup: ['test/setup/global-setup.ts', 'test/kubernetes/global-setup.ts'],
    setupFiles: ['test/setup/per-file.ts'],
  },
});
