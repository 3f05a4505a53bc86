// Several worker processes on one task queue, any of which the chaos run may SIGKILL. A killed
// worker is restarted in the background, so the next kill can land while it is still starting and
// the queue is served by fewer workers. With several, the last one up is never killed: what they
// are for is that a survivor takes over a dead worker's runs mid-effect, and a queue with no
// worker at all is what the one-worker run (`--workers 1`) exercises.
import type { WorkerProcess } from '../support/worker-process.js';

/** A worker did not come back after a kill, even after retries: the run cannot be judged. */
export class WorkerRestartError extends Error {
  constructor(
    readonly slot: number,
    readonly attempts: number,
    cause: unknown,
  ) {
    super(`worker ${slot} did not restart after ${attempts} attempts: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

export interface WorkerPool {
  readonly size: number;
  /** SIGKILLs one running worker picked by `random` and starts its replacement; returns the killed pid. */
  killOne(random: () => number): Promise<{ slot: number; pid: number }>;
  /** Waits for pending restarts, then stops every worker gracefully. */
  stop(): Promise<void>;
}

interface Slot {
  worker: WorkerProcess | undefined;
  restarting: Promise<void> | undefined;
}

/** A restart can fail while the server itself is being disrupted: try a few times before giving up. */
const RESTART_ATTEMPTS = 4;

export async function startWorkerPool(size: number, spawn: () => Promise<WorkerProcess>, log: (m: string) => void): Promise<WorkerPool> {
  const slots: Slot[] = await Promise.all(Array.from({ length: size }, async () => ({ worker: await spawn(), restarting: undefined })));
  let failure: WorkerRestartError | undefined;

  const restart = (index: number, slot: Slot): Promise<void> =>
    (async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          slot.worker = await spawn();
          return;
        } catch (err) {
          if (attempt >= RESTART_ATTEMPTS) {
            failure ??= new WorkerRestartError(index, attempt, err);
            return;
          }
          log(`worker ${index} restart attempt ${attempt} failed; retrying: ${oneLine(err)}`);
          await new Promise((r) => setTimeout(r, 1_000 * attempt));
        }
      }
    })().finally(() => (slot.restarting = undefined));

  return {
    size,
    async killOne(random) {
      // Only a worker that is up can be killed, and not the last one up of several: else wait for a restart.
      const survivors = size > 1 ? 1 : 0;
      let live: number[];
      for (;;) {
        if (failure) throw failure;
        live = slots.flatMap((s, i) => (s.worker && !s.restarting ? [i] : []));
        if (live.length > survivors) break;
        const pending = slots.flatMap((s) => (s.restarting ? [s.restarting] : []));
        if (pending.length === 0) throw new Error('too few workers are up to kill one, and none is restarting');
        await Promise.race(pending);
      }
      const index = live[Math.floor(random() * live.length)] ?? 0;
      const slot = slots[index];
      const victim = slot?.worker;
      if (!slot || !victim) throw new Error('no live worker to kill');
      await victim.kill();
      slot.worker = undefined;
      slot.restarting = restart(index, slot);
      return { slot: index, pid: victim.pid };
    },
    async stop() {
      await Promise.all(slots.map((s) => s.restarting));
      await Promise.all(slots.map((s) => s.worker?.stop()));
      if (failure) throw failure;
    },
  };
}

/** An error on one line, whitespace folded, so a worker's stderr tail does not flood the log. */
function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').slice(0, 400);
}
