// How a test waits for what the system does on its own: a run reaching its approval request, a
// row reaching the visibility store, an activity reaching a hold. A loaded CI host is slower,
// not wrong, so these waits give up only about when the test itself would (vitest's
// testTimeout is 120 s), and no test picks a shorter deadline of its own. A wait that can know
// sooner that the thing will never happen says so on the mechanism instead: a run that ended
// without asking for approval fails at once.
import { WorkerTimeoutError } from '../../client/agent-errors.js';
import { waitUntil as poll } from '../../client/wait.js';

/** The one deadline for waits in tests; below testTimeout so the failure names what was awaited. */
export const PATIENCE_MS = 100_000;

/** Resolves with the first value of `probe` that is neither undefined nor false. */
export function waitUntil<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  options: { everyMs?: number } = {},
): Promise<T> {
  return poll(async () => probe(), what, { timeoutMs: PATIENCE_MS, everyMs: options.everyMs ?? 100 });
}

/** What an approval wait needs to see of a run: a client's RunView and the state query's both give it. */
export interface AwaitingView<A extends { eligible: unknown[] }> {
  awaiting?: A | null;
  terminal?: { class: string; reason: string; detail?: string } | null;
}

/**
 * The run's pending approval request once its approvers are known, read through `view` (an
 * AgentClient's `state`, say). Fails as soon as the run is terminal without one.
 */
export function untilAwaiting<A extends { eligible: unknown[] }>(
  view: () => Promise<AwaitingView<A>>,
  what = 'the approval request and its approvers',
): Promise<A> {
  return waitUntil(async () => {
    // A worker too busy to answer one query in time (a loaded host) has not said no: ask again.
    const v = await view().catch((err: unknown) => {
      if (WorkerTimeoutError.isInstance(err)) return undefined;
      throw err;
    });
    if (!v) return undefined;
    if (v.awaiting && v.awaiting.eligible.length > 0) return v.awaiting;
    if (v.terminal) throw new Error(`the run ended (${v.terminal.class}/${v.terminal.reason}: ${v.terminal.detail ?? ''}) while the test waited for ${what}`);
    return undefined;
  }, what);
}
