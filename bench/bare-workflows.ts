// The bare baseline's workflow bundle: the same activity calls with the same payload sizes
// and options as an agent run, and nothing else: no controller, no state, no validation, no
// continue-as-new logic, and none of the agent's modules. It is bundled and run on a worker
// of its own, so it does not pay for evaluating the engine's modules when a run starts, as
// a workflow written directly on Temporal would not. The difference between the two is what
// the engine costs on top of Temporal itself.
//
// "The same calls" includes their options: the baseline's activities take theirs from the
// engine's policy, so the two cannot drift apart: heartbeat timeouts (the server arms a timer
// for one on every attempt), and the model call's outage window (a schedule-to-close timeout,
// which arms a timer when the call is scheduled). Until 2026-12-06 the baseline wrote its own
// copy, which had kept an older model retry policy and lacked that window. Its activities
// heartbeat as the agent's do. A baseline without heartbeat timeouts measured the same within
// noise (bench/README.md), but it is not the same work, so it is not the baseline.
import { proxyActivities } from '@temporalio/workflow';
import { MODEL_OUTAGE_MS, modelOptions, toolCallOptions } from '../workflows/policy.js';
import type { BareActivities } from './bare-activities.js';

/** One agent turn as sizes: the model call, then the tool calls (or the final probe) after it. */
export interface BareTurn {
  promptBytes: number;
  replyBytes: number;
  tools: { inBytes: number; outBytes: number }[];
}

export interface BareInput {
  turns: BareTurn[];
}

// workflows/policy.ts is plain data, none of the engine's code: the model call as perform.ts
// makes it (a run's default outage window), and a read that may be retried.
const model = proxyActivities<BareActivities>({ ...modelOptions, scheduleToCloseTimeout: MODEL_OUTAGE_MS });
const tool = proxyActivities<BareActivities>(toolCallOptions('read', true));

export async function bareWorkflow(input: BareInput): Promise<{ turns: number }> {
  for (const turn of input.turns) {
    await model.bareModel(sized({ prompt: '', replyBytes: turn.replyBytes }, 'prompt', turn.promptBytes));
    await Promise.all(turn.tools.map((t) => tool.bareTool(sized({ args: '', outBytes: t.outBytes }, 'args', t.inBytes))));
  }
  return { turns: input.turns.length };
}

/** Pads `field` so that the whole input is `bytes` characters of JSON, like the agent's input. */
function sized<T extends Record<K, string>, K extends string>(input: T, field: K, bytes: number): T {
  const wrapper = JSON.stringify(input).length;
  return { ...input, [field]: 'x'.repeat(Math.max(0, bytes - wrapper)) };
}
