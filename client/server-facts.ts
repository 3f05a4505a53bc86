// Reads what the Temporal server knows about a run without asking any worker: its description
// (status, task queue, search attributes, the pending workflow task, the build it is on), whether any worker polls
// its task queue (describeTaskQueue), and, only when the description says there is something to
// explain, the last events of its history: how it closed (who terminated it and why, the failure,
// the execution it continued as) and the message of a workflow task that keeps failing. Every
// call is bounded, so a slow server cannot turn "what does the server know" into a hang.
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { ProtoFailure, TypedSearchAttributes } from '@temporalio/common';
import { caseKey, domainKey, phaseKey, stopReasonKey, terminalKey } from '../workflows/search-attributes.js';
import { buildOf, type RunBuild } from './run-build.js';
import { openedFailureMessage } from './sealed-failure.js';
import { closedAsOf, POLLER_RECENT_MS, ServerFacts, type ClosedFacts, type PollerFacts, type WorkflowTaskFailure } from './run-report.js';

/** How long each call to the server may take. */
const SERVER_CALL_MS = 5_000;
/** How far back in the history the close event and the last workflow-task outcome are looked for. */
const LAST_EVENTS = 50;
// The proto enums' values for a normal task queue and its workflow tasks (the request takes numbers).
const TASK_QUEUE_KIND_NORMAL = 1;
const TASK_QUEUE_TYPE_WORKFLOW = 1;
/**
 * A timed-out workflow task is retried at once, and one retry is routine (the worker that held it
 * stopped); only a task still not done after this many attempts is reported as failing.
 */
const TIMEOUTS_BEFORE_FAILING = 2;
/** WorkflowTaskFailedCause values worth naming; the SDK retries the others by itself at once. */
const FAILED_CAUSES: Record<number, string> = { 14: 'WORKFLOW_WORKER_UNHANDLED_FAILURE', 24: 'NON_DETERMINISTIC_ERROR', 21: 'BAD_BINARY' };
/** Failures that are part of normal work (an evicted cache, a signal during completion, a reset), not a failing run. */
const ROUTINE_CAUSES = new Set([
  1,
  13,
  20,
  'WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND',
  'WORKFLOW_TASK_FAILED_CAUSE_RESET_STICKY_TASK_QUEUE',
  'WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW',
]);

/** The run's search attributes: what the server knows of its domain, case and progress. */
export function fromSearchAttributes(sa: TypedSearchAttributes): Pick<ServerFacts, 'domain' | 'caseId' | 'phase' | 'terminal' | 'stopReason'> {
  return {
    domain: sa.get(domainKey) ?? null,
    caseId: sa.get(caseKey) ?? null,
    phase: sa.get(phaseKey) ?? null,
    terminal: sa.get(terminalKey) ?? null,
    stopReason: sa.get(stopReasonKey) ?? null,
  };
}

