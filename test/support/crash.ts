import { inject } from 'vitest';
import { EXAMPLES_WORKER, startWorkerProcess, type WorkerProcess } from './worker-process.js';

const spawned = new Set<WorkerProcess>();

/**
 * Stops every worker process spawned since the last call. A failing assertion must not leave
 * worker processes behind: test/setup/per-file.ts calls this after each test of every file (a
 * hook registered here would belong only to the first file of the test process to import this).
 */
export async function stopSpawnedWorkers(): Promise<void> {
  await Promise.all([...spawned].map((w) => w.stop()));
  spawned.clear();
}

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
