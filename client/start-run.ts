// Starting a run is idempotent per case: the workflow id is `${domain}-${caseId}`, a second
// start while the run is open attaches to it (USE_EXISTING), and a start after it has closed
// reports the closed run instead of starting the case over (REJECT_DUPLICATE): a case whose
// run may have moved money is never silently run twice. AgentClient.start builds on this and
// adds the settings check on attach (settingsDiff, below).
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Domain } from '../workflows/contract.js';
import { AGENT_WORKFLOW_TYPE, type AgentWorkflow } from '../workflows/agent.js';
import { approverScope, permittedEffects, RunInput, unknownEffectOf } from '../workflows/run-input.js';
import { startSearchAttributes } from '../workflows/search-attributes.js';
import { canonical } from '../workflows/trust/statement.js';
import { InvalidRunInputError } from './agent-errors.js';
import { formatZodError } from './errors.js';
import { compact } from './format.js';

export { InvalidRunInputError } from './agent-errors.js';

export interface StartedRun {
  /** The run id operators use everywhere: the workflow id. */
  runId: string;
  /** Temporal's id of the execution the start found or made (continue-as-new keeps the workflow id, not this). */
  executionRunId: string;
  /** True when a run for this case already existed and nothing new was started. */
  attached: boolean;
  /** False when the case's run has already closed. */
  running: boolean;
  handle: WorkflowHandle<AgentWorkflow>;
  /** The task queue whose workers serve the run, and its workflow type, as the server says. */
  servedBy: { taskQueue: string; workflowType: string };
  /**
   * Set by AgentClient.start when it attached: `same` when the run's settings are the ones this
   * start asked for, `unknown` when they could not be compared (`settingsNotCompared` says why;
   * the run's settings stand as they were). Settings that differ are an error, not a value here.
   */
  settings?: 'same' | 'unknown';
  settingsNotCompared?: string;
}

export function runIdFor(input: Pick<RunInput, 'domain' | 'caseId'>): string {
  return `${input.domain}-${input.caseId}`;
}

/**
 * The run input as the engine will read it, or InvalidRunInputError. With `domains`, an unknown
 * domain or a case id the domain does not accept is refused too. Needs no server: call it to
 * refuse a bad start before connecting.
 */
export function checkRunInput(input: RunInput, domains?: readonly Domain[]): RunInput {
  const parsed = RunInput.safeParse(input);
  if (!parsed.success) throw new InvalidRunInputError(`invalid run input: ${formatZodError(parsed.error)}`);
  const run = parsed.data;
  if (domains) {
    const domain = domains.find((d) => d.name === run.domain);
    if (!domain) throw new InvalidRunInputError(`unknown domain ${run.domain} (domains: ${domains.map((d) => d.name).join(', ')})`);
    const caseId = domain.caseId?.safeParse(run.caseId);
    if (caseId && !caseId.success) throw new InvalidRunInputError(`${run.caseId} is not a ${domain.name} case id: ${formatZodError(caseId.error)}`);
    const unknownEffect = unknownEffectOf(run, domain);
    if (unknownEffect) throw new InvalidRunInputError(unknownEffect);
  }
  return run;
}

/**
 * Starts the run for a case or attaches to it. With `domains`, an unknown domain or a case id
 * the domain does not accept is refused here, before a run exists.
 */
