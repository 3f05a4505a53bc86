import { afterEach, inject, type TestContext } from 'vitest';
import { EXAMPLES_WORKER, startWorkerProcess, type WorkerProcess } from './worker-process.js';

const spawned = new Set<WorkerProcess>();

// A failing assertion must not leave worker processes behind: stop every one this file spawned.
afterEach(async () => {
  await Promise.all([...spawned].map((w) => w.stop()));
  spawned.clear();
});

/** A worker in its own process on the shared dev server, ready to be SIGKILLed. */
export async function spawnWorker(taskQueue: string, temporalAddress = inject('temporalAddress')): Promise<WorkerProcess> {
  const worker = await startWorkerProcess(workerOptions(taskQueue, temporalAddress));
  spawned.add(worker);
  return worker;
}

/**
 * spawnWorker for a test that runs beside others (describe.concurrent): its workers are stopped
 * when that test finishes, not by the file's afterEach when whichever test ends first.
 */
export async function spawnWorkerFor(test: Pick<TestContext, 'onTestFinished'>, taskQueue: string): Promise<WorkerProcess> {
  const worker = await startWorkerProcess(workerOptions(taskQueue, inject('temporalAddress')));
  test.onTestFinished(() => worker.stop());
  return worker;
}

function workerOptions(taskQueue: string, temporalAddress: string) {
  return {
    script: EXAMPLES_WORKER,
    temporalAddress,
    taskQueue,
    worldUrl: inject('worldUrl'),
    workflowBundlePath: inject('workflowBundlePath'),
    approversFile: inject('approversFile'),
  };
}
