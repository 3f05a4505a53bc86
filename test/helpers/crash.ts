import { afterEach, inject } from 'vitest';
import { startWorkerProcess, type WorkerProcess } from '../../worker/child.js';

const spawned = new Set<WorkerProcess>();

// A failing assertion must not leave worker processes behind: stop every one this file spawned.
afterEach(async () => {
  await Promise.all([...spawned].map((w) => w.stop()));
  spawned.clear();
});

/** A worker in its own process on the shared dev server, ready to be SIGKILLed. */
export async function spawnWorker(taskQueue: string, temporalAddress = inject('temporalAddress')): Promise<WorkerProcess> {
  const worker = await startWorkerProcess({
    temporalAddress,
    taskQueue,
    worldUrl: inject('worldUrl'),
    workflowBundlePath: inject('workflowBundlePath'),
  });
  spawned.add(worker);
  return worker;
}

export async function waitUntil<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
