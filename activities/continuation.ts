// Whether a continued execution's carried state was written by the engine. Anyone who reaches
// the frontend can run a workflow of their own that continues as new into the agent workflow
// type, handing it state they wrote (made-up facts, an approval request naming themselves).
// The engine's rollover is the only legitimate writer, and it is recognisable from the server's
// record of the execution that continued: an agent workflow, on this very task queue (whose
// workers run only the engine's code), closed as continued-as-new. The server is asked, not the
// carried state, which says whatever its writer wanted.
import { Context } from '@temporalio/activity';
import { AGENT_WORKFLOW_TYPE } from '../workflows/agent-workflow-type.js';

export interface ContinuationVerdict {
  ok: boolean;
  /** Why the carried state is refused, for the run's failure message. */
  reason?: string;
}

export const continuationActivities = {
  async checkContinuation({ previousRunId }: { previousRunId: string }): Promise<ContinuationVerdict> {
    const ctx = Context.current();
    const { workflowExecution, taskQueue } = ctx.info;
    if (!workflowExecution) return { ok: false, reason: 'the activity was not started by a workflow' };
    const previous = await ctx.client.workflow.getHandle(workflowExecution.workflowId, previousRunId).describe();
    if (previous.type !== AGENT_WORKFLOW_TYPE) return { ok: false, reason: `the state was carried in from a ${previous.type} workflow, not an agent run` };
    if (previous.taskQueue !== taskQueue) {
      return { ok: false, reason: `the state was carried in from an execution on task queue ${previous.taskQueue}, not ${taskQueue} where this engine runs` };
    }
    if (previous.status.name !== 'CONTINUED_AS_NEW')
      return { ok: false, reason: `the previous execution is ${previous.status.name.toLowerCase()}, not continued as new` };
    return { ok: true };
  },
};
