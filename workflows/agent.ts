// The agent workflow: a short interpreter around the controller. It asks for a command,
// performs it with an activity, a timer or a wait for a person, and feeds back what happened.
// Every decision lives in the controller; this file only knows how to do things durably.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  TimeoutFailure,
  condition,
  isCancellation,
  continueAsNew,
  proxyActivities,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
  allHandlersFinished,
  patched,
  setCurrentDetails,
} from '@temporalio/workflow';
import { compactJson } from './controller/decision.js';
import type { AgentActivities } from '../activities/index.js';
import type { Domain } from './contract.js';
import type { Command } from './controller/commands.js';
import { ProbeVerdict, ReadbackResult, ToolResult, type RunEvent } from './controller/events.js';
import { commandFor, initialState, next, type Step } from './controller/next.js';
import { loadState, type PlannedCall, type RunState } from './controller/state.js';
import { headline } from './controller/headline.js';
import { NATIVE_CANCEL_PATCH } from './controller/cancel.js';
import { installOperatorHandlers } from './handlers.js';
import type { RunResult } from './messages.js';
import { approverScope, permittedEffects, RunInput, unknownEffectOf } from './run-input.js';
import { refuseForeignRunId } from './run-identity.js';
import { ApproverDirectory } from './trust/directory.js';
import { phaseKey, runSearchAttributes, stopReasonKey, terminalKey, visiblePhase } from './search-attributes.js';
import { observeStep } from './telemetry.js';

export interface AgentWorkflowInput {
  run: RunInput;
  /** Set by continue-as-new: the folded state of the previous execution. */
  carried?: RunState;
}

// Activities heartbeat every second (activities/heartbeat.ts), so a dead worker is noticed in
// seconds; start-to-close only bounds a live but stuck call.
const models = proxyActivities<AgentActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '5 seconds',
  retry: { maximumAttempts: 5, initialInterval: '500 milliseconds', nonRetryableErrorTypes: ['ModelScriptExhausted', 'ModelConfigError'] },
});
const probes = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '5 seconds',
  retry: { maximumAttempts: 3, initialInterval: '500 milliseconds' },
});

// Asking the server about the execution that continued: a rare call (once per rollover) that
// must not fail a healthy run over a brief outage, so it is retried longer than a probe.
const continuations = proxyActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10, initialInterval: '1 second' },
});

/** The agent workflow's signature, for clients that start or attach to runs by type name. */
export type AgentWorkflow = (input: AgentWorkflowInput) => Promise<RunResult>;

/** Temporal's name for it: export the result of agentWorkflowFor() under this name. */
export const AGENT_WORKFLOW_TYPE = 'agentWorkflow';

/**
 * The agent workflow for your domains. In your workflows module (the one the worker bundles):
 * `export const agentWorkflow = agentWorkflowFor([refunds, ...])`. The domains are workflow code:
 * deterministic, bundled into the sandbox, replay-sensitive.
 */
export function agentWorkflowFor(domains: readonly Domain[]): AgentWorkflow {
  const byName = new Map(domains.map((d) => [d.name, d] as const));
  if (byName.size !== domains.length) throw new Error('two domains share a name');
  // Named so that clients starting it by function get Temporal's type name right.
  const agentWorkflow: AgentWorkflow = (input) => runAgent(input, byName);
  return agentWorkflow;
}

