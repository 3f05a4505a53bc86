import { TASK_QUEUE } from '../../worker/connection.js';
import type { ModelConfig, RunInput } from '../../workflows/run-input.js';
import { UsageError } from '../errors.js';
import { startRun } from '../start-run.js';
import type { CommandRun } from './types.js';

export const start: CommandRun = async (ctx, args, flags) => {
  const turns = flags.int('turns', 1, 100_000);
  const deadlineMs = flags.int('deadline-ms', 1_000);
  const approvalTimeoutMs = flags.int('approval-timeout-ms', 1_000);
  const budgets = { ...(turns !== undefined ? { turns } : {}), ...(deadlineMs !== undefined ? { deadlineMs } : {}) };
  const input: RunInput = {
    domain: args.domain ?? '',
    caseId: args.case ?? '',
    model: parseModel(flags.str('model') ?? 'rules'),
    ...(Object.keys(budgets).length ? { budgets } : {}),
    ...(approvalTimeoutMs !== undefined ? { approvalTimeoutMs } : {}),
  };
  const started = await startRun(await ctx.client(), input, TASK_QUEUE);
  if (ctx.json) {
    ctx.out(JSON.stringify({ runId: started.runId, executionRunId: started.executionRunId, attached: started.attached, running: started.running, taskQueue: TASK_QUEUE }));
  } else if (!started.attached) {
    ctx.out(`started run ${started.runId} (task queue ${TASK_QUEUE})`);
  } else {
    ctx.out(`attached to existing run ${started.runId} (${started.running ? 'running' : 'already ended'}); its original settings stand`);
  }
};

function parseModel(raw: string): ModelConfig {
  if (raw === 'rules') return { adapter: 'rules' };
  if (raw === 'openai') return { adapter: 'openai' };
  if (raw.startsWith('openai:') && raw.length > 'openai:'.length) return { adapter: 'openai', model: raw.slice('openai:'.length) };
  throw new UsageError(`--model must be rules, openai or openai:<model>, got '${raw}'`);
}
