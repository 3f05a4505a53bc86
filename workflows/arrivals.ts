// What reaches a run from outside (a signal, an Update, Temporal's own cancel, a timer, an activity
// a handler waits on) while the result of a seal check has not yet been acted on waits for it:
// the order in which they meet is not the same live and on replay.
//
// Why. Temporal's core (SDK 1.24.0) may hand the workflow a local activity's result one workflow
// task late: when it answers a query while the activity runs, it reports the task without the
// workflow's answer to the result and delivers the result with the next task's jobs, after them
// (signals, Updates, a cancel, fired timers and activity results come first). A replay of that
// history delivers the result first, in the task that scheduled it. Whatever the run did on those
// jobs before taking the result, it does after it on replay, and the worker that replays it stops
// on a nondeterminism error (test/replay/late-seal-check/ holds a real one). The run's only local
// activity is its seal check (sealed.ts), so from the moment a check starts until the loop has
// acted on its result and started its next work (workflows/agent.ts calls actedOn):
// * an Update is refused by its validator, which leaves no trace in history (the client sends it
//   again: client/bounded-calls.ts); accepting it would write to history at once;
// * anything else acts once the loop has started its next work, which is where a replay, having
//   taken the result first, finds the loop when the same job arrives;
// * a rollover (continue-as-new) at that point carries what waits to the next execution, which
//   takes it first (a rollover is no command replay compares by its input).
// The window is usually part of one task, but it lasts as long as the check does (core reports a
// long one's task and starts another) and covers a run's closing after a checked last step.
// Outside it, each arrival acts at once.
//
// What the task tells the workflow differs the same way: live, the loop acts on a late result at
// the next task's time, with its history length and its word on the build; on replay, at the
// check's own task. So in the window the loop reads them as they were when the check started
// (loopTask, loopNow): its clock, budgets, deadlines, soaks and rollovers judge by that, live and
// on replay alike. What arrives is stamped with the time it arrives (Date.now(), in handlers and
// timers): that is the same task live and on replay.
import { ApplicationFailure, CancellationScope, condition, workflowInfo } from '@temporalio/workflow';
import { z } from 'zod';
import { ErrorTypes } from './policy.js';
import { workerScoped } from './worker-scoped.js';

/** What a rollover may carry: cancels and the deadline, nothing that vouches for anything. */
const Carried = workerScoped('arrivals.Carried', () =>
  z
    .array(
      z.discriminatedUnion('type', [
        z.strictObject({ type: z.literal('cancelled'), now: z.number(), by: z.string().max(200), reason: z.string().max(2_000) }),
        z.strictObject({ type: z.literal('deadlinePassed'), now: z.number() }),
      ]),
    )
    .max(16),
);
/** The events that wait here: a cancel or the deadline (the controller's RunEvent has both). */
type Arrival = z.infer<typeof Carried>[number];

let unsettled = false;

/** What the workflow task says that the loop decides on. */
export type LoopTask = { now: number; historyLength: number; continueAsNewSuggested: boolean; buildChanged: boolean };

/** The task as it was when the window's latest seal check started; none outside the window. */
let asAtCheck: LoopTask | undefined;

function currentTask(): LoopTask {
  const info = workflowInfo();
  return {
    now: Date.now(),
    historyLength: info.historyLength,
    continueAsNewSuggested: info.continueAsNewSuggested,
    buildChanged: info.targetWorkerDeploymentVersionChanged,
  };
}

/** The task as the loop reads it: in the window, as it was when the check started. */
export function loopTask(): LoopTask {
  return asAtCheck ?? currentTask();
}

/** The loop's clock: in the window, the time the check started. */
export function loopNow(): number {
  return asAtCheck?.now ?? Date.now();
}

/** What waits: how it acts once the loop has acted on the check, and the event a rollover carries for it. */
const held: Array<{ act: () => void; carried: Arrival }> = [];