async function runAgent(input: AgentWorkflowInput, domains: ReadonlyMap<string, Domain>): Promise<RunResult> {
  const parsed = RunInput.safeParse(input.run);
  if (!parsed.success) throw ApplicationFailure.nonRetryable(`invalid run input: ${parsed.error.message}`, 'InvalidRunInput');
  const run = parsed.data;
  const domain = domains.get(run.domain);
  if (!domain) throw ApplicationFailure.nonRetryable(`unknown domain ${run.domain}`, 'InvalidRunInput');
  const caseId = domain.caseId?.safeParse(run.caseId);
  if (caseId && !caseId.success) throw ApplicationFailure.nonRetryable(`${run.caseId} is not a ${domain.name} case id`, 'InvalidRunInput');
  const unknownEffect = unknownEffectOf(run, domain);
  if (unknownEffect) throw ApplicationFailure.nonRetryable(unknownEffect, 'InvalidRunInput');
  refuseForeignRunId(run); // one run per case at a time: the workflow id must be the case's

  // Runs started after the trust boundary existed are guarded by it; recorded histories of
  // older runs replay as they ran (a marker in the history tells which is which). New runs
  // record one marker, `engine-v3`, that stands for every change before it: each marker also
  // costs the server a search-attribute update (TemporalChangeVersion), on every run. Histories
  // without it replay through the older markers, called where and when they were recorded.
  // `engine-v4` (statements bound to the execution chain) replaces `engine-v3` in new runs.
  const v4 = patched('engine-v4');
  const current = v4 || patched('engine-v3');
  const guarded = current || patched('trust-boundary-v1');
  const loaded = input.carried === undefined ? undefined : loadState(input.carried);
  if (loaded && !loaded.ok) throw ApplicationFailure.nonRetryable(`carried run state is invalid: ${loaded.problem}`, 'InvalidRunInput');
  const carried = loaded?.ok ? { data: loaded.state } : undefined;
  if (carried && guarded) refuseForeignState(carried.data);
  const queue: RunEvent[] = [];
  let step: Step = carried
    ? { state: carried.data, command: commandFor(carried.data, domain, Date.now()) }
    : next(newState(run, domain, guarded, v4), { type: 'started', now: Date.now() }, domain);
  installOperatorHandlers({ run, state: () => step.state, queue, loadApprovers: () => probes.loadApprovers(), domain });
  // Carried state is the engine's only if the execution that continued was an agent run on
  // this task queue: the server says so, not the state (activities/continuation.ts). Asked
  // before the loop's first command, with the handlers up so that queries still answer.
  if (carried && v4) await refuseStateFromElsewhere();

  // The deadline is a durable timer: it fires after a worker restart as it would have before.
  // With the trust boundary the deadline moves while a person decides; a new timer follows it.
  // Temporal's cancel cancels it too; the loop below takes that cancel.
  const armDeadline = (at: number) =>
    void sleep(Math.max(1, at - Date.now()), { summary: 'run deadline' }).then(() => queue.push({ type: 'deadlinePassed', now: Date.now() }), ignoreCancellation);
  // Temporal's own cancellation request (its CLI, Web UI, client) cancels this scope: whatever
  // cancellable the loop waits on rejects, and the run takes it as a cancel.
  const root = CancellationScope.current();
  let nativeCancelTaken = false;
  let armedDeadline = step.state.deadlineAt;
  armDeadline(armedDeadline);

  // One update for what a run is about and where it stands, and none when the starter already
  // set exactly that (startSearchAttributes): each update is a write to the server's visibility
  // store. (Older histories wrote the phase separately, in the loop.)
  const startPhase = visiblePhase(step.state.phase);
  let shownPhase: string = current ? startPhase : '';
  const wanted = current ? runSearchAttributes(run, startPhase) : runSearchAttributes(run);
  const atStart = workflowInfo().typedSearchAttributes;
  if (!current || !wanted.every(({ key, value }) => atStart.get(key) === value)) upsertSearchAttributes(wanted);
  while (step.command.type !== 'stop') {
    observeStep(step); // telemetry, when the worker has it: no command, no promise, no history
    // What the Web UI shows as the run's current details: no history, just the latest word.
    setCurrentDetails(currentDetails(step));
    // Runs started before the coarse search-attribute phase keep writing every phase on replay.
    const phase = current || patched('visible-phase-v1') ? visiblePhase(step.state.phase) : step.state.phase;
    if (phase !== shownPhase) {
      shownPhase = phase;
      upsertSearchAttributes([{ key: phaseKey, value: shownPhase }]);
    }
    if (step.state.guardVersion === 2 && step.state.deadlineAt !== armedDeadline) {
      armedDeadline = step.state.deadlineAt;
      armDeadline(armedDeadline);
    }
    const operatorEvent = queue.shift();
    if (operatorEvent) {
      step = next(step.state, operatorEvent, domain);
      continue;
    }
    // Roll over only at a quiet point: no activity in flight, no effect in doubt, no operator
    // input waiting. A pending approval rides along in the state and keeps its request id.
    // (Not awaiting handlers here: an approve handler waits for this loop to take its event.)
    const quiet = (step.command.type === 'propose' || step.command.type === 'awaitApproval') && queue.length === 0 && allHandlersFinished();
    if (quiet && shouldContinueAsNew(run)) {
      return await continueAsNew<AgentWorkflow>({ run, carried: step.state });
    }
    const work = perform(step.command, run, domain, queue);
    let outcome: { ok: true; value: unknown } | { ok: false; err: unknown };
    try {
      outcome = { ok: true, value: await work.pending };
    } catch (err) {
      outcome = { ok: false, err };
    }
    if (!nativeCancelTaken && root.consideredCancelled) {
      // An effect and a readback run shielded from it, so what they learnt about the world is
      // recorded first; a model reply, a read, a probe or a wait cut short is dropped.
      nativeCancelTaken = true;
      if (keepsOutcome(step.command)) step = next(step.state, outcome.ok ? work.done(outcome.value) : work.failed(outcome.err), domain);
      step = next(step.state, nativeCancel(), domain);
      continue;
    }
    step = next(step.state, outcome.ok ? work.done(outcome.value) : work.failed(outcome.err), domain);
  }

  observeStep(step);
  const terminal = step.state.terminal;
  if (!terminal) throw new Error('bug: stopped without a terminal');
  upsertSearchAttributes([
    { key: phaseKey, value: 'terminal' },
    { key: terminalKey, value: terminal.class },
    { key: stopReasonKey, value: terminal.reason },
  ]);
  // The Web UI's last word on the run: what it did and how it ended (no command, no history).
  setCurrentDetails(headline(step.state, domain) ?? terminal.class);
  // Shielded: in a cancelled run a wait in the root scope would reject at once.
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return {
    runId: step.state.runId,
    domain: domain.name,
    caseId: run.caseId,
    terminal,
    turns: step.state.turn,
    toolCalls: step.state.used.toolCalls,
    effects: step.state.effects,
  };
}

