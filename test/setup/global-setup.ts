// One Temporal dev server and one workflow bundle for the whole test run, and the Chromium the
// console tests drive. A missing or broken server, or a Chromium that is neither there nor
// installable, fails the run here, before any test; nothing skips. The slow provisioning of
// single files (the packed engine and its installs, the AgentDojo venv) is started here too, in the background
// and only when their files are in the run, so it overlaps everything else instead of holding
// up a file of its own; those files still wait for it, or do it themselves, as before.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { useTemporal } from '../../temporal-dev/target.js';
import { stderrLog } from '../../temporal-dev/log.js';
import { bundleWorkflows } from '../../worker/bundle.js';
import { examplesWorkflowsPath } from '../../demo/local-stack.js';
import { startWorld } from '../../domains/world/process.js';
import { TEST_DIRECTORY } from '../support/keys.js';
import { missingChromiumLine, provisionChromium } from './chromium.js';
import { PACKAGE_PROJECTS, startPreparing, type PackageProject } from '../package/prepared.js';
import { AGENTDOJO_TEST, startAgentDojoInstall } from './agentdojo-early.js';
import { runIncludes } from './run-files.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalNamespace: string;
    workflowBundlePath: string;
    worldUrl: string;
    approversFile: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = (line: string) => process.stderr.write(`[test-setup] ${line}\n`);
  const chromium = provisionChromium({ log });
  if (chromium.kind === 'missing') {
    // One line and a non-zero exit before any test or server starts; a thrown error would
    // come out wrapped in vitest's "no test files found" and an error block.
    process.stderr.write(`${missingChromiumLine(chromium)}\n`);
    process.exit(1);
  }
  const scratch = mkdtempSync(join(tmpdir(), 'agent-tests-'));
  const early: { stop: () => Promise<void> }[] = [];
  // One background job at a time, after the other: they run beside the first test files, and a
  // small CI host has two cores for all of it.
  let previous: Promise<void> = Promise.resolve();
  const names = Object.keys(PACKAGE_PROJECTS) as PackageProject[];
  const included = await Promise.all(names.map((name) => runIncludes(project, PACKAGE_PROJECTS[name].file)));
  const packageProjects = names.filter((_, i) => included[i]);
  if (packageProjects.length > 0) {
    log(`packing the engine and installing it for ${packageProjects.join(' and ')}, in the background`);
    const preparing = startPreparing(scratch, packageProjects);
    early.push(preparing);
    previous = preparing.done;
  }
  if (await runIncludes(project, AGENTDOJO_TEST)) {
    log('making sure of the AgentDojo venv in the background for its test, after that');
    let stopped = false;
    const installing = previous.then(() => (stopped ? undefined : startAgentDojoInstall(log)));
    early.push({
      stop: async () => {
        stopped = true;
        await (await installing)?.stop();
      },
    });
  }
  const stopEarly = () => Promise.all(early.map((e) => e.stop()));
  const [target, bundle, world] = await Promise.all([
    useTemporal({ headless: true, dbFile: join(scratch, 'temporal.sqlite'), log: stderrLog }),
    bundleWorkflows(examplesWorkflowsPath),
    startWorld({ dbPath: join(scratch, 'world.sqlite') }),
  ]).catch(async (err: unknown) => {
    // No teardown runs when setup fails: what was started in the background is stopped here.
    await stopEarly();
    throw err;
  });
  const workflowBundlePath = join(scratch, 'workflow-bundle.js');
  writeFileSync(workflowBundlePath, bundle.code);
  project.provide('temporalAddress', target.address);
  project.provide('temporalNamespace', target.namespace);
  project.provide('workflowBundlePath', workflowBundlePath);
  project.provide('worldUrl', world.url);
  const approversFile = join(scratch, 'approvers.json');
  writeFileSync(approversFile, JSON.stringify(TEST_DIRECTORY));
  project.provide('approversFile', approversFile);
  return async () => {
    await Promise.all([target.stop(), world.stop(), stopEarly()]);
    rmSync(scratch, { recursive: true, force: true });
  };
}
