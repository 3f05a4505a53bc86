// One bundle per workflows module per test run. Bundling is webpack over the engine, zod and the
// domains: seconds of CPU each time. Files that start workers for the same module (the examples
// with agentPlugin, the alerts domain, the faulty-domain fixtures, ...) used to bundle it each,
// which on a two-core host was minutes of a run. Now the first file that asks builds it into the
// run's scratch folder (global-setup.ts provides it) and every later one, in any test process,
// reads that file. The plugins whose workflow code goes into a bundle (agentPlugin's quarantine,
// the tracing and metrics plugins) are part of what a bundle is, so they are part of its name.
//
// A test that is about bundling itself (a team's worker given workflowsPath) still bundles.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BundlerPlugin } from '@temporalio/worker';
import { inject } from 'vitest';
import { bundleWorkflows } from '../../worker/bundle.js';
import { waitUntil } from './wait.js';

/** A prebuilt bundle as Worker.create takes it. */
export interface SuiteBundle {
  codePath: string;
}

const building = new Map<string, Promise<SuiteBundle>>();

/** The run's bundle of `workflowsPath` made with `plugins`' bundling; built here if no file has yet. */
export function suiteBundle(workflowsPath: string, plugins: readonly BundlerPlugin[] = []): Promise<SuiteBundle> {
  return bundleInto(inject('bundleDir'), workflowsPath, plugins);
}

/** The same, in a folder of the caller's (the global setup builds the examples' bundle with it). */
export function bundleInto(dir: string, workflowsPath: string, plugins: readonly BundlerPlugin[] = []): Promise<SuiteBundle> {
  const name = createHash('sha256')
    .update(JSON.stringify([workflowsPath, plugins.map((p) => p.name).sort()]))
    .digest('hex')
    .slice(0, 16);
  let found = building.get(name);
  if (!found) {
    found = buildOnce(dir, name, workflowsPath, plugins);
    building.set(name, found);
  }
  return found;
}

async function buildOnce(dir: string, name: string, workflowsPath: string, plugins: readonly BundlerPlugin[]): Promise<SuiteBundle> {
  const codePath = join(dir, `${name}.js`);
  const failedPath = join(dir, `${name}.failed`);
  if (existsSync(codePath)) return { codePath };
  try {
    // mkdir is atomic: exactly one process of the run gets to build.
    mkdirSync(join(dir, `${name}.building`));
  } catch {
    return waitUntil(() => {
      if (existsSync(failedPath)) throw new Error(`bundling ${workflowsPath} failed in another test file: ${readFileSync(failedPath, 'utf8')}`);
      return existsSync(codePath) ? { codePath } : undefined;
    }, `the bundle of ${workflowsPath} another test file is building`);
  }
  try {
    const bundle = await bundleWorkflows(workflowsPath, { plugins: [...plugins] });
    // Written whole, then renamed: a reader never sees half a bundle.
    writeFileSync(`${codePath}.partial`, bundle.code);
    renameSync(`${codePath}.partial`, codePath);
    return { codePath };
  } catch (err) {
    writeFileSync(failedPath, err instanceof Error ? err.message : String(err));
    throw err;
  }
}
