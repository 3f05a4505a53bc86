// Temporal's own operations on a run, as an operator does them with the Temporal CLI or Web UI
// (`temporal workflow reset`, `temporal workflow delete`), through @temporalio/client's raw
// service API: the tests must exercise what the server does, not what this project's CLI does.
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

// Told apart by their attributes, as the CLI's JSON output shows them.
const isTaskCompleted = (e: HistoryEvent) => Boolean(e.workflowTaskCompletedEventAttributes);
const isActivityScheduled = (e: HistoryEvent) => Boolean(e.activityTaskScheduledEventAttributes);
const isActivityCompleted = (e: HistoryEvent) => Boolean(e.activityTaskCompletedEventAttributes);

/** The events of one execution of a workflow (the latest without a run id), oldest first. */
export async function historyOf(client: Client, workflowId: string, runId?: string): Promise<HistoryEvent[]> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return history.events ?? [];
}

export function eventId(event: HistoryEvent): number {
  return Number(event.eventId);
}

/** Ids of every WorkflowTaskCompleted event: the points a reset may go back to. */
export function workflowTaskCompletions(events: HistoryEvent[]): number[] {
  return events.filter(isTaskCompleted).map(eventId);
}

/**
 * The first WorkflowTaskCompleted after the completion of the `nth` (from 0) tool call of `tool`:
 * the task that went on from what that call returned (`--event-id` of a "mid" reset).
 */
export function taskAfterTool(events: HistoryEvent[], tool: string, nth = 0): number {
  const scheduled = events.filter((e) => isActivityScheduled(e) && activityInput(e).includes(`"tool":"${tool}"`))[nth];
  if (!scheduled) throw new Error(`no call ${nth} of ${tool} in the history`);
  const completed = events.find((e) => isActivityCompleted(e) && Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === eventId(scheduled));
  if (!completed) throw new Error(`the activity of ${tool} never completed`);
  const next = workflowTaskCompletions(events).find((id) => id > eventId(completed));
  if (next === undefined) throw new Error(`no workflow task completed after ${tool}`);
  return next;
}

/**
 * The WorkflowTaskCompleted of the task that accepted the first Update (an approval): going back
 * to it makes Temporal re-apply that Update to the new execution, which waits exactly there.
 */
export function taskOfFirstUpdate(events: HistoryEvent[]): number {
  const accepted = events.find((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
  if (!accepted) throw new Error('no Update was accepted in the history');
  const task = workflowTaskCompletions(events)
    .filter((id) => id < eventId(accepted))
    .at(-1);
  if (task === undefined) throw new Error('no workflow task completed before the Update');
  return task;
}

/** Whether Temporal re-applied an Update from before the reset point into this history. */
export function reappliedUpdates(events: HistoryEvent[]): number {
  // UPDATE_ADMITTED_EVENT_ORIGIN_REAPPLY: the one origin an admitted event has in a reset run.
  return events.filter((e) => Number(e.workflowExecutionUpdateAdmittedEventAttributes?.origin) === 1).length;
}

function activityInput(event: HistoryEvent): string {
  const payloads = event.activityTaskScheduledEventAttributes?.input?.payloads ?? [];
  return payloads.map((p) => (p.data ? Buffer.from(p.data).toString('utf8') : '')).join('\n');
}

/** `temporal workflow reset --event-id <id>`: a new execution from that task on; returns its run id. */
export async function resetTo(client: Client, workflowId: string, workflowTaskFinishEventId: number, runId?: string): Promise<string> {
  const response: temporal.api.workflowservice.v1.IResetWorkflowExecutionResponse = await client.workflowService.resetWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId, ...(runId ? { runId } : {}) },
    // An int64 in the proto; protobufjs encodes a plain number as one (`long` is not ours to import).
    workflowTaskFinishEventId:
      workflowTaskFinishEventId as unknown as temporal.api.workflowservice.v1.IResetWorkflowExecutionRequest['workflowTaskFinishEventId'],
    requestId: randomUUID(),
    reason: 'test: operator reset',
  });
  if (!response.runId) throw new Error('the reset returned no run id');
  return response.runId;
}

/**
 * `temporal workflow delete` of one execution (the latest, unless `which` names another), then
 * waits until the server no longer knows it (deletion is asynchronous; on the dev server it
 * takes some seconds). Returns its run id.
 */
export async function deleteAndForget(client: Client, workflowId: string, which?: string): Promise<string> {
  const runId = which ?? (await client.workflow.getHandle(workflowId).describe()).runId;
  await client.workflowService.deleteWorkflowExecution({ namespace: client.options.namespace, workflowExecution: { workflowId, runId } });
  for (let i = 0; i < 600; i++) {
    const gone = await client.workflow
      .getHandle(workflowId, runId)
      .describe()
      .then(
        () => false,
        (err: unknown) => err instanceof WorkflowNotFoundError,
      );
    if (gone) return runId;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${workflowId} (${runId}) was still known a minute after its deletion`);
}
