// start: the run for a case, started once. A second start attaches to the run that exists only
// if it asked for the same settings; otherwise it fails and says what differs, so an operator
// never believes a run has settings (say, its approvers) that it does not have.
import { TASK_QUEUE } from '../../worker/connection.js';
import { Approver } from '../../workflows/trust/directory.js';
import type { ModelConfig, RunInput } from '../../workflows/run-input.js';
import { CliError, UsageError } from '../errors.js';
import { fetchView } from '../runs.js';
import { readKeyFile, signStart } from '../sign.js';
import { runIdFor, settingsDiff, startRun } from '../start-run.js';
import type { CommandRun } from './types.js';

export const start: CommandRun = async (ctx, args, flags) => {
  const turns = flags.int('turns', 1, 100_000);
  const deadlineMs = flags.int('deadline-ms', 1_000);
  const approvalTimeoutMs = flags.int('approval-timeout-ms', 1_000);
  const approvers = parseApprovers(flags.str('approvers'));
  const budgets = { ...(turns !== undefined ? { turns } : {}), ...(deadlineMs !== undefined ? { deadlineMs } : {}) };
  const domain = args.domain ?? '';
  const caseId = args.case ?? '';
  const keyPath = flags.str('key');
  // Signed before anything connects: a bad key file fails here, on this machine.
  const starter = keyPath ? readKeyFile(keyPath) : undefined;
  const input: RunInput = {
    domain,
    caseId,
    model: parseModel(flags.str('model') ?? 'rules'),
    ...(Object.keys(budgets).length ? { budgets } : {}),
    ...(approvers ? { approvers } : {}),
    ...(approvalTimeoutMs !== undefined ? { approvalTimeoutMs } : {}),
    ...(starter ? { start: signStart(starter, runIdFor({ domain, caseId })) } : {}),
  };
  const client = await ctx.client();
  const started = await startRun(client, input, TASK_QUEUE, ctx.domains);

  // Attached: the run that exists keeps its settings, so they must be the ones asked for.
  let settings: 'same' | 'unknown' | undefined;
  let unknownWhy = '';
  if (started.attached) {
    const existing = await fetchView(client, started.runId).then(
      (view) => view.input ?? new Error('the run does not report its settings (it was started before runs did)'),
      (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
    );
    if (existing instanceof Error) {
      settings = 'unknown';
      unknownWhy = existing.message;
    } else {
      const diffs = settingsDiff(existing, input);
      if (diffs.length) {
        const what = started.running ? 'already exists' : 'already ran';
        throw new CliError(`a run for ${domain} ${caseId} ${what} with different settings (${diffs.join('; ')}); it was not changed`);
      }
      settings = 'same';
    }
  }

  if (ctx.json) {
    ctx.out(
      JSON.stringify({
        runId: started.runId,
        executionRunId: started.executionRunId,
        attached: started.attached,
        running: started.running,
        taskQueue: TASK_QUEUE,
        ...(starter ? { startedBy: starter.id } : {}),
        ...(settings ? { settings } : {}),
        ...(unknownWhy ? { settingsNotCompared: unknownWhy } : {}),
      }),
    );
  } else if (!started.attached) {
    ctx.out(`started run ${started.runId} (task queue ${TASK_QUEUE})${starter ? `, start signed by ${starter.id}` : ''}`);
  } else {
    const state = started.running ? 'running' : 'already ended';
    const same = settings === 'same' ? ' with the same settings' : `; its settings could not be compared with this start's (${unknownWhy}), and they stand as they were`;
    ctx.out(`attached to existing run ${started.runId} (${state})${same}`);
  }
};

function parseModel(raw: string): ModelConfig {
  if (raw === 'rules') return { adapter: 'rules' };
  if (raw === 'openai') return { adapter: 'openai' };
  if (raw.startsWith('openai:') && raw.length > 'openai:'.length) return { adapter: 'openai', model: raw.slice('openai:'.length) };
  throw new UsageError(`--model must be rules, openai or openai:<model>, got '${raw}'`);
}

/** `--approvers a,b`: the directory ids this run may take approvals from (it can only narrow). */
function parseApprovers(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const ids = [...new Set(raw.split(',').map((id) => id.trim()).filter((id) => id !== ''))];
  if (ids.length === 0) throw new UsageError('--approvers needs at least one directory id, e.g. --approvers alice@ops,carol@sre');
  for (const id of ids) if (!Approver.shape.id.safeParse(id).success) throw new UsageError(`--approvers: '${id.slice(0, 40)}' is not a directory id`);
  return ids;
}
