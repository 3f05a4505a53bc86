// Reading a run: the `state` query, bounded so a missing worker is an error, not a hang.
import { isGrpcDeadlineError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { AgentWorkflow } from '../workflows/agent.js';
import { stateQuery, type RunView } from '../workflows/messages.js';
import { CliError } from './errors.js';

export const QUERY_TIMEOUT_MS = 15_000;
export const UPDATE_TIMEOUT_MS = 30_000;

export function runHandle(client: Client, runId: string): WorkflowHandle<AgentWorkflow> {
  return client.workflow.getHandle<AgentWorkflow>(runId);
}

export async function fetchView(client: Client, runId: string): Promise<RunView> {
  const handle = runHandle(client, runId);
  try {
    return await client.connection.withDeadline(Date.now() + QUERY_TIMEOUT_MS, () => handle.query(stateQuery));
  } catch (err) {
    if (isGrpcDeadlineError(err)) {
      throw new CliError(`run ${runId} did not answer the state query within ${QUERY_TIMEOUT_MS / 1000}s (is a worker running?)`);
    }
    throw err;
  }
}

/**
 * Runs an update (or anything else that needs a worker) under a deadline, so a run whose
 * worker is gone gives an error instead of a hang.
 */
export async function withWorkerDeadline<T>(client: Client, runId: string, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await client.connection.withDeadline(Date.now() + UPDATE_TIMEOUT_MS, fn);
  } catch (err) {
    if (isGrpcDeadlineError(err) || (err instanceof Error && err.name === 'WorkflowUpdateRPCTimeoutOrCancelledError')) {
      throw new CliError(`run ${runId} did not answer the ${what} within ${UPDATE_TIMEOUT_MS / 1000}s (is a worker running?); it may still be delivered when one is`);
    }
    throw err;
  }
}
