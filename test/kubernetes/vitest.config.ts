// `npm run test:kubernetes` (kubernetes/test-kubernetes.ts) runs vitest with this file: the
// tests against a real Kubernetes control plane, which the global setup starts once for the run
// from the binaries built into .temporal/kubernetes/bin/. Not part of `npm test`: those binaries
// take a long build, which is never implicit there.
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
    globalSetup: ['test/kubernetes/global-setup.ts'],
  },
});
