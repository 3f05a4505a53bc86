// watch: live progress. Prints each item AgentClient.watch yields (a new receipt, feedback,
// note or approval step, once and in order; a failed call with its cause) until the run has a
// terminal record. --json prints the items themselves, one object per line. A run that closed
// without a terminal record (terminated, timed out, ...) or that nobody can answer for (no worker
// polls its task queue, its workflow task keeps failing) ends the watch with one line saying so,
// from what the server knows (AgentClient.watch asks it first and every few polls).
import { describeItem } from '../watch-cursor.js';
import type { CommandRun } from './types.js';

export const watch: CommandRun = async (ctx, args) => {
  const agent = await ctx.agent();
  for await (const item of agent.watch(args.run ?? '')) ctx.out(ctx.json ? JSON.stringify(item) : describeItem(item));
};
