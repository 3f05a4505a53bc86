// One of the worker's own activities, held for the runs a test names: each call of it by such a
// run waits until the test lets it go (every attempt, since a held call's own timeout ends an
// attempt and Temporal tries again). A held call pins down an order that would otherwise depend
// on the machine's speed.
import { Context } from '@temporalio/activity';
import type { AgentActivities } from '../../activities/index.js';

type ActivityName = 'checkResultSeals' | 'loadApprovers' | 'invokeTool' | 'checkContinuation';

export function heldActivity(name: ActivityName) {
  const gates = new Map<string, { entered: () => void; released: Promise<void> }>();
  /** The worker's activities with `name` held for the runs a test holds (startAgentHarness's wrapActivities). */
  const wrap = (made: AgentActivities): AgentActivities => {
    const original = made[name] as (input: never) => Promise<unknown>;
    const held = async (input: never) => {
      const gate = gates.get(Context.current().info.workflowExecution?.workflowId ?? '');
      if (gate) {
        gate.entered();
        await gate.released;
      }
      return original(input);
    };
    return { ...made, [name]: held };
  };
  /** Holds the run's calls from now on: `entered` resolves once one is running; `release` lets them all go. */
  const hold = (workflowId: string) => {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const entered = new Promise<void>((resolve) => gates.set(workflowId, { entered: resolve, released }));
    return {
      entered,
      release: () => {
        gates.delete(workflowId);
        release();
      },
    };
  };
  return { wrap, hold };
}
