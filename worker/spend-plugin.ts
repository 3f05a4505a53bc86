// Money around the model call as a plugin of its own, listed next to agentPlugin: prices and the
// teams' daily caps (activities/spend/spending.ts) wrap the engine's `propose` activity through an
// activity interceptor, so the plugin composes with agentPlugin in either order and leaves every
// other activity, the engine's and the team's, as it was.
import { SimplePlugin } from '@temporalio/plugin';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { ProposeInput, ProposeOutput } from '../activities/model/index.js';
import { withSpend, type SpendOptions } from '../activities/spend/spending.js';

export const AGENT_SPEND_PLUGIN_NAME = 'bounded-react-temporal.spend';

/** The engine's model activity, the one call that is priced. */
const PRICED_ACTIVITY = 'propose';

/**
 * Prices every model call from the table, charges the team's day and refuses a call once its
 * cap is spent; the cost goes back to the run, which charges its own spend budget. Without
 * this plugin model calls are not priced.
 *
 * @example
 * ```ts
 * const ledger = await openSqliteLedger('./spend.sqlite');
 * await Worker.create({ ...yourOptions, plugins: [agentSpendPlugin({ dailyCaps: { '*': 1_000_000 }, ledger }), agentPlugin({ implementations, blobDir })] });
 * ```
 */
export function agentSpendPlugin(options: SpendOptions = {}): SimplePlugin {
  const priced: ActivityInterceptorsFactory = (ctx) => {
    if (ctx.info.activityType !== PRICED_ACTIVITY) return {};
    return {
      inbound: {
        execute: (input, next) => {
          const call = (proposeInput: ProposeInput) => next({ ...input, args: [proposeInput] }) as Promise<ProposeOutput>;
          // Made per call because `next` is; the options were checked once, below.
          return withSpend(call, options)(input.args[0] as ProposeInput);
        },
      },
    };
  };
  // Checked where it is given: caps without a ledger fail at start, not at the first model call.
  withSpend(async () => ({ reply: null, tokens: 0 }), options);
  return new SimplePlugin({ name: AGENT_SPEND_PLUGIN_NAME, workerInterceptors: { activity: [priced] } });
}
