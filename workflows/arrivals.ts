// What reaches a run from outside (a signal, an Update, a timer, an activity a handler waits on)
// while the result of a seal check has not yet been acted on waits for it: the order in which
// they meet is not the same live and on replay.
//
// Why. Temporal's core (SDK 1.24.0) may hand the workflow a local activity's result one workflow
// task late: when it answers a query while the activity runs, it reports the task without the
// result and delivers it with the next task's jobs, after them (signals, Updates, fired timers
// and activity results come first). A replay of that history delivers the result first, in
// the task that scheduled it. Whatever the run did on those jobs before taking the result, it
// does after it on replay, and the worker that replays it stops on a nondeterminism error
// (test/replay/late-seal-check/ holds a real one). The run's only local activity is its seal check
// (sealed.ts), so from the moment a check starts until the loop has acted on its result and
// started its next work (workflows/agent.ts calls actedOn):
// * an Update is refused by its validator, which leaves no trace in history (the client sends it
//   again: client/bounded-calls.ts); accepting it would write to history at once;
// * anything else runs once the loop has started its next work, which is where a replay, having
//   taken the result first, finds the loop when the same job arrives.
// Outside that window each arrival acts at once, exactly as before.
import { ApplicationFailure, condition } from '@temporalio/workflow';
import { ErrorTypes } from './policy.js';

let unsettled = false;

/** A seal check starts (sealed.ts): arrivals wait until the loop has acted on its result. */
export function sealCheckStarted(): void {
  unsettled = true;
}

/** The loop has acted on every seal check so far and started its next work (or the run is closing). */
export function actedOn(): void {
  unsettled = false;
}

/** For an Update's validator: refused, to be sent again, while a seal check is not acted on. */
export function refuseWhileUnsettled(): void {
  if (unsettled) {
    throw ApplicationFailure.retryable('the run is checking a result it just received; send this again in a moment', ErrorTypes.runBusy);
  }
}

/** Runs `act` now, or once the loop has acted on the pending seal check. */
export function whenSettled(act: () => void): void {
  if (!unsettled) act();
  else void condition(() => !unsettled).then(act);
}

/**
 * For a handler that resumes after an await: a wait while a seal check is not acted on, else
 * nothing. (Awaited only when there is one: an await of nothing still yields, and would move
 * the handler after work it ran before on every history already recorded.)
 */
export function settling(): Promise<void> | undefined {
  return unsettled ? condition(() => !unsettled) : undefined;
}
