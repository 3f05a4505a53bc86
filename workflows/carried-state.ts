// State a run takes over from an earlier execution (a continue-as-new) is the controller's whole
// memory: what was approved, what is in doubt, what was spent. Anyone who reaches the frontend can
// start the workflow with state of their own making, so the run accepts carried state only from
// its own rollover, as the server records it, and only as a rollover writes it (nothing in
// flight, nothing in doubt); anything else is refused before the first command.
import { ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.js';
import { callsInFlight, effectsInDoubt, type RunState } from './controller/index.js';
import { continuationOptions, ErrorTypes } from './policy.js';
import { CHECK_DID_NOT_RUN, sealedCall } from './sealed.js';

/** Asks the server whether carried state is this run's own (refuseStateFromElsewhere). */
const continuations = proxyActivities<AgentActivities>(continuationOptions);

/**
 * Carried state is accepted only from this run's own continue-as-new: a client that starts the
 * workflow with made-up state gets a refusal. An effect it says is in flight without an
 * approval on record is dropped from flight, so it has to pass the gate again.
 */
export function refuseForeignState(carried: RunState): void {
  const info = workflowInfo();
  if (!info.continuedFromExecutionRunId) {
    throw ApplicationFailure.nonRetryable("carried state is accepted only from this run's own continue-as-new", ErrorTypes.invalidRunInput);
  }
  if (carried.runId !== info.workflowId) throw ApplicationFailure.nonRetryable(`carried state belongs to run ${carried.runId}`, ErrorTypes.invalidRunInput);
  // Runs roll over only at quiet points (nothing in flight, no effect in doubt): state that
  // says otherwise was not written by a rollover, and nothing in it may skip the gate.
  if (callsInFlight(carried).length > 0 || effectsInDoubt(carried).length > 0) {
    throw ApplicationFailure.nonRetryable('carried state has calls in flight or in doubt; it was not written at a rollover', ErrorTypes.invalidRunInput);
  }
}

export async function refuseStateFromElsewhere(): Promise<void> {
  const previousRunId = workflowInfo().continuedFromExecutionRunId;
  if (!previousRunId) throw ApplicationFailure.nonRetryable("carried state is accepted only from this run's own continue-as-new", ErrorTypes.invalidRunInput);
  // Its seal is checked now, not with a later effect as a read's is: everything the run does next
  // (what it shows an approver, a terminal it carries) rests on this answer.
  const opened = await sealedCall<{ ok?: unknown; reason?: unknown }>((nonce) => continuations.checkContinuation({ previousRunId, nonce }));
  // A check that could not run says nothing either way: the workflow task fails and is tried
  // again, rather than an honest run ending on a worker's bad moment.
  if (!opened.sealed && opened.reason.startsWith(CHECK_DID_NOT_RUN)) throw new Error(`the continuation check's answer was not checked: ${opened.reason}`);
  const reason = !opened.sealed
    ? `the check's answer is not a worker's (${opened.reason})`
    : opened.value?.ok === true
      ? undefined
      : String(opened.value?.reason ?? '');
  if (reason !== undefined)
    throw ApplicationFailure.nonRetryable(`carried run state refused: ${reason || 'not written by this engine'}`, ErrorTypes.invalidRunInput);
}
