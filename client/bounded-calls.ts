// The calls that need a worker to answer (the state query, the approve, deny, amend and note
// updates), each under a deadline. Without one, a run whose worker is gone would hang its caller;
// with one, silence becomes WorkerTimeoutError, the server's "nobody polls this queue" becomes
// RunUnavailableError naming the queue, and a validator's refusal becomes RequestRejectedError
// in the validator's own words.
import {
  ApplicationFailure,
  isGrpcCancelledError,
  isGrpcDeadlineError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import type { AgentWorkflow } from '../workflows/agent.js';
import { stateQuery, type RunView as StateAnswer } from '../workflows/messages.js';
import { ErrorTypes } from '../workflows/policy.js';
import { isNoPoller, translate } from './agent-client-failures.js';
import { RequestRejectedError, RunUnavailableError, WorkerTimeoutError } from './agent-errors.js';
import { describeError } from './errors.js';
import { noPollerWords } from './run-report.js';
import { currentAnswer } from './to-run-view.js';

/** How long a state query may take before the run counts as unanswered (no worker?). */
export const QUERY_TIMEOUT_MS = 15_000;
/** How long an update (approve, deny, note) may take before the run counts as unanswered. */
export const UPDATE_TIMEOUT_MS = 30_000;

/** The updates a client sends a run. */
export type UpdateName = 'approve' | 'deny' | 'amend' | 'note';

/**
 * The state query under a deadline of `timeoutMs`. `taskQueueOf` is asked only when the server
 * refuses because no worker polls the run's queue, to say which queue.
 */
export async function boundedStateQuery(
  client: Client,
  runId: string,
  query: { timeoutMs: number; executionRunId: string | undefined; taskQueueOf: () => Promise<string> },
): Promise<StateAnswer> {
  const { timeoutMs } = query;
  const deadline = Date.now() + timeoutMs;
  try {
    const answer = await client.connection.withDeadline(deadline, () =>
      client.workflow.getHandle<AgentWorkflow>(runId, query.executionRunId).query(stateQuery),
    );
    return currentAnswer(answer);
  } catch (err) {
    // At the deadline the call may end as DEADLINE_EXCEEDED or as CANCELLED: both mean no answer in time.
    if (isGrpcDeadlineError(err) || (isGrpcCancelledError(err) && Date.now() >= deadline - 50)) {
      throw new WorkerTimeoutError(
        runId,
        'state query',
        timeoutMs,
        `run ${runId} did not answer the state query within ${seconds(timeoutMs)} (is a worker running?)`,
      );
    }
    // The server refuses at once when its queue has had no poller for a while: say which queue.
    if (isNoPoller(err)) {
      const taskQueue = await query.taskQueueOf().catch(() => '(unknown)');
      throw new RunUnavailableError(runId, 'no_poller', taskQueue, `run ${runId}: ${noPollerWords(taskQueue, null)}`);
    }
    throw translate(err, runId);
  }
}

/** An update under a deadline, so a run whose worker is gone gives an error instead of a hang. */
export async function boundedUpdate<T>(client: Client, runId: string, request: UpdateName, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  try {
    return await client.connection.withDeadline(deadline, () => sentUntilTaken(fn, deadline));
  } catch (err) {
    if (isGrpcDeadlineError(err) || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
      throw new WorkerTimeoutError(
        runId,
        request,
        timeoutMs,
        `run ${runId} did not answer the ${request} within ${seconds(timeoutMs)} (is a worker running?); it may still be delivered when one is`,
      );
    }
    // The validator's words are the useful part: `bob may not decide ...`, `already decided`.
    if (err instanceof WorkflowUpdateFailedError) throw new RequestRejectedError(runId, request, describeError(err).replace(/^rejected: /, ''));
    throw translate(err, runId);
  }
}

/**
 * Sends the update again while the run refuses it as busy: it is acting on a result it just
 * checked, and an Update it accepted then would not replay (workflows/arrivals.ts). A refusal
 * leaves no trace in the run, so sending again is safe; the window is usually part of one workflow task.
 */
export async function sentUntilTaken<T>(fn: () => Promise<T>, deadline: number): Promise<T> {
  for (let wait = 50; ; wait = Math.min(wait * 2, 1_000)) {
    try {
      return await fn();
    } catch (err) {
      if (!isRunBusy(err) || Date.now() + wait >= deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** The run's validator refused the update only because it was busy (ErrorTypes.runBusy). */
function isRunBusy(err: unknown): boolean {
  return err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === ErrorTypes.runBusy;
}

/** A bound in words: `15s`. */
export function seconds(ms: number): string {
  return `${ms / 1000}s`;
}
