// clear: frees a case whose run can never be served (started on a task queue no worker polls).
// The run is terminated with a reason that records who cleared it and why, and its case may
// then be started again, on the right queue. A run a worker serves or has run is cleared only
// with --force (client/clear-run.ts says why).
import { clearRun } from '../clear-run.js';
import { servingQueues, servingWords } from '../serving-queues.js';
import { CliError, UsageError } from '../usage.js';
import { identity, type CommandRun } from './types.js';

export const clear: CommandRun = async (ctx, args, flags) => {
  const runId = args.run ?? '';
  const reason = flags.str('reason')?.trim() ?? '';
  if (reason === '') throw new UsageError('clear needs --reason R: why the run is cleared is recorded with it');
  const by = identity(flags, ctx.env);
  const agent = await ctx.agent();
  const result = await clearRun(agent.client, runId, { by, reason, force: flags.bool('force') });
  if (!result.cleared) throw new CliError(result.refused);
  const serving = result.domain ? await servingQueues(agent.client, result.domain, result.taskQueue) : [];
  if (ctx.json) {
    ctx.out(JSON.stringify({ runId, cleared: true, by, reason: result.reason, taskQueue: result.taskQueue, servingQueues: serving }));
    return;
  }
  ctx.out(`cleared run ${runId} (it was on task queue ${result.taskQueue}), terminated with reason "${result.reason}"; its case may be started again`);
  if (result.domain) ctx.out(servingWords(result.domain, serving, ctx.program));
};
