// Whether a signed approval was already spent by another execution of the same workflow id
// (a reset's discarded run, an earlier run re-sent the same statement): the server's histories
// say, read through the worker's own client. The workflow asks just before an approved effect is
// dispatched (workflows/statement-use.ts explains why the history, and not the run's state).
import { Context, heartbeat } from '@temporalio/activity';
import type { temporal } from '@temporalio/proto';
import { AGENT_WORKFLOW_TYPE } from '../workflows/agent-workflow-type.js';
import { fingerprintsOf } from '../workflows/statement-use.js';

export interface StatementUse {
  fingerprint: string;
  /** The execution that dispatched under it. */
  runId: string;
}

/**
 * Other executions read at most, besides the run's own earlier executions (those it continued
 * from): a workflow id with more is refused rather than half-read. The bound is against
 * executions anyone can start under the id; the run's own rollovers are read however many there are.
 */
const MAX_EXECUTIONS = 50;

/** A string as a visibility query's literal. */
const literal = (value: string) => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;

export const usedStatementActivities = {
  async statementsUsedElsewhere({ fingerprints }: { fingerprints: string[] }): Promise<StatementUse[]> {
    const ctx = Context.current();
    const execution = ctx.info.workflowExecution;
    if (!execution) throw new Error('statementsUsedElsewhere runs only for a workflow');
    const wanted = new Set(fingerprints);
    const uses: StatementUse[] = [];
    const own = await earlierExecutions(ctx, execution);
    let read = 0;
    // Only the engine's runs take statements (workflows/statement-spending.ts): a workflow anyone
    // started under the id with another type spent nothing, and counting it would let them use up
    // the executions read here. Every queue counts: a domain may be served on more than one, and a
    // statement spent on one is spent on all.
    const query = `WorkflowId = ${literal(execution.workflowId)} AND WorkflowType = ${literal(AGENT_WORKFLOW_TYPE)}`;
    for await (const other of ctx.client.workflow.list({ query })) {
      if (other.runId === execution.runId) continue;
      if (!own.has(other.runId) && ++read > MAX_EXECUTIONS)
        throw new Error(`workflow id ${execution.workflowId} has more than ${MAX_EXECUTIONS} other executions to read`);
      const history = await ctx.client.workflow.getHandle(execution.workflowId, other.runId).fetchHistory();
      for (const event of history.events ?? []) {
        const id = event.activityTaskScheduledEventAttributes?.activityId;
        for (const fingerprint of id ? fingerprintsOf(id) : []) if (wanted.has(fingerprint)) uses.push({ fingerprint, runId: other.runId });
      }
      heartbeat();
    }
    return uses;
  },
};

/**
 * The executions this one continued from, back to the first: the server's own links (each
 * start event names the execution that continued as new into it), which no client can write.
 * A long run rolls over as often as it must, and each rollover is one more execution under the id.
 */
async function earlierExecutions(ctx: Context, execution: { workflowId: string; runId: string }): Promise<Set<string>> {
  const earlier = new Set<string>();
  let runId: string | undefined = execution.runId;
  while (runId) {
    const first: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse = await ctx.client.workflowService.getWorkflowExecutionHistory({
      namespace: ctx.info.namespace,
      execution: { workflowId: execution.workflowId, runId },
      maximumPageSize: 1,
    });
    runId = first.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    if (!runId || earlier.has(runId)) break;
    earlier.add(runId);
    heartbeat();
  }
  return earlier;
}
