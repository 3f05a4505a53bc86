// Whether a signed approval was already spent by another execution of the same workflow id
// (a reset's discarded run, an earlier run re-sent the same statement): the server's histories
// say, read through the worker's own client. The workflow asks just before an approved effect is
// dispatched (workflows/statement-use.ts explains why the history, and not the run's state).
import { Context, heartbeat } from '@temporalio/activity';
import { isGrpcNotFound } from '../client/agent-client-failures.js';
import { startEventOf } from '../client/start-input.js';
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
      for (const fingerprint of await spentIn(ctx, execution.workflowId, other.runId, own.has(other.runId)))
        if (wanted.has(fingerprint)) uses.push({ fingerprint, runId: other.runId });
      heartbeat();
    }
    return uses;
  },
};

/**
 * What the run's own earlier executions spent, by namespace, workflow id and run id. Their
 * histories are final (each ended by continuing as new), so a worker reads each once, not on every
 * check: a run that has rolled over many times does not read its whole past for every approved
 * effect, and an attempt that ran out of time leaves the next one less to read. Only those, only
 * histories whose last event closes them (a listing's status can say closed of a paused run), and
 * only well-formed fingerprints: executions anyone can plant are read afresh each time, and fill nothing.
 */
const spentByEarlier = new Map<string, readonly string[]>();
const EARLIER_REMEMBERED = 10_000;
const FINGERPRINT = /^[0-9a-f]{24}$/;

/** The fingerprints of every statement the execution dispatched under (workflows/statement-use.ts). */
async function spentIn(ctx: Context, workflowId: string, runId: string, earlier: boolean): Promise<readonly string[]> {
  const key = `${ctx.info.namespace}/${workflowId}/${runId}`;
  const remembered = spentByEarlier.get(key);
  if (remembered) return remembered;
  const events = (await ctx.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
  const spent = events.flatMap((event) => {
    const id = event.activityTaskScheduledEventAttributes?.activityId;
    return id ? fingerprintsOf(id) : [];
  });
  if (earlier && events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes) {
    if (spentByEarlier.size >= EARLIER_REMEMBERED) spentByEarlier.delete(spentByEarlier.keys().next().value as string);
    spentByEarlier.set(
      key,
      spent.filter((f) => FINGERPRINT.test(f)),
    );
  }
  return spent;
}

/**
 * The executions this one continued from, back to the first: the server's own links (each
 * start event names the execution that continued as new into it), which no client can write.
 * A long run rolls over as often as it must, and each rollover is one more execution under the id.
 */
async function earlierExecutions(ctx: Context, execution: { workflowId: string; runId: string }): Promise<Set<string>> {
  const earlier = new Set<string>();
  let runId: string | undefined = execution.runId;
  while (runId) {
    // An execution gone from the server (past retention, or deleted) ends the walk: those before
    // it are then counted like any other, as they were before the walk existed. Any other error
    // fails the check, which then counts as spent (workflows/statement-spending.ts).
    const first: Awaited<ReturnType<typeof startEventOf>> = await startEventOf(ctx.client, execution.workflowId, runId).catch((err: unknown) => {
      if (isGrpcNotFound(err)) return undefined;
      throw err;
    });
    runId = first?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    if (!runId || earlier.has(runId)) break;
    earlier.add(runId);
    heartbeat();
  }
  return earlier;
}
