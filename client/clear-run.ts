// Clearing a stranded case: a run started on a task queue no worker polls can never be served,
// and because a case's run is started with REJECT_DUPLICATE (client/start-run.ts), even after
// it is terminated the case id stays taken and a start on the right queue is refused. Clearing
// terminates the run with a reason that says so, by whom and why (the server records it, and
// `status` shows it), and only a run closed that way lets a later start of its case begin a new
// run. A run that a worker serves, or that a worker ever ran a task of (it may have acted on the
// world), is cleared only when forced: the case may then run again.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { domainKey } from '../workflows/search-attributes.js';
import { RunNotFoundError } from './agent-errors.js';
import { isServed } from './serving-queues.js';
import { pollersOf } from './server-facts.js';

/** How a clear's termination reason begins; a start recognises a cleared case by it. */
const CLEAR_MARK = 'agent clear by ';
const CLEAR_REASON = /^agent clear by (.+?): /;
// The proto enum: only the close event (the request takes numbers).
const HISTORY_CLOSE_EVENT = 2;

export interface ClearOptions {
  /** Who clears it (recorded in the termination reason). */
  by: string;
  /** Why (recorded in the termination reason). */
  reason: string;
  /** Clear it even though a worker serves it, or has run it. */
  force?: boolean;
}

export type ClearResult =
  | { cleared: true; runId: string; taskQueue: string; domain: string | null; reason: string; served: boolean; worked: boolean }
  | { cleared: false; runId: string; taskQueue: string; domain: string | null; refused: string };

/** The reason a clear terminates a run with. */
export function clearReason(by: string, reason: string): string {
  return `${CLEAR_MARK}${by}: ${reason} (the case may be started again)`;
}

/** Who cleared a run, from its termination reason, or undefined if it was not a clear. */
export function clearedBy(terminationReason: string | null | undefined): string | undefined {
  return terminationReason ? CLEAR_REASON.exec(terminationReason)?.[1] : undefined;
}

/**
 * Whether the execution was closed by a clear, read from its close event (the server's record,
 * not anything a worker says).
 */
export async function wasCleared(client: Client, workflowId: string, runId: string): Promise<boolean> {
  const response = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId, runId },
    historyEventFilterType: HISTORY_CLOSE_EVENT,
  });
  const close = response.history?.events?.at(-1);
  return clearedBy(close?.workflowExecutionTerminatedEventAttributes?.reason) !== undefined;
}

/**
 * Terminates the open run `runId` as cleared, or says why not: it is closed already, or a worker
 * serves it or has run it and `force` was not given. An unknown run is RunNotFoundError.
 */
export async function clearRun(client: Client, runId: string, options: ClearOptions): Promise<ClearResult> {
  const handle = client.workflow.getHandle(runId);
  let described;
  try {
    described = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new RunNotFoundError(runId);
    throw err;
  }
  const taskQueue = described.taskQueue;
  const domain = described.typedSearchAttributes.get(domainKey) ?? null;
  const base = { runId, taskQueue, domain };
  if (described.status.name !== 'RUNNING') {
    const already = await wasCleared(client, runId, described.runId).catch(() => false);
    return already
      ? { ...base, cleared: false, refused: `run ${runId} was already cleared; the case may be started again` }
      : {
          ...base,
          cleared: false,
          refused: `run ${runId} is not open (it ${described.status.name.toLowerCase()}): only an open run can be cleared, and a run that ended stays the case's record`,
        };
  }
  const served = isServed(await pollersOf(client, taskQueue));
  const worked = await ranByAWorker(client, runId, described.runId);
  if ((served || worked) && !options.force) {
    const why = served
      ? `a worker polls its task queue ${taskQueue}, so it is not stranded (cancel stops it and keeps the case's record)`
      : `a worker already ran it on task queue ${taskQueue}, so it may have acted on the world`;
    return { ...base, cleared: false, refused: `run ${runId} was not cleared: ${why}; --force clears it anyway, and the case may then run again` };
  }
  const reason = clearReason(options.by, options.reason);
  await handle.terminate(reason);
  return { ...base, cleared: true, reason, served, worked };
}

/** Whether any worker ever completed a workflow task of the execution: only then could it have done anything. */
async function ranByAWorker(client: Client, workflowId: string, runId: string): Promise<boolean> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return (history.events ?? []).some((e) => e.workflowTaskCompletedEventAttributes != null);
}