export async function startRun(client: Client, input: RunInput, taskQueue: string, domains?: readonly Domain[]): Promise<StartedRun> {
  const run = checkRunInput(input, domains);
  const workflowId = runIdFor(run);

  // The start response does not say whether it attached, so look first. Two starts racing
  // for a new case may both say "started"; they still share one run.
  const before = await describeOrUndefined(client, workflowId);
  try {
    // By name: the client need not load the workflow code to start it.
    const handle = await client.workflow.start<AgentWorkflow>(AGENT_WORKFLOW_TYPE, {
      taskQueue,
      workflowId,
      args: [{ run }],
      // Findable by domain and case from the start, before (or without) a worker's first task.
      typedSearchAttributes: startSearchAttributes(run),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
    const attached = before?.status.name === 'RUNNING' && before.runId === handle.firstExecutionRunId;
    const servedBy = attached && before ? { taskQueue: before.taskQueue, workflowType: before.type } : { taskQueue, workflowType: AGENT_WORKFLOW_TYPE };
    return { runId: workflowId, executionRunId: handle.firstExecutionRunId, attached, running: true, handle, servedBy };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    const closed = await client.workflow.getHandle(workflowId).describe();
    return {
      runId: workflowId,
      executionRunId: closed.runId,
      attached: true,
      running: closed.status.name === 'RUNNING',
      handle: client.workflow.getHandle<AgentWorkflow>(workflowId),
      servedBy: { taskQueue: closed.taskQueue, workflowType: closed.type },
    };
  }
}

async function describeOrUndefined(client: Client, workflowId: string) {
  try {
    return await client.workflow.getHandle(workflowId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/**
 * Attaching means the same run on the same engine: a run under the case's workflow id that
 * another task queue serves (someone else's workers, whatever they report) or that is not the
 * agent workflow is not this start's run, however alike its input looks.
 */
export function servedElsewhere(started: Pick<StartedRun, 'servedBy'>, taskQueue: string): string[] {
  const diffs: string[] = [];
  const { taskQueue: servedOn, workflowType } = started.servedBy;
  if (servedOn !== taskQueue) diffs.push(`task queue: run is served by task queue ${servedOn}, this start asked for ${taskQueue}`);
  if (workflowType !== AGENT_WORKFLOW_TYPE) diffs.push(`workflow type: run is of type ${workflowType}, not ${AGENT_WORKFLOW_TYPE}`);
  return diffs;
}

/**
 * How an existing run's settings differ from what a new start asked for, one phrase per
 * setting: `approvers: run has [mallory], this start asked for directory default`. Empty when they match. Only
 * what changes the run's behaviour is compared (model, budgets, approvers, approval timeout);
 * who signed the start is not a setting.
 */
export function settingsDiff(existing: RunInput, requested: RunInput): string[] {
  const diffs: string[] = [];
  const differ = (name: string, there: string, here: string, same = there === here) => {
    if (!same) diffs.push(`${name}: run has ${there}, this start asked for ${here}`);
  };
  // Compared whole (a shown model may be shortened), shown short.
  differ('model', describeModel(existing.model), describeModel(requested.model), canonical(existing.model) === canonical(requested.model));
  const budgetNames = new Set([...Object.keys(existing.budgets ?? {}), ...Object.keys(requested.budgets ?? {})]);
  for (const name of [...budgetNames].sort()) {
    const value = (input: RunInput) => (input.budgets as Record<string, number | undefined> | undefined)?.[name];
    const show = (v: number | undefined) => (v === undefined ? 'domain default' : String(v));
    differ(`budgets.${name}`, show(value(existing)), show(value(requested)));
  }
  differ('approvers', describeScope(existing), describeScope(requested));
  const effects = (input: RunInput) => {
    const permitted = permittedEffects(input);
    return permitted === undefined ? 'domain default' : permitted.length ? `[${permitted.join(', ')}]` : 'none';
  };
  differ('effects', effects(existing), effects(requested));
  const timeout = (input: RunInput) => (input.approvalTimeoutMs === undefined ? 'contract default' : `${input.approvalTimeoutMs} ms`);
  differ('approval timeout', timeout(existing), timeout(requested));
  return diffs;
}

function describeModel(model: RunInput['model']): string {
  // Everything that configures the model counts, not just its name.
  const { adapter, ...rest } = model;
  const details = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return details.length ? `${adapter} ${compact(Object.fromEntries(details), 80)}` : adapter;
}

function describeScope(input: RunInput): string {
  const scope = approverScope(input);
  return scope === undefined ? 'directory default' : `[${[...new Set(scope)].sort().join(', ')}]`;
}
