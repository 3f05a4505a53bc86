// The bench worker's workflow bundle: the real agent workflow, and a bare baseline that makes
// the same activity calls with the same payload sizes but has no controller, no state, no
// validation and no continue-as-new logic. The difference between the two is what the engine
// costs on top of Temporal itself.
//
// The baseline can optionally mimic the one thing the agent does per turn that is not its
// controller: activities that heartbeat under a heartbeat timeout. The "attribution" section
// uses it to price that ingredient separately from the controller.
import { proxyActivities } from '@temporalio/workflow';
import type { BareActivities } from './bare-activities.js';

export { agentWorkflow } from '../workflows/agent.js';

/** One agent turn as sizes: the model call, then the tool calls (or the final probe) after it. */
export interface BareTurn {
  promptBytes: number;
  replyBytes: number;
  tools: { inBytes: number; outBytes: number }[];
}

export interface BareInput {
  turns: BareTurn[];
  mimic?: { heartbeat?: boolean };
}

// Same start-to-close and retry as the agent's model proxy. The plain baseline has no
// heartbeat timeout because its activities do not heartbeat; the mimicking one has the
// agent's, which also makes the server arm a heartbeat timer for every attempt.
const retry = { maximumAttempts: 5, initialInterval: '500 milliseconds' };
const plain = proxyActivities<BareActivities>({ startToCloseTimeout: '2 minutes', retry });
const heartbeating = proxyActivities<BareActivities>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: '5 seconds', retry });

export async function bareWorkflow(input: BareInput): Promise<{ turns: number }> {
  const heartbeat = input.mimic?.heartbeat ?? false;
  const activities = heartbeat ? heartbeating : plain;
  for (const turn of input.turns) {
    await activities.bareModel(sized({ prompt: '', replyBytes: turn.replyBytes, heartbeat }, 'prompt', turn.promptBytes));
    await Promise.all(turn.tools.map((t) => activities.bareTool(sized({ args: '', outBytes: t.outBytes, heartbeat }, 'args', t.inBytes))));
  }
  return { turns: input.turns.length };
}

/** Pads `field` so that the whole input is `bytes` characters of JSON, like the agent's input. */
function sized<T extends Record<K, string>, K extends string>(input: T, field: K, bytes: number): T {
  const wrapper = JSON.stringify(input).length;
  return { ...input, [field]: 'x'.repeat(Math.max(0, bytes - wrapper)) };
}