/** The deadline timer is cancelled with the run; anything else rejecting it is a bug. */
function ignoreCancellation(err: unknown): void {
  if (!isCancellation(err)) throw err;
}

/**
 * Temporal's cancellation request as the controller's cancel. Its identity and reason are in
 * the execution's history (WorkflowExecutionCancelRequested) but not visible to workflow code.
 */
function nativeCancel(): RunEvent {
  const settle = patched(NATIVE_CANCEL_PATCH);
  return { type: 'cancelled', now: Date.now(), by: 'temporal-cancel', reason: 'cancellation requested through Temporal', ...(settle ? { settle } : {}) };
}

/** Work whose outcome says what the world now holds, and is kept when a cancel comes with it. */
function keepsOutcome(command: Command): boolean {
  return command.type === 'readback' || (command.type === 'invoke' && command.calls.some((c) => c.kind === 'effect'));
}

function newState(run: RunInput, domain: Domain, guarded: boolean, chained: boolean): RunState {
  const scope = approverScope(run);
  const state = initialState({
    runId: workflowInfo().workflowId,
    domain,
    caseId: run.caseId,
    budgets: { ...domain.defaults.budgets, ...run.budgets },
    context: {
      strategy: run.context?.strategy ?? domain.defaults.context,
      window: run.context?.window ?? domain.defaults.window,
    },
    ...(run.approvalTimeoutMs ? { approvalTimeoutMs: run.approvalTimeoutMs } : {}),
    ...(guarded ? { guardVersion: 2 as const } : {}),
    ...(guarded && scope ? { approverScope: scope } : {}),
    ...(chained ? { chain: workflowInfo().firstExecutionRunId, engine: 4 as const } : {}),
    ...(chained && permittedEffects(run) ? { permittedEffects: permittedEffects(run) } : {}),
    now: Date.now(),
  });
  return guarded && run.start ? { ...state, starterClaim: run.start } : state;
}

/**
 * Carried state is accepted only from this run's own continue-as-new: a client that starts the
 * workflow with made-up state gets a refusal. An effect it says is in flight without an
 * approval on record is dropped from flight, so it has to pass the gate again.
 */
