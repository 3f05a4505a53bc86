import { inject } from 'vitest';
import { startWorkerProcess, type WorkerProcess } from '../../worker/child.js';

/** A worker in its own process on the shared dev server, ready to be SIGKILLed. */
export function spawnWorker(taskQueue: string, temporalAddress = inject('temporalAddress')): Promise<WorkerProcess> {
  return startWorkerProcess({
    temporalAddress,
    taskQueue,
    worldUrl: inject('worldUrl'),
    workflowBundlePath: inject('workflowBundlePath'),
  });
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
