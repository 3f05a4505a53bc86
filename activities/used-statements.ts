// Whether a signed approval was already spent by another execution of the same workflow id
// (a reset's discarded run, an earlier run re-sent the same statement): the server's histories
// say, read through the worker's own client. The workflow asks just before an approved effect is
// dispatched (workflows/statement-use.ts explains why the history, and not the run's state).
import { Context, heartbeat } from '@temporalio/activity';
import { AGENT_WORKFLOW_TYPE } from '../workflows/agent-workflow-type.js';
import { fingerprintsOf } from '../workflows/statement-use.js';

export interface StatementUse {
  fingerprint: string;
  /** The execution that dispatched under it. */
  runId: string;
}

/** Other executions read at most: a workflow id with more is refused rather than half-read. */
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
    let read = 0;
    // Only the engine's runs take statements (workflows/statement-spending.ts): a workflow anyone
    // started under the id with another type spent nothing, and counting it would let them use up
    // the executions read here. Every queue counts: a domain may be served on more than one, and a
    // statement spent on one is spent on all.
    const query = `WorkflowId = ${literal(execution.workflowId)} AND WorkflowType = ${literal(AGENT_WORKFLOW_TYPE)}`;
    for await (const other of ctx.client.workflow.list({ query })) {
      if (other.runId === execution.runId) continue;
      if (++read > MAX_EXECUTIONS) throw new Error(`workflow id ${execution.workflowId} has more than ${MAX_EXECUTIONS} other executions to read`);
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