function refuseForeignState(carried: RunState): void {
  const info = workflowInfo();
  if (!info.continuedFromExecutionRunId) {
    throw ApplicationFailure.nonRetryable('carried state is accepted only from this run\'s own continue-as-new', 'InvalidRunInput');
  }
  if (carried.runId !== info.workflowId) throw ApplicationFailure.nonRetryable(`carried state belongs to run ${carried.runId}`, 'InvalidRunInput');
  // Runs roll over only at quiet points (nothing in flight, no effect in doubt): state that
  // says otherwise was not written by a rollover, and nothing in it may skip the gate.
  const doubt = carried.effects.some((e) => e.status === 'in_flight' || e.status === 'unknown');
  if (carried.inFlight.length > 0 || carried.pendingDispatch || doubt) {
    throw ApplicationFailure.nonRetryable('carried state has calls in flight or in doubt; it was not written at a rollover', 'InvalidRunInput');
  }
}

async function refuseStateFromElsewhere(): Promise<void> {
  const previousRunId = workflowInfo().continuedFromExecutionRunId;
  if (!previousRunId) throw ApplicationFailure.nonRetryable('carried state is accepted only from this run\'s own continue-as-new', 'InvalidRunInput');
  const verdict = await continuations.checkContinuation({ previousRunId });
  if (!verdict.ok) throw ApplicationFailure.nonRetryable(`carried run state refused: ${verdict.reason ?? 'not written by this engine'}`, 'InvalidRunInput');
}

/**
 * A command under way: what it waits for, and how its outcome becomes the controller's event.
 * The loop awaits `pending` itself rather than a promise chain made here: the SDK records a
 * stack trace for every promise a workflow creates (for its stack-trace query), and on a turn
 * that does nothing but wait for two activities each extra `.then` was a measurable share of
 * the worker's CPU.
 */
interface Work {
  pending: Promise<unknown>;
  done(value: unknown): RunEvent;
  failed(err: unknown): RunEvent;
}

function work<T>(pending: Promise<T>, done: (value: T) => RunEvent, failed: (err: unknown) => RunEvent = rethrow): Work {
  return { pending, done: done as (value: unknown) => RunEvent, failed };
}

/** For work whose promise never rejects on purpose: a rejection there is a bug, and fails the task. */
function rethrow(err: unknown): never {
  throw err;
}

function perform(command: Exclude<Command, { type: 'stop' }>, run: RunInput, domain: Domain, queue: RunEvent[]): Work {
  switch (command.type) {
    case 'propose':
      return work(
        models.propose.executeWithOptions(modelCallOptions(run, `propose turn ${command.context.runtime.turn} (${run.model.adapter})`), [
          { domain: domain.name, caseId: run.caseId, model: run.model, context: command.context, proposalIndex: command.proposalIndex, ...(run.team ? { team: run.team } : {}) },
        ]),
        (reply): RunEvent =>
          spendRefusal(reply) ??
          (typeof reply?.tokens === 'number' && Number.isFinite(reply.tokens)
            ? { type: 'proposed', now: Date.now(), reply: reply.reply, tokens: reply.tokens, contextTokens: command.context.tokenEstimate, ...costOf(reply) }
            : { type: 'modelFailed', now: Date.now(), message: 'the model activity returned no numeric token count' }),
        (err): RunEvent => ({ type: 'modelFailed', now: Date.now(), message: failureMessage(err) }),
      );
    case 'invoke': {
      const observed = (results: ToolResult[]): RunEvent => ({ type: 'observed', now: Date.now(), results });
      // Most turns make one call, and it needs no Promise.all (which adds a promise per call).
      const [only] = command.calls;
      if (command.calls.length === 1 && only) {
        const call = callTool(only, run, domain);
        return work(call.pending, (raw) => observed([call.done(raw)]), (err) => observed([call.failed(err)]));
      }
      return work(Promise.all(command.calls.map((c) => callTool(c, run, domain)).map((call) => call.pending.then(call.done, call.failed))), observed);
    }
    case 'verify':
      return work(
        probes.verify.executeWithOptions({ summary: `verify ${compactJson(command.claim, 80)}` }, [{ domain: domain.name, caseId: run.caseId, claim: command.claim }]),
        (raw): RunEvent => {
          const verdict = ProbeVerdict.safeParse(raw);
          if (verdict.success) return { type: 'verified', now: Date.now(), verdict: verdict.data };
          const now = Date.now();
          return { type: 'verified', now, verdict: { holds: false, conflict: false, decided: false, detail: 'the probe returned something that is not a verdict', facts: {}, checkedAt: now } };
        },
        (err): RunEvent => {
          const now = Date.now();
          return { type: 'verified', now, verdict: { holds: false, conflict: false, decided: false, detail: `probe could not run: ${failureMessage(err)}`, facts: {}, checkedAt: now } };
        },
      );
    case 'readback':
      return work(readback(command, run, domain), (result): RunEvent => ({ type: 'reconciled', now: Date.now(), result }));
    case 'loadApprovers':
      // The directory is the worker's configuration; what comes back is checked like any input.
      return work(
        probes.loadApprovers.executeWithOptions({ summary: `approvers for ${command.request.call.tool}` }, []),
        (raw): RunEvent => {
          const parsed = ApproverDirectory.safeParse(raw);
          return { type: 'approversLoaded', now: Date.now(), requestId: command.request.requestId, approvers: parsed.success ? parsed.data.approvers : [] };
        },
        (): RunEvent => ({ type: 'approversLoaded', now: Date.now(), requestId: command.request.requestId, approvers: [] }),
      );
    case 'awaitApproval':
      return work(
        condition(() => queue.length > 0, Math.max(1, command.request.expiresAt - Date.now()), { summary: `approval wait: ${command.request.call.tool}` }),
        (arrived): RunEvent => (arrived ? (queue.shift() as RunEvent) : { type: 'approvalTimedOut', now: Date.now(), requestId: command.request.requestId }),
      );
  }
}

