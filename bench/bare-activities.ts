// The bare baseline's activities: they move the requested number of bytes and do nothing
// else (no validation, no policy), so the bare workflow measures Temporal's own cost for the
// same calls and payloads as an agent run. They heartbeat exactly as the agent's activities do
// (activities/heartbeat.ts).
import { withHeartbeat } from '../activities/heartbeat.js';

export interface BareModelInput {
  /** Stands in for the compiled context: as many characters as the agent's propose input. */
  prompt: string;
  /** How big the reply should be: the size of the agent's propose output. */
  replyBytes: number;
}

export interface BareToolInput {
  /** Stands in for the tool call: as many characters as the agent's invokeTool input. */
  args: string;
  outBytes: number;
}

// `{"text":""}` is 11 characters of JSON around the padding.
const pad = async (totalBytes: number): Promise<{ text: string }> => ({ text: 'x'.repeat(Math.max(0, totalBytes - 11)) });

export const bareActivities = {
  async bareModel(input: BareModelInput): Promise<{ text: string }> {
    return withHeartbeat(() => pad(input.replyBytes));
  },
  async bareTool(input: BareToolInput): Promise<{ text: string }> {
    return withHeartbeat(() => pad(input.outBytes));
  },
};

export type BareActivities = typeof bareActivities;
