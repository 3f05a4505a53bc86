// The one look at a run that status, watch, export and the console share, for AgentClient.inspect.
// The server is asked first, and the worker only when the server's facts say it could answer: a
// run whose workflow task keeps failing would hold the state query for its whole bound, and a run
// no worker polls has nobody to ask, so both are said at once, in words; and what only the server
// knows (terminated, timed out, continued as new) stands beside whatever the worker does say.
import type { Client } from '@temporalio/client';
import type { RunView as StateAnswer } from '../workflows/messages.js';
import { translated } from './agent-client-failures.js';
import type { InspectOptions } from './agent-client-types.js';
import { RunNotFoundError, RunUnavailableError, WorkerTimeoutError } from './agent-errors.js';
import { seconds } from './bounded-calls.js';
import { describeError } from './errors.js';
import { noPollerWords, noticesOf, RunReport, workflowTaskFailingWords, type PollerFacts, type Unanswered } from './run-report.js';
import { serverFacts } from './server-facts.js';

/** What inspecting a run asks of the client: its connection, its pollers answer, its bounded state query. */
export interface InspectSources {
  readonly client: Client;
  pollers(taskQueue: string): Promise<PollerFacts>;
  queryState(runId: string, options: { timeoutMs: number; executionRunId?: string }): Promise<StateAnswer>;
}

/** AgentClient.inspect: the server's facts, and the worker's view when it could and did answer within `queryTimeoutMs` (unless `options.timeoutMs`). */
export async function inspectRun(sources: InspectSources, runId: string, options: InspectOptions, queryTimeoutMs: number): Promise<RunReport> {
  const facts = await serverFacts(sources.client, runId, (taskQueue) => sources.pollers(taskQueue), options.executionRunId).catch(translated(runId));
  let unanswered: Unanswered | null = null;
  let view: StateAnswer | null = null;
  let asked = false;
  if (facts.workflowTaskFailure) {
    // The server holds a query to a run in this state until it times out: nobody can answer it.
    unanswered = { kind: 'workflow_task_failing', message: workflowTaskFailingWords(facts.workflowTaskFailure, facts.taskQueue) };
  } else if (facts.pollers.checked && facts.pollers.recent === 0) {
    unanswered = { kind: 'no_poller', message: noPollerWords(facts.taskQueue, facts.pollers.lastPollAt) };
  } else if (facts.closed?.as === 'continued_as_new') {
    // An execution that continued as new hands its state on: the run is the later execution.
  } else if (options.askWorker !== false) {
    asked = true;
    const timeoutMs = options.timeoutMs ?? queryTimeoutMs;
    try {
      view = await sources.queryState(runId, { timeoutMs, ...(options.executionRunId ? { executionRunId: options.executionRunId } : {}) });
    } catch (err) {
      if (err instanceof RunNotFoundError) throw err;
      if (err instanceof WorkerTimeoutError)
        unanswered = { kind: 'timeout', message: `no worker answered the state query within ${seconds(timeoutMs)} (task queue ${facts.taskQueue})` };
      else if (err instanceof RunUnavailableError) unanswered = { kind: err.reason, message: noPollerWords(facts.taskQueue, facts.pollers.lastPollAt) };
      else unanswered = { kind: 'error', message: `the worker could not answer the state query: ${describeError(err)}` };
    }
  }
  return RunReport.parse({
    ...facts,
    answeredBy: view ? 'worker' : 'server',
    workerAsked: asked,
    unanswered,
    view,
    notices: noticesOf(facts, view, unanswered),
  });
}