/**
 * A run with a model queue sends its model calls there, where the queue's workers rate-limit
 * them across every run (maxTaskQueueActivitiesPerSecond) and the server shares the rate
 * fairly between teams (the fairness key). Runs without one schedule exactly as before.
 */
function modelCallOptions(run: RunInput, summary: string): { summary: string; taskQueue?: string; priority?: { fairnessKey: string } } {
  if (!run.modelQueue) return { summary };
  return { summary, taskQueue: run.modelQueue, priority: { fairnessKey: run.team ?? run.domain } };
}

/** The model activity's word that a cap held outside the run is spent (activities/spend), as the controller's event. */
function spendRefusal(reply: unknown): RunEvent | undefined {
  const refused = (reply as { spendRefused?: unknown } | undefined)?.spendRefused as { cap?: unknown; detail?: unknown } | undefined;
  if (!refused || typeof refused !== 'object') return undefined;
  return { type: 'spendRefused', now: Date.now(), cap: String(refused.cap).slice(0, 120), detail: String(refused.detail).slice(0, 300) };
}

/** What the call cost by the worker's price table, when the worker priced it. */
function costOf(reply: unknown): { costMicros?: number } {
  const cost = (reply as { costMicros?: unknown }).costMicros;
  return typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? { costMicros: cost } : {};
}

/**
 * Starts one tool call, and says how its outcome becomes the call's result. Reads and
 * idempotent effects may be retried by Temporal; a non-idempotent effect gets exactly one
 * attempt, and any failure after the request may have reached the system is `unknown`, to be
 * read back, never retried blind.
 */
function callTool(call: PlannedCall, run: RunInput, domain: Domain): { pending: Promise<unknown>; done(raw: unknown): ToolResult; failed(err: unknown): ToolResult } {
  const startedAt = Date.now();
  const summary = `${call.tool} ${call.subject ? subjectLabel(call.subject) : compactJson(call.args, 60)}`;
  const start = () => toolsFor(call).invokeTool.executeWithOptions({ summary }, [{ domain: domain.name, caseId: run.caseId, call }]);
  return {
    // An effect once sent may have committed: a cancel never abandons it, but waits for its
    // reply (bounded by its timeouts) and reads it back if the reply says nothing.
    pending: call.kind === 'effect' ? CancellationScope.nonCancellable(start) : start(),
    done: (raw) => toolResultOf(call, raw, startedAt),
    failed: (err) => failedCallResult(call, err, startedAt),
  };
}

/** Attempts of a tool call that may be retried (a read, an idempotent effect); any other gets one. */
const TOOL_ATTEMPTS = 3;

// One proxy per kind and retry policy, made once. Effects may take longer than reads; a call
// that is not idempotent gets exactly one attempt (see callTool).
const tools = {
  read: { retried: toolProxy('20 seconds', TOOL_ATTEMPTS), once: toolProxy('20 seconds', 1) },
  effect: { retried: toolProxy('30 seconds', TOOL_ATTEMPTS), once: toolProxy('30 seconds', 1) },
};

