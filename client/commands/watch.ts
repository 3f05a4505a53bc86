// watch: live progress. Prints each item AgentClient.watch yields (a new receipt, feedback,
// note or approval step, once and in order; a failed call with its cause) until the run has a
// terminal record. --json prints the items themselves, one object per line. A run that closed
// without a terminal record (terminated, timed out, ...) or that nobody can answer for (no worker
// polls its task queue, its workflow task keeps failing) ends the watch with one line saying so,
// from what the server knows (AgentClient.watch asks it first and every few polls). A request is
// printed with the id to decide it by, pinned to the call shown (`<request id>#<digest prefix>`,
// as status prints it): approve given that id signs nothing if another call is pending by then.
import { pinnedRequestId } from '../pending-request.js';
import type { WatchedItem } from '../watch-run.js';
import { describeItem } from '../watch-cursor.js';
import type { CommandRun } from './types.js';

export const watch: CommandRun = async (ctx, args) => {
  const agent = await ctx.agent();
  for await (const item of agent.watch(args.run ?? '')) ctx.out(ctx.json ? JSON.stringify(withPinnedId(item)) : describeItem(shown(item)));
};

/** --json: a request also carries `pinnedRequestId`, the id approve, deny and amend take; its `requestId` stays the run's own. */
function withPinnedId(item: WatchedItem): WatchedItem | (WatchedItem & { pinnedRequestId: string }) {
  return item.type === 'approval_request' ? { ...item, pinnedRequestId: pinnedRequestId(item.requestId, item.digest) } : item;
}

/** In words, a request is named by its pinned id: the one an operator copies into approve. */
function shown(item: WatchedItem): WatchedItem {
  return item.type === 'approval_request' ? { ...item, requestId: pinnedRequestId(item.requestId, item.digest) } : item;
}
