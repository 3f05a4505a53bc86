// What an operator's tool says about one run: the server's facts (execution status, task queue,
// whether any worker polls it, the last workflow-task failure, how the execution closed) beside
// the worker's own view when one answered in time. The run's state is what its worker replays,
// so it can be missing (nobody polls the queue, the task keeps failing) or frozen (the run was
// terminated mid-effect and still reads "acting"): the server's facts win, and this file turns
// them into the plain words `status`, `watch`, `list`, `export` and the console all print. It
// holds the schema and the words only (no Temporal client), so the console's views can use it.
import { z } from 'zod';
import type { RunView } from '../workflows/messages.js';
import { RunBuild } from './run-build.js';

/** A poll older than this means nobody is polling: a live worker's long poll lasts about a minute. */
export const POLLER_RECENT_MS = 70_000;

export const PollerFacts = z.strictObject({
  /** False when the server could not be asked; the state query is then tried anyway, bounded. */
  checked: z.boolean(),
  /** Workers whose last poll of the queue's workflow tasks is recent (within POLLER_RECENT_MS). */
  recent: z.number().int().min(0),
  /** The latest poll the server remembers (it forgets a worker about 5 minutes after its last poll). */
  lastPollAt: z.iso.datetime().nullable(),
  error: z.string().optional(),
});
export type PollerFacts = z.infer<typeof PollerFacts>;

export const ClosedAs = z.enum(['completed', 'failed', 'terminated', 'timed_out', 'cancelled', 'continued_as_new']);
export type ClosedAs = z.infer<typeof ClosedAs>;

export const ClosedFacts = z.strictObject({
  as: ClosedAs,
  at: z.iso.datetime().nullable(),
  /** Terminated: the reason given; failed: the failure's message. */
  reason: z.string().optional(),
  /** Who terminated or cancelled it, when the server recorded an identity. */
  by: z.string().optional(),
  /** Continued as new: the execution that carries the run on. */
  next: z.string().optional(),
});
export type ClosedFacts = z.infer<typeof ClosedFacts>;

export const WorkflowTaskFailure = z.strictObject({
  message: z.string(),
  /** Temporal's cause, e.g. WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR. */
  cause: z.string(),
  at: z.iso.datetime().nullable(),
  /** The pending task's attempt: it has failed attempt - 1 times in a row. */
  attempt: z.number().int().min(1),
});
export type WorkflowTaskFailure = z.infer<typeof WorkflowTaskFailure>;

export const Unanswered = z.strictObject({
  /** no_poller and workflow_task_failing: the state query was not sent, nobody could answer it. */
  kind: z.enum(['no_poller', 'workflow_task_failing', 'timeout', 'error']),
  message: z.string(),
});
export type Unanswered = z.infer<typeof Unanswered>;

/** The worker's view is checked for the two fields the report reads; the state query's own type says the rest. */
const WorkerView = z.custom<RunView>(
  (v) => typeof v === 'object' && v !== null && typeof (v as { state?: unknown }).state === 'object',
  'a run view ({state, budgetLeft, ...})',
);

/** The server's facts about the execution, before the worker is asked. */
export const ServerFacts = z.strictObject({
  runId: z.string(),
  /** Temporal's id of the execution described (the latest one, unless another was asked for). */
  executionRunId: z.string(),
  /** Temporal's execution status: RUNNING, COMPLETED, TERMINATED, CONTINUED_AS_NEW, ... */
  status: z.string(),
  taskQueue: z.string(),
  startTime: z.iso.datetime(),
  closeTime: z.iso.datetime().nullable(),
  historyLength: z.number().int().min(0),
  /** The run's search attributes, as the server holds them. */
  domain: z.string().nullable(),
  caseId: z.string().nullable(),
  phase: z.string().nullable(),
  terminal: z.string().nullable(),
  stopReason: z.string().nullable(),
  pollers: PollerFacts,
  closed: ClosedFacts.nullable(),
  /** Set while the run's latest workflow task failed and a new attempt waits. */
  workflowTaskFailure: WorkflowTaskFailure.nullable(),
  /** The build the execution is on under Worker Versioning (client/run-build.ts); absent when it is not versioned. */
  build: RunBuild.optional(),
});
export type ServerFacts = z.infer<typeof ServerFacts>;

/** One look at a run (AgentClient.inspect): the server's facts (status, task queue, pollers, how it closed), and the worker's view when it answered. */
export const RunReport = z.strictObject({
  ...ServerFacts.shape,
  /** Which path answered: the worker's own view, or the server's facts alone. */
  answeredBy: z.enum(['worker', 'server']),
  /** Whether the state query was sent at all: not when the server says nobody would answer it. */
  workerAsked: z.boolean(),
  /** Why there is no worker's view. */
  unanswered: Unanswered.nullable(),
  view: WorkerView.nullable(),
  /** What the server knows that the run's own state cannot say, in words, most important first. */
  notices: z.array(z.string()),
});
export type RunReport = z.infer<typeof RunReport>;