/** A seal check starts (sealed.ts): arrivals wait until the loop has acted on its result. */
export function sealCheckStarted(): void {
  unsettled = true;
  // Each check from its own start (the window's time stays no staler than its last check): a
  // check starts only on its own call's result (sealed.ts sealedCall), an activity's, which live
  // and replay hand over in the same task.
  asAtCheck = currentTask();
}

/** The loop has acted on every seal check so far and started its next work (or the run is closing). */
export function actedOn(): void {
  unsettled = false;
  asAtCheck = undefined;
}

/** For an Update's validator: refused, to be sent again, while a seal check is not acted on. */
export function refuseWhileUnsettled(): void {
  if (unsettled) {
    throw ApplicationFailure.retryable('the run is checking a result it just received; send this again in a moment', ErrorTypes.runBusy);
  }
}

/** Puts `event` on the loop's queue now, or once the loop has acted on the pending seal check. */
export function deliver(queue: { push(event: Arrival): unknown }, event: Arrival): void {
  whenSettled(() => queue.push(event), event);
}

/** For a handler that resumes after an await: a wait while a seal check is not acted on, else nothing. */
export function settling(): Promise<void> | undefined {
  return unsettled ? untilActedOn() : undefined;
}

/** Takes what still waits, for a rollover to carry (workflows/agent.ts): the next execution takes it first. */
export function takeHeld(): Arrival[] {
  // One of each kind: a second cancel or deadline changes nothing, and the next execution takes at most 16.
  const taken = held.splice(0).map((h) => h.carried);
  return taken.filter((event, i) => taken.findIndex((e) => e.type === event.type) === i);
}

/**
 * What the previous execution's rollover carried, to be taken first. Only with carried state,
 * which the run has checked is its own rollover's (carried-state.ts), and only cancels and the
 * deadline; anything else refuses the input.
 */
export function carriedArrivals(arrivals: unknown, withCarriedState: boolean): { ok: true; events: Arrival[] } | { ok: false; problem: string } {
  if (arrivals === undefined) return { ok: true, events: [] };
  if (!withCarriedState) return { ok: false, problem: 'arrivals are carried only with the state of a rollover' };
  const parsed = Carried.safeParse(arrivals);
  return parsed.success
    ? { ok: true, events: parsed.data }
    : { ok: false, problem: `carried arrivals are invalid: ${parsed.error.issues[0]?.message ?? 'unknown'}` };
}

/**
 * Runs the workflow in a scope that Temporal's own cancellation request reaches as an arrival:
 * at once, or once the loop has acted on a pending seal check. (Reaching the root at once, it
 * would cut short what the loop waits on before the check's result is taken, where replay takes
 * the result first.) A rollover carries it as the cancel the run takes for it (`temporal-cancel`).
 */
export function cancellationAsArrival<T>(run: () => Promise<T>, asEvent: () => Arrival): Promise<T> {
  const root = CancellationScope.current();
  const scope = new CancellationScope({ cancellable: true, parent: new CancellationScope({ cancellable: false }) });
  runScope = scope;
  void root.cancelRequested.catch(() => whenSettled(() => scope.cancel(), asEvent()));
  return scope.run(run);
}

/** The scope cancellationAsArrival runs the workflow in. */
let runScope: CancellationScope | undefined;

/**
 * Runs an Update handler in that scope: Temporal's cancel reaches what the handler waits on (a
 * directory read, the loop taking its event) as it reaches the run's own work, not sooner.
 */
export function inRunScope<T>(handler: () => Promise<T>): Promise<T> {
  return runScope ? runScope.run(handler) : handler();
}

function whenSettled(act: () => void, carried: Arrival): void {
  if (!unsettled) return act();
  const entry = { act, carried };
  held.push(entry);
  void untilActedOn().then(() => {
    const at = held.indexOf(entry);
    if (at < 0) return; // a rollover carried it
    held.splice(at, 1);
    entry.act();
  });
}

/** The wait, shielded: a cancel must not turn a held arrival into a failed workflow task. */
function untilActedOn(): Promise<void> {
  return CancellationScope.nonCancellable(() => condition(() => !unsettled));
}
