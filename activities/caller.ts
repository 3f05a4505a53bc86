// Whether the execution that scheduled an activity is one of the engine's runs. An activity can
// be scheduled on any task queue of the namespace, so anyone who reaches the frontend can run a
// workflow of their own, on a queue of their own, whose code schedules the engine's activities
// on the engine's queue: a tool call sent that way would reach the world with no controller, no
// gate and no person in between, and a read would hand a system's records to whoever asked. So
// the activities that touch a system (tool calls, readbacks, probes) ask the server first who
// scheduled them: an agent workflow on this very queue, whose workers run only the engine's code
// (the queue is reserved for them: docs/security.md). The type alone proves nothing, since anyone
// can name a workflow of theirs `agentWorkflow`; the queue does. A run's first such call costs one
// describe; the answer is kept for its others.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { AGENT_WORKFLOW_TYPE } from '../workflows/agent-workflow-type.js';
import { ErrorTypes } from '../workflows/policy.js';

/** Executions known to be the engine's runs, oldest first (one entry per execution). */
const known = new Map<string, Promise<string | undefined>>();
/** How many executions are remembered: enough for every run a worker serves at once, bounded all the same. */
const REMEMBERED = 10_000;

export type CallerVerdict = { ok: true } | { ok: false; stranger: true; reason: string } | { ok: false; stranger: false; reason: string };

/**
 * Whether the activity running now was scheduled by an agent run on its own task queue. A
 * stranger is refused outright; a server that cannot say (`stranger: false`) leaves the caller
 * unconfirmed, and the activity does nothing it cannot take back.
 */
export async function checkCaller(): Promise<CallerVerdict> {
  const { workflowExecution, taskQueue } = Context.current().info;
  if (!workflowExecution) return { ok: false, stranger: true, reason: 'the activity was not scheduled by a workflow' };
  const id = `${workflowExecution.workflowId}\n${workflowExecution.runId}`;
  let verdict = known.get(id);
  if (!verdict) {
    verdict = describeCaller(workflowExecution, taskQueue);
    known.set(id, verdict);
    if (known.size > REMEMBERED) known.delete(known.keys().next().value as string);
  }
  try {
    const stranger = await verdict;
    return stranger === undefined ? { ok: true } : { ok: false, stranger: true, reason: stranger };
  } catch (err) {
    known.delete(id); // asked again next time: the server's silence is not an answer
    return {
      ok: false,
      stranger: false,
      reason: `the server could not say who scheduled it (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`,
    };
  }
}

/** Why the execution is not one of the engine's runs on `taskQueue`; undefined when it is. */
async function describeCaller(execution: { workflowId: string; runId: string }, taskQueue: string): Promise<string | undefined> {
  const caller = await Context.current().client.workflow.getHandle(execution.workflowId, execution.runId).describe();
  if (caller.type !== AGENT_WORKFLOW_TYPE) return `it was scheduled by a ${caller.type.slice(0, 80)} workflow, not an agent run`;
  if (caller.taskQueue !== taskQueue) {
    return `it was scheduled by a workflow on task queue ${caller.taskQueue.slice(0, 120)}, not ${taskQueue} where this engine runs`;
  }
  return undefined;
}

/** What a stranger's call gets: a failure, nothing done, nothing sealed. */
export function strangerFailure(activity: string, reason: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`${activity} refused: ${reason}`, ErrorTypes.notAnAgentRun);
}
