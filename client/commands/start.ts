// start: the run for a case, started once. A second start attaches to the run that exists only
// if it asked for the same settings; otherwise AgentClient.start fails with
// RunSettingsConflictError and says what differs, so an operator never believes a run has
// settings (say, its approvers) that it does not have. The domain and case id are checked
// before anything connects: a bad case id is a usage error (exit 2) and no run exists.
// A start on a task queue no worker polls is refused (unless --force): its run would wait
// forever and hold the case id; the refusal names the queues that do serve the domain. A run
// stranded anyway is freed with `clear` (client/commands/clear.ts).
import { Approver } from '../../workflows/trust/directory.js';
import { runBinding } from '../../workflows/trust/run-binding.js';
import { NoteStatement, type NoteFields } from '../../workflows/trust/statement.js';
import type { ModelConfig, RunInput } from '../../workflows/run-input.js';
import { Shape, SHAPES } from '../../workflows/controller/index.js';
import { readKeyFile, signNote, signStart } from '../sign.js';
import type { Client } from '@temporalio/client';
import { RunSettingsConflictError } from '../agent-errors.js';
import { wasCleared } from '../clear-run.js';
import { queueServed, servingQueues, servingWords } from '../serving-queues.js';
import { checkRunInput, runIdFor, startRun } from '../start-run.js';
import { CliError, UsageError } from '../usage.js';
import type { CommandRun } from './types.js';

export const start: CommandRun = async (ctx, args, flags) => {
  const turns = flags.int('turns', 1, 100_000);
  const deadlineMs = flags.int('deadline-ms', 1_000);
  const approvalTimeoutMs = flags.int('approval-timeout-ms', 1_000);
  const modelOutageMs = flags.int('model-outage-ms', 1_000);
  const approvers = parseApprovers(flags.str('approvers'));
  const shape = parseShape(flags.str('shape'));
  const effectsFlag = flags.str('effects');
  const effects =
    effectsFlag === undefined
      ? undefined
      : effectsFlag === 'none'
        ? ('none' as const)
        : effectsFlag
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean);
  const budgets = { ...(turns !== undefined ? { turns } : {}), ...(deadlineMs !== undefined ? { deadlineMs } : {}) };
  const domain = args.domain ?? '';
  const caseId = args.case ?? '';
  const keyPath = flags.str('key');
  // Signed before anything connects: a bad key file fails here, on this machine.
  const starter = keyPath ? readKeyFile(keyPath) : undefined;
  const request = flags.str('request');
  if (request !== undefined && !starter) throw new UsageError('--request is signed by its starter: give --key too');
  if (request !== undefined && (request.trim() === '' || request.length > 2_000)) throw new UsageError('--request takes 1 to 2000 characters');
  const fields = parseRequestFields(flags.str('request-fields'));
  if (fields && request === undefined) throw new UsageError('--request-fields are part of a signed request: give --request too');
  const settings: RunInput = {
    domain,
    caseId,
    model: parseModel(flags.str('model') ?? 'rules'),
    ...(shape ? { shape } : {}),
    ...(Object.keys(budgets).length ? { budgets } : {}),
    ...(approvers ? { approvers } : {}),
    ...(effects ? { effects } : {}),
    ...(approvalTimeoutMs !== undefined ? { approvalTimeoutMs } : {}),
    ...(modelOutageMs !== undefined ? { modelOutageMs } : {}),
  };
  checkRunInput(settings, ctx.domains);
  const agent = await ctx.agent();
  // The start and the request name the namespace and the settings they were signed for.
  const bound = runBinding(agent.client.options.namespace, settings);
  const runId = runIdFor(settings);
  const input: RunInput = {
    ...settings,
    ...(starter ? { start: signStart(starter, runId, { bound }) } : {}),
    ...(starter && request !== undefined ? { request: signNote(starter, runId, request, { ...(fields ? { fields } : {}), bound }) } : {}),
  };
  const taskQueue = flags.str('task-queue')?.trim() || agent.taskQueue;
  if (!flags.bool('force')) await refuseUnserved(agent.client, input, taskQueue, ctx.program);
  let started;
  try {
    started = await startRun(agent.client, input, taskQueue, ctx.domains);
  } catch (err) {
    throw strandedHint(err, runId, ctx.program);
  }

  if (ctx.json) {
    ctx.out(
      JSON.stringify({
        runId: started.runId,
        executionRunId: started.executionRunId,
        attached: started.attached,
        running: started.running,
        taskQueue,
        // Attached, the run was started before this start's statements: they were not taken.
        ...(starter ? (started.attached ? { startNotTaken: true } : { startedBy: starter.id }) : {}),
        ...(started.settings ? { settings: started.settings } : {}),
        ...(started.settingsNotCompared ? { settingsNotCompared: started.settingsNotCompared } : {}),
      }),
    );
  } else if (!started.attached) {
    ctx.out(`started run ${started.runId} (task queue ${taskQueue})${starter ? `, start signed by ${starter.id}` : ''}`);
  } else {
    const state = started.running ? 'running' : 'already ended';
    const same =
      started.settings === 'same'
        ? ' with the same settings'
        : `; its settings could not be compared with this start's (${started.settingsNotCompared ?? 'unknown reason'}), and they stand as they were`;
    const unsigned = starter
      ? `; the start signed by ${starter.id}${request !== undefined ? ' and its request were' : ' was'} not taken (the run was started before it, and names its own starter, if any)`
      : '';
    ctx.out(`attached to existing run ${started.runId} (${state})${same}${unsigned}`);
  }
};

