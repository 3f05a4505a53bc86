// How the control plane waits for a component to do its job: polling the mechanism (an HTTP
// answer, an object in the API), failing at once when a process it depends on exits, and
// giving up only at one generous patience, since a loaded host is slower, not wrong.
import { setTimeout as sleep } from 'node:timers/promises';
import { ChildStartError, type Child } from './process.js';

/** How long one component may take to come up on a busy two-core host before we call it broken. */
export const START_PATIENCE_MS = 180_000;

/**
 * Resolves with the first value of `probe` that is neither undefined nor false. A probe that
 * throws has not answered yet. `child` is the process that should make it true: its exit fails
 * the wait, naming its log; so does `also` exiting (what it relies on: etcd, the apiserver).
 */
export async function waitFor<T>(
  child: Child,
  what: string,
  probe: () => Promise<T | undefined | false>,
  options: { also?: Child[]; patienceMs?: number; everyMs?: number } = {},
): Promise<T> {
  const patienceMs = options.patienceMs ?? START_PATIENCE_MS;
  const deadline = Date.now() + patienceMs;
  let lastError = '';
  for (;;) {
    for (const c of [child, ...(options.also ?? [])]) {
      const exit = c.exit();
      if (exit !== undefined) throw new ChildStartError(c.name, `exited (${exit}) while waiting for ${what}`, c.logFile);
    }
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline) {
      throw new ChildStartError(
        child.name,
        `gave up after ${patienceMs / 1000} s waiting for ${what}${lastError ? ` (last: ${lastError})` : ''}`,
        child.logFile,
      );
    }
    await sleep(options.everyMs ?? 250);
  }
}
