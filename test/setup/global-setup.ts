// One Temporal dev server and one workflow bundle of the examples for the whole test run (made
// with agentPlugin's bundling, so the quarantine is in it as in a team's), a folder where other
// modules' bundles are built once for the run (test/support/bundles.ts), and the Chromium the
// console tests drive. A missing or broken server, or a Chromium that is neither there nor
// installable, fails the run here, before any test; nothing skips.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { useTemporal } from '../../temporal-dev/target.js';
import { stderrLog } from '../../temporal-dev/log.js';
import { agentBundling } from '../../worker/plugin.js';
import { bundleInto } from '../support/bundles.js';
import { examplesWorkflowsPath } from '../../demo/local-stack.js';
import { startWorld } from '../../domains/world/process.js';
import { TEST_DIRECTORY } from '../support/keys.js';
import { missingChromiumLine, provisionChromium } from './chromium.js';

/**
 * A deleted execution is gone only once the server has recorded its close as done, which it
 * writes down every 30 s by default: each test that deletes a run (reset, operator-effects) waited
 * up to half a minute for that write. Temporal's own delete tests lower it to 1 s the same way.
 * Nothing else about a run changes; a configured server (TEMPORAL_ADDRESS) keeps its own.
 */
const DELETE_PROMPTLY = {
  'history.transferProcessorUpdateAckInterval': '1s',
  'history.visibilityProcessorUpdateAckInterval': '1s',
};

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalNamespace: string;
    workflowBundlePath: string;
    bundleDir: string;
    worldUrl: string;
    approversFile: string;
    /** The run's own directory, removed when it ends: for files a test must leave nowhere else (key rings). */
    scratchDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const chromium = provisionChromium({ log: (line) => process.stderr.write(`[test-setup] ${line}\n`) });
  if (chromium.kind === 'missing') {
    // One line and a non-zero exit before any test or server starts; a thrown error would
    // come out wrapped in vitest's "no test files found" and an error block.
    process.stderr.write(`${missingChromiumLine(chromium)}\n`);
    process.exit(1);
  }
  const scratch = mkdtempSync(join(tmpdir(), 'agent-tests-'));
  const bundleDir = join(scratch, 'bundles');
  mkdirSync(bundleDir);
  const [target, bundle, world] = await Promise.all([
    useTemporal({ headless: true, dbFile: join(scratch, 'temporal.sqlite'), log: stderrLog, dynamicConfig: DELETE_PROMPTLY }),
    bundleInto(bundleDir, examplesWorkflowsPath, [agentBundling]),
    startWorld({ dbPath: join(scratch, 'world.sqlite') }),
  ]);
  project.provide('temporalAddress', target.address);
  project.provide('temporalNamespace', target.namespace);
  project.provide('workflowBundlePath', bundle.codePath);
  project.provide('bundleDir', bundleDir);
  project.provide('worldUrl', world.url);
  const approversFile = join(scratch, 'approvers.json');
  writeFileSync(approversFile, JSON.stringify(TEST_DIRECTORY));
  project.provide('approversFile', approversFile);
  project.provide('scratchDir', scratch);
  return async () => {
    await Promise.all([target.stop(), world.stop()]);
    rmSync(scratch, { recursive: true, force: true });
  };
}