function parseShape(raw: string | undefined): Shape | undefined {
  if (raw === undefined) return undefined;
  const shape = Shape.safeParse(raw);
  if (!shape.success) throw new UsageError(`--shape must be one of ${SHAPES.join(', ')}, got '${raw.slice(0, 40)}'`);
  return shape.data;
}

function parseModel(raw: string): ModelConfig {
  if (raw === 'rules') return { adapter: 'rules' };
  if (raw === 'openai') return { adapter: 'openai' };
  if (raw.startsWith('openai:') && raw.length > 'openai:'.length) return { adapter: 'openai', model: raw.slice('openai:'.length) };
  throw new UsageError(`--model must be rules, openai or openai:<model>, got '${raw}'`);
}

/** `--approvers a,b`: the directory ids this run may take approvals from (it can only narrow). */
function parseApprovers(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const ids = [
    ...new Set(
      raw
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
  ];
  if (ids.length === 0) throw new UsageError('--approvers needs at least one directory id, e.g. --approvers alice@ops,carol@sre');
  for (const id of ids) if (!Approver.shape.id.safeParse(id).success) throw new UsageError(`--approvers: '${id.slice(0, 40)}' is not a directory id`);
  return ids;
}

/**
 * Refuses a new run on a queue nobody polls, naming the queues that serve its domain. A start
 * of a case whose run already exists goes on (it attaches, or says why not), and a server that
 * cannot say who polls is not second-guessed.
 */
async function refuseUnserved(client: Client, input: RunInput, taskQueue: string, program: string): Promise<void> {
  if ((await queueServed(client, taskQueue)) !== 'unserved') return;
  const runId = runIdFor(input);
  const existing = await client.workflow
    .getHandle(runId)
    .describe()
    .catch(() => undefined);
  if (existing && !(existing.status.name === 'TERMINATED' && (await wasCleared(client, runId, existing.runId)))) return;
  const serving = await servingQueues(client, input.domain, taskQueue);
  throw new CliError(
    `no worker polls task queue ${taskQueue}, so a run started there would wait forever and hold case ${input.caseId}; ${servingWords(input.domain, serving, program)}; --force starts it here anyway`,
  );
}

/** A start refused because the case's run is on another queue: say how a stranded one is freed. */
function strandedHint(err: unknown, runId: string, program: string): unknown {
  if (!RunSettingsConflictError.isInstance(err) || !err.differences.some((d) => d.startsWith('task queue:'))) return err;
  return new CliError(
    `${err.message}. If that run can never be served (no worker polls its queue), \`${program} clear ${runId} --reason "..."\` frees the case`,
  );
}

/** `--request-fields`: a JSON object of typed values by kind, checked as the signed statement will be. */
function parseRequestFields(raw: string | undefined): NoteFields | undefined {
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new UsageError(`--request-fields must be a JSON object such as '{"payee":"US12...","amount":50}'`);
  }
  const parsed = NoteStatement.shape.fields.safeParse(value);
  if (!parsed.success || parsed.data === undefined) {
    throw new UsageError(`--request-fields: ${parsed.success ? 'give at least one field' : (parsed.error.issues[0]?.message ?? 'not valid')}`);
  }
  return parsed.data;
}
