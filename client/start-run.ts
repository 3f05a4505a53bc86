// The one way to start a run (AgentClient.start and the CLI call it): idempotent per case. The
// workflow id is `${domain}-${caseId}`, and the server decides which start made the run: the
// first start succeeds, every other ends in "already started" (FAIL while it is open,
// REJECT_DUPLICATE once it has closed), so concurrent starts of one case give exactly one
// "started" and the rest "attached", and a case whose run may have moved money is never silently
// run twice. An attach is refused with RunSettingsConflictError unless the run is served by the
// same task queue, is of the same domain and case, and was asked for the same settings
// (client/start-settings.ts, read back from the run's first event, or its memo). The one
// exception to "never twice": a case whose last run was cleared (terminated by `agent clear`,
// client/clear-run.ts) may be started afresh.
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowExecutionDescription, type WorkflowHandle } from '@temporalio/client';
import type { Domain } from '../workflows/contract.js';
import type { AgentWorkflow } from '../workflows/agent.js';
import { AGENT_WORKFLOW_TYPE } from '../workflows/agent-workflow-type.js';
import { RunInput, unknownEffectOf } from '../workflows/run-input.js';
import { caseKey, domainKey, startSearchAttributes } from '../workflows/search-attributes.js';
import { InvalidRunInputError, RunSettingsConflictError } from './agent-errors.js';
import { formatZodError } from './errors.js';
import { wasCleared } from './clear-run.js';
import {
  caseDifference,
  diffStartSettings,
  recordedSettings,
  type RunCase,
  START_SETTINGS_MEMO,
  startSettingsOf,
  type StartSettings,
} from './start-settings.js';

export { InvalidRunInputError } from './agent-errors.js';
export { settingsDiff } from './start-settings.js';

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
   * Set when the start attached: `same` when the run's settings are the ones this start asked
   * for, `unknown` when they could not be read (`settingsNotCompared` says why; the run's
   * settings stand as they were). Settings that differ are an error, not a value here.
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
 * Starts the run for a case, or attaches to the run that exists, which must be served by this
 * task queue, be of this domain and case, and have been asked for the same settings
 * (start-settings.ts: model, budgets, approvers, effects, approval timeout, team, model queue,
 * context...): otherwise RunSettingsConflictError, and the run is not changed. A bad
 * input (InvalidRunInputError; with `domains`, an unknown domain or a case id the domain does
 * not accept) is refused before anything reaches the server.
 */
export async function startRun(client: Client, input: RunInput, taskQueue: string, domains?: readonly Domain[]): Promise<StartedRun> {
  const run = checkRunInput(input, domains);
  const workflowId = runIdFor(run);
  const settings = startSettingsOf(run);
  const begin = async (reuse: 'REJECT_DUPLICATE' | 'ALLOW_DUPLICATE_FAILED_ONLY'): Promise<StartedRun | undefined> => {
    try {
      // By name: the client need not load the workflow code to start it.
      const handle = await client.workflow.start<AgentWorkflow>(AGENT_WORKFLOW_TYPE, {
        taskQueue,
        workflowId,
        args: [{ run }],
        // Findable by domain and case from the start, before (or without) a worker's first task.
        typedSearchAttributes: startSearchAttributes(run),
        // What a later start of the case compares itself with, readable by describe() alone.
        memo: { [START_SETTINGS_MEMO]: settings },
        workflowIdConflictPolicy: 'FAIL',
        workflowIdReusePolicy: reuse,
      });
      return {
        runId: workflowId,
        executionRunId: handle.firstExecutionRunId,
        attached: false,
        running: true,
        handle,
        servedBy: { taskQueue, workflowType: AGENT_WORKFLOW_TYPE },
      };
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      return undefined;
    }
  };
  const started = await begin('REJECT_DUPLICATE');
  if (started) return started;
  const existing = await client.workflow.getHandle<AgentWorkflow>(workflowId).describe();
  // A case whose last run was cleared (client/clear-run.ts) is free again. FAILED_ONLY: if another
  // start got in first and its run already completed, the server refuses this one, and it attaches.
  if (existing.status.name === 'TERMINATED' && (await wasCleared(client, workflowId, existing.runId))) {
    const again = await begin('ALLOW_DUPLICATE_FAILED_ONLY');
    if (again) return again;
  }
  return await attach(client, run, settings, taskQueue);
}

/** The case's run exists (the server said so): attach to it if it is this start's run. */
async function attach(client: Client, run: RunInput, requested: StartSettings, taskQueue: string): Promise<StartedRun> {
  const handle = client.workflow.getHandle<AgentWorkflow>(runIdFor(run));
  const existing = await handle.describe();
  const running = existing.status.name === 'RUNNING';
  const started: StartedRun = {
    runId: handle.workflowId,
    executionRunId: existing.runId,
    attached: true,
    running,
    handle,
    servedBy: { taskQueue: existing.taskQueue, workflowType: existing.type },
  };
  const elsewhere = servedElsewhere(started, taskQueue);
  if (elsewhere.length) throw new RunSettingsConflictError(started.runId, run.domain, run.caseId, elsewhere, running);
  const recorded = await recordedSettings(client, existing);
  if (typeof recorded === 'string') return { ...started, settings: 'unknown', settingsNotCompared: recorded };
  // The case from the run's input; where only the memo could be read, from the search attributes
  // its start set (as untrusted as the memo, and as good for telling someone else's case apart).
  const recordedCase = recorded.case ?? caseOfSearchAttributes(existing);
  const differences = [...(recordedCase ? caseDifference(recordedCase, run) : []), ...diffStartSettings(recorded.settings, requested)];
  if (differences.length) throw new RunSettingsConflictError(started.runId, run.domain, run.caseId, differences, running);
  return { ...started, settings: 'same' };
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

/** The domain and case a run's search attributes name, when both are there. */
function caseOfSearchAttributes(described: Pick<WorkflowExecutionDescription, 'typedSearchAttributes'>): RunCase | undefined {
  const domain = described.typedSearchAttributes.get(domainKey);
  const caseId = described.typedSearchAttributes.get(caseKey);
  return domain !== undefined && caseId !== undefined ? { domain, caseId } : undefined;
}