function toolsFor(call: PlannedCall) {
  const byKind = call.kind === 'effect' ? tools.effect : tools.read;
  return call.idempotent ? byKind.retried : byKind.once;
}

function toolProxy(startToCloseTimeout: string, maximumAttempts: number) {
  return proxyActivities<AgentActivities>({
    startToCloseTimeout,
    heartbeatTimeout: '4 seconds',
    retry: { maximumAttempts, initialInterval: '300 milliseconds', backoffCoefficient: 2 },
  });
}

/** Checked where it enters: a result for another call, or of the wrong shape, is not this call's result. */
function toolResultOf(call: PlannedCall, raw: unknown, startedAt: number): ToolResult {
  const result = ToolResult.safeParse(raw);
  if (result.success && result.data.callId === call.callId) return result.data;
  const message = 'the tool activity returned a malformed result';
  return call.kind === 'effect'
    ? { status: 'unknown', callId: call.callId, errorClass: 'unknown', message, attempt: 1, startedAt, finishedAt: Date.now() }
    : { status: 'error', callId: call.callId, errorClass: 'bad_output', message, attempt: 1, startedAt, finishedAt: Date.now() };
}

/** The activity failed after its retries: an effect's outcome is unknown, a read's is an error. */
function failedCallResult(call: PlannedCall, err: unknown, startedAt: number): ToolResult {
  const timedOut = err instanceof ActivityFailure && err.cause instanceof TimeoutFailure;
  return {
    status: call.kind === 'effect' ? 'unknown' : timedOut ? 'timeout' : 'error',
    callId: call.callId,
    errorClass: call.kind === 'effect' ? 'unknown' : timedOut ? 'timeout' : 'transient',
    message: failureMessage(err),
    attempt: call.idempotent ? TOOL_ATTEMPTS : 1,
    startedAt,
    finishedAt: Date.now(),
  };
}

/** Shielded from a cancel: the readback is what lets a cancelled run say whether its effect took. */
function readback(command: Extract<Command, { type: 'readback' }>, run: RunInput, domain: Domain): Promise<ReadbackResult> {
  return CancellationScope.nonCancellable(() =>
    probes.readback.executeWithOptions({ summary: `readback ${command.readbackTool} ${command.effect.key}` }, [
      { domain: domain.name, caseId: run.caseId, tool: command.readbackTool, key: command.effect.key, callId: command.effect.callId },
    ]),
  )
    .then(
      (raw): ReadbackResult => {
        const result = ReadbackResult.safeParse(raw);
        if (result.success && result.data.callId === command.effect.callId) return result.data;
        return { callId: command.effect.callId, outcome: 'undecided', detail: 'the readback returned a malformed result', attempts: 1 };
      },
      (err: unknown): ReadbackResult => ({ callId: command.effect.callId, outcome: 'undecided', detail: `readback failed: ${failureMessage(err)}`, attempts: 3 }),
    );
}

/** `transfer:PX-1042` -> `PX-1042`: what an operator scanning the Web UI needs. */
function subjectLabel(subject: string): string {
  const colon = subject.indexOf(':');
  return colon < 0 ? subject : subject.slice(colon + 1);
}

function currentDetails(step: Step): string {
  const s = step.state;
  const waiting =
    step.command.type === 'awaitApproval' || step.command.type === 'loadApprovers'
      ? `waiting for approval of ${step.command.request.call.tool} until ${new Date(step.command.request.expiresAt).toISOString()}`
      : step.command.type === 'invoke'
        ? `running ${step.command.calls.map((c) => c.tool).join(', ')}`
        : step.command.type === 'readback'
          ? `${s.cancelling ? `cancelled by ${s.cancelling.by}; ` : ''}reading back ${step.command.effect.tool} (key ${step.command.effect.key})`
          : step.command.type;
  return `**${s.phase}** · turn ${s.turn}/${s.budgets.turns} · ${waiting}`;
}

function shouldContinueAsNew(run: RunInput): boolean {
  const info = workflowInfo();
  if (run.continueAsNewAfterEvents !== undefined) return info.historyLength >= run.continueAsNewAfterEvents;
  return info.continueAsNewSuggested;
}

function failureMessage(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return `${err.cause.name}: ${err.cause.message}`.slice(0, 300);
  return err instanceof Error ? err.message.slice(0, 300) : String(err).slice(0, 300);
}