const CLOSED_WORDS: Record<string, ClosedAs> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  CANCELLED: 'cancelled',
  CONTINUED_AS_NEW: 'continued_as_new',
};

/** How the execution closed, from Temporal's status name; undefined while it runs. */
export function closedAsOf(status: string): ClosedAs | undefined {
  return CLOSED_WORDS[status];
}

/** Temporal's status name as a person says it: `terminated`, `continued as new`, `timed out`. */
export function statusWords(status: string): string {
  return status.toLowerCase().replace(/_/g, ' ');
}

/** `terminated at ... by ...: reason`, for a run whose own state does not say it ended. */
export function closedWords(closed: ClosedFacts, recordedOutcome: boolean): string {
  const stop = recordedOutcome || closed.as === 'continued_as_new' ? '' : '; the run recorded no outcome and will not move again';
  return `${CLOSED_VERBS[closed.as]}${closedDetail(closed)}${stop}`;
}

const CLOSED_VERBS: Record<ClosedAs, string> = {
  completed: 'completed',
  failed: 'failed',
  terminated: 'terminated',
  timed_out: 'timed out',
  cancelled: 'cancelled through Temporal',
  continued_as_new: 'continued as new',
};

/** When, by whom and why it closed: ` at ... by ...: reason`. */
export function closedDetail(closed: ClosedFacts): string {
  const at = closed.at ? ` at ${closed.at}` : '';
  const by = closed.by ? ` by ${closed.by}` : '';
  switch (closed.as) {
    case 'terminated':
    case 'failed':
    case 'cancelled':
      return `${at}${by}${closed.reason ? `: ${oneLine(closed.reason)}` : ''}`;
    case 'timed_out':
      return `${at}: the execution's time limit passed`;
    case 'continued_as_new':
      return `${at}${closed.next ? `: execution ${closed.next} carries the run on` : ''}`;
    case 'completed':
      return at;
  }
}

export function noPollerWords(taskQueue: string, lastPollAt: string | null, now = Date.now()): string {
  const last = lastPollAt ? ` (the last poll was ${ago(now - Date.parse(lastPollAt))} ago)` : '';
  return `no worker is polling task queue ${taskQueue}${last}`;
}

export function workflowTaskFailingWords(failure: Pick<WorkflowTaskFailure, 'message'>, taskQueue: string): string {
  return `the run's workflow task is failing: ${oneLine(failure.message)} (is another worker with other workflow code polling task queue ${taskQueue}?)`;
}

/** The notices for a report: how it closed (when its state does not say), a failing task, why no worker answered. */
export function noticesOf(facts: ServerFacts, view: RunView | null, unanswered: Unanswered | null): string[] {
  const notices: string[] = [];
  const recorded = !!view?.state.terminal || (facts.terminal !== null && facts.phase === 'terminal');
  if (facts.closed && (facts.closed.as !== 'completed' || !recorded)) notices.push(closedWords(facts.closed, recorded));
  if (facts.workflowTaskFailure) notices.push(workflowTaskFailingWords(facts.workflowTaskFailure, facts.taskQueue));
  if (unanswered?.kind === 'workflow_task_failing')
    notices.push("showing what the server knows (the state query was not sent: nobody can answer it while the run's workflow task fails)");
  else if (unanswered?.kind === 'no_poller') notices.push(`${unanswered.message}; showing what the server knows (the state query was not sent)`);
  else if (unanswered) notices.push(`${unanswered.message}; showing what the server knows`);
  return notices;
}

/**
 * The effects a closed run left in flight: its state still says `in_flight`, but nothing will
 * read them back. Empty while the run runs or when it recorded how it ended.
 */
export function abandonedEffects(report: Pick<RunReport, 'closed' | 'view'>): NonNullable<RunReport['view']>['state']['effects'] {
  if (!report.closed || !report.view || report.view.state.terminal) return [];
  return report.view.state.effects.filter((e) => e.status === 'in_flight');
}

/** What an abandoned effect means, in words. */
export function abandonedWords(closed: ClosedFacts): string {
  return `was in flight when the run ${closed.as === 'terminated' ? 'was terminated' : `closed (${statusWords(closed.as)})`}: nothing will read it back, so its outcome is unknown (check the system of record)`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.round(s / 60);
  return m < 120 ? `${m}m` : `${Math.round(m / 60)}h`;
}