/** Whether any worker polls the queue's workflow tasks now; an unanswerable server is `checked: false`. */
export async function pollersOf(client: Client, taskQueue: string, now = Date.now): Promise<PollerFacts> {
  try {
    const response = await client.connection.withDeadline(Date.now() + SERVER_CALL_MS, () =>
      client.workflowService.describeTaskQueue({
        namespace: client.options.namespace,
        taskQueue: { name: taskQueue, kind: TASK_QUEUE_KIND_NORMAL },
        taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
      }),
    );
    const polls = (response.pollers ?? []).map((p) => millis(p.lastAccessTime)).filter((t): t is number => t !== undefined);
    const at = now();
    const last = polls.length ? Math.max(...polls) : undefined;
    return {
      checked: true,
      recent: polls.filter((t) => at - t <= POLLER_RECENT_MS).length,
      lastPollAt: last === undefined ? null : new Date(last).toISOString(),
    };
  } catch (err) {
    return { checked: false, recent: 0, lastPollAt: null, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The server's facts about the run (its latest execution, or `executionRunId`). `pollers` is
 * passed in so a caller can share one answer per task queue between many runs. Errors of the
 * description itself (no such run) are the caller's to translate.
 */
export async function serverFacts(
  client: Client,
  runId: string,
  pollers: (taskQueue: string) => Promise<PollerFacts>,
  executionRunId?: string,
): Promise<ServerFacts> {
  const info = await client.connection.withDeadline(Date.now() + SERVER_CALL_MS, () => client.workflow.getHandle(runId, executionRunId).describe());
  const closedAs = closedAsOf(info.status.name);
  const attempt = pendingAttempt(info);
  // A running run whose task has not failed needs no history: the cheap path for the usual case.
  const [polled, last] = await Promise.all([pollers(info.taskQueue), closedAs || attempt > 1 ? lastEvents(client, runId, info.runId) : Promise.resolve([])]);
  const failure = lastWorkflowTaskFailure(last, closedAs ? 1 : attempt, !closedAs && attempt > TIMEOUTS_BEFORE_FAILING);
  return ServerFacts.parse({
    runId: info.workflowId,
    executionRunId: info.runId,
    status: info.status.name,
    taskQueue: info.taskQueue,
    startTime: info.startTime.toISOString(),
    closeTime: info.closeTime?.toISOString() ?? null,
    historyLength: info.historyLength,
    ...fromSearchAttributes(info.typedSearchAttributes),
    pollers: polled,
    closed: closedAs ? closedFacts(closedAs, last, info.closeTime) : null,
    // A closed run reports a failure only if its last workflow task failed before it closed.
    workflowTaskFailure: closedAs || attempt > 1 ? failure : null,
    ...withBuild(buildOf(info)),
  });
}

function withBuild(build: RunBuild | null): { build?: RunBuild } {
  return build ? { build } : {};
}

function pendingAttempt(info: WorkflowExecutionDescription): number {
  const attempt = info.raw.pendingWorkflowTask?.attempt;
  return typeof attempt === 'number' ? attempt : 0;
}

/** The newest events first, at most LAST_EVENTS of them. */
type HistoryEvent = Record<string, unknown> & { eventTime?: unknown };

async function lastEvents(client: Client, workflowId: string, runId: string): Promise<HistoryEvent[]> {
  try {
    const response = await client.connection.withDeadline(Date.now() + SERVER_CALL_MS, () =>
      client.workflowService.getWorkflowExecutionHistoryReverse({
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        maximumPageSize: LAST_EVENTS,
      }),
    );
    return await Promise.all(((response.history?.events ?? []) as unknown as HistoryEvent[]).map((event) => withFailureOpened(client, event)));
  } catch {
    // Without the history the status alone still says how the run closed.
    return [];
  }
}

/** The event with its failure's message opened (client/sealed-failure.ts), for the words about it. */
async function withFailureOpened(client: Client, event: HistoryEvent): Promise<HistoryEvent> {
  for (const kind of ['workflowTaskFailed', 'workflowExecutionFailed']) {
    const failure = attributes(event, kind)?.failure as ProtoFailure | undefined;
    if (!failure?.encodedAttributes) continue;
    return {
      ...event,
      [`${kind}EventAttributes`]: { ...attributes(event, kind), failure: { ...failure, message: await openedFailureMessage(client, failure) } },
    };
  }
  return event;
}

/** The attributes object of an event of one kind (events are told apart by which one is set, not by the proto enum). */
function attributes(event: HistoryEvent | undefined, kind: string): Record<string, unknown> | undefined {
  const value = event?.[`${kind}EventAttributes`];
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

function closedFacts(as: ClosedFacts['as'], newestFirst: HistoryEvent[], closeTime: Date | undefined): ClosedFacts {
  const close = newestFirst[0];
  const at = millis(close?.eventTime) ?? closeTime?.getTime();
  const facts: ClosedFacts = { as, at: at === undefined ? null : new Date(at).toISOString() };
  const terminated = attributes(close, 'workflowExecutionTerminated');
  if (terminated) Object.assign(facts, text('reason', terminated.reason), text('by', terminated.identity));
  const failed = attributes(close, 'workflowExecutionFailed');
  if (failed) Object.assign(facts, text('reason', (failed.failure as { message?: unknown } | undefined)?.message));
  const continued = attributes(close, 'workflowExecutionContinuedAsNew');
  if (continued) Object.assign(facts, text('next', continued.newExecutionRunId));
  if (as === 'cancelled') {
    const requested = newestFirst.map((e) => attributes(e, 'workflowExecutionCancelRequested')).find((a) => a !== undefined);
    if (requested) Object.assign(facts, text('by', requested.identity), text('reason', requested.cause));
  }
  return facts;
}

/**
 * The last workflow task's failure, if the last workflow task that ended in the history failed
 * (a completed one after it means the run recovered). Repeated failures of one task are not
 * written again: the first one's message stands for them.
 */
export function lastWorkflowTaskFailure(newestFirst: HistoryEvent[], attempt: number, timeoutsCount: boolean): WorkflowTaskFailure | null {
  for (const event of newestFirst) {
    if (attributes(event, 'workflowTaskCompleted')) return null;
    // A first attempt that timed out (a slow or vanished worker) makes the later attempts transient:
    // their failures are never written, so the timeout is all the history can say.
    const timedOut = attributes(event, 'workflowTaskTimedOut');
    if (timedOut && timeoutsCount) {
      const at = millis(event.eventTime);
      return {
        message: `the workflow task timed out (${attempt} attempts so far; a worker took longer than the task's timeout, or stopped, and the later attempts' failures are not recorded)`,
        cause: 'TIMED_OUT',
        at: at === undefined ? null : new Date(at).toISOString(),
        attempt,
      };
    }
    const failed = attributes(event, 'workflowTaskFailed');
    if (failed) {
      if (ROUTINE_CAUSES.has(failed.cause as number | string)) return null;
      const message = (failed.failure as { message?: unknown } | undefined)?.message;
      const at = millis(event.eventTime);
      return {
        message: typeof message === 'string' && message ? message : 'no message recorded',
        cause: typeof failed.cause === 'number' ? (FAILED_CAUSES[failed.cause] ?? String(failed.cause)) : String(failed.cause ?? 'unspecified'),
        at: at === undefined ? null : new Date(at).toISOString(),
        attempt: Math.max(1, attempt),
      };
    }
  }
  return null;
}

function text<K extends string>(key: K, value: unknown): Partial<Record<K, string>> {
  return typeof value === 'string' && value.trim() ? ({ [key]: value.trim() } as Record<K, string>) : {};
}

/** A protobuf Timestamp ({seconds: Long|number|string, nanos}) in milliseconds. */
function millis(ts: unknown): number | undefined {
  if (!ts || typeof ts !== 'object') return undefined;
  const { seconds, nanos } = ts as { seconds?: unknown; nanos?: unknown };
  if (seconds === undefined || seconds === null) return undefined;
  const s = Number(String(seconds));
  if (!Number.isFinite(s)) return undefined;
  return s * 1000 + Math.floor((typeof nanos === 'number' ? nanos : 0) / 1e6);
}
