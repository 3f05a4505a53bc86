// One bundle per workflows module per test run. Bundling is webpack over the engine, zod and the
// domains: seconds of CPU each time. Files that start workers for the same module (the examples
// with agentPlugin, the alerts domain, the faulty-domain fixtures, ...) used to bundle it each,
// which on a two-core host added up to minutes of a run. Now the first file that asks builds it
// into the run's scratch folder (global-setup.ts provides it; oncePerRun says who builds) and
// every later one, in any test process, reads that file. The plugins whose workflow code goes
// into a bundle (agentPlugin's quarantine, the tracing and metrics plugins) are part of what a
// bundle is, so they are part of its name.
//
// A test that is about bundling itself (a team's worker given workflowsPath) still bundles.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BundlerPlugin } from '@temporalio/worker';
import { inject } from 'vitest';
import { bundleWorkflows } from '../../worker/bundle.js';
import { oncePerRun } from './once-per-run.js';

/** A prebuilt bundle as Worker.create takes it. */
export interface SuiteBundle {
  codePath: string;
}

/** The run's bundle of `workflowsPath` made with `plugins`' bundling; built here if no file has yet. */
export function suiteBundle(workflowsPath: string, plugins: readonly BundlerPlugin[] = []): Promise<SuiteBundle> {
  return bundleInto(inject('bundleDir'), workflowsPath, plugins);
}

/** The same, in a folder of the caller's (the global setup builds the examples' bundle with it). */
export function bundleInto(dir: string, workflowsPath: string, plugins: readonly BundlerPlugin[] = []): Promise<SuiteBundle> {
  const name = `bundle-${createHash('sha256')
    .update(JSON.stringify([workflowsPath, plugins.map((p) => p.name).sort()]))
    .digest('hex')
    .slice(0, 16)}`;
  return oncePerRun(dir, name, async () => {
    const codePath = join(dir, `${name}.js`);
    writeFileSync(codePath, (await bundleWorkflows(workflowsPath, { plugins: [...plugins] })).code);
    return { codePath };
  });
}
