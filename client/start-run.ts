// Starting a run is idempotent per case: the workflow id is `${domain}-${caseId}`, a second
// start while the run is open attaches to it (USE_EXISTING), and a start after it has closed
// reports the closed run instead of starting the case over (REJECT_DUPLICATE): a case whose
// run may have moved money is never silently run twice.
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { findDomain } from '../domains/index.js';
import type { agentWorkflow } from '../workflows/agent.js';
import { RunInput } from '../workflows/run-input.js';
import { formatZodError } from './errors.js';

export class InvalidRunInputError extends Error {
  override name = 'InvalidRunInputError';
}

export interface StartedRun {
  /** The run id operators use everywhere: the workflow id. */
  runId: string;
  /** Temporal's id of the execution the start found or made (continue-as-new keeps the workflow id, not this). */
  executionRunId: string;
  /** True when a run for this case already existed and nothing new was started. */
  attached: boolean;
  /** False when the case's run has already closed. */
  running: boolean;
  handle: WorkflowHandle<typeof agentWorkflow>;
}

export function runIdFor(input: Pick<RunInput, 'domain' | 'caseId'>): string {
  return `${input.domain}-${input.caseId}`;
}

export async function startRun(client: Client, input: RunInput, taskQueue: string): Promise<StartedRun> {
  const parsed = RunInput.safeParse(input);
  if (!parsed.success) throw new InvalidRunInputError(`invalid run input: ${formatZodError(parsed.error)}`);
  const run = parsed.data;
  if (!findDomain(run.domain)) throw new InvalidRunInputError(`unknown domain ${run.domain}`);
  const workflowId = runIdFor(run);

  // The start response does not say whether it attached, so look first. Two starts racing
  // for a new case may both say "started"; they still share one run.
  const before = await describeOrUndefined(client, workflowId);
  try {
    // By name: the client need not load the workflow code to start it.
    const handle = await client.workflow.start<typeof agentWorkflow>('agentWorkflow', {
      taskQueue,
      workflowId,
      args: [{ run }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
    const attached = before?.status.name === 'RUNNING' && before.runId === handle.firstExecutionRunId;
    return { runId: workflowId, executionRunId: handle.firstExecutionRunId, attached, running: true, handle };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    const closed = await client.workflow.getHandle(workflowId).describe();
    return {
      runId: workflowId,
      executionRunId: closed.runId,
      attached: true,
      running: closed.status.name === 'RUNNING',
      handle: client.workflow.getHandle<typeof agentWorkflow>(workflowId),
    };
  }
}

async function describeOrUndefined(client: Client, workflowId: string) {
  try {
    return await client.workflow.getHandle(workflowId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}
