import { afterEach, inject } from 'vitest';
import { EXAMPLES_WORKER, startWorkerProcess, type WorkerProcess } from './worker-process.js';

const spawned = new Set<WorkerProcess>();

// A failing assertion must not leave worker processes behind: stop every one this file spawned.
afterEach(async () => {
  await Promise.all([...spawned].map((w) => w.stop()));
  spawned.clear();
});

/** A worker in its own process on the shared dev server, ready to be SIGKILLed. */
export async function spawnWorker(taskQueue: string, temporalAddress = inject('temporalAddress')): Promise<WorkerProcess> {
  const worker = await startWorkerProcess({
    script: EXAMPLES_WORKER,
    temporalAddress,
    taskQueue,
    worldUrl: inject('worldUrl'),
    workflowBundlePath: inject('workflowBundlePath'),
    approversFile: inject('approversFile'),
  });
  spawned.add(worker);
  return worker;
}
