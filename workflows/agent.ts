// The agent workflow: a short interpreter around the controller. It asks for a command,
// performs it with an activity, a timer or a wait for a person, and feeds back what happened.
// Every decision lives in the controller; this file only knows how to do things durably.
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
  allHandlersFinished,
  patched,
  setCurrentDetails,
} from '@temporalio/workflow';
import { actedOn, cancellationAsArrival, carriedArrivals, deliver, loopNow, loopTask, takeHeld } from './arrivals.js';
import { domainDefaults, type Domain } from './contract.js';
import type { Command, RunEvent, Step, RunState } from './controller/index.js';
import { commandOrHalt, headline, initialState, loadState, next } from './controller/index.js';
import { installOperatorHandlers } from './handlers.js';
import type { RunResult } from './messages.js';
import type { ReadSeal } from './protocol.js';
import { approverScope, permittedEffects, RunInput, unknownEffectOf } from './run-input.js';
import { refuseForeignRunId } from './run-identity.js';
import { phaseKey, runSearchAttributes, stopReasonKey, terminalKey, visiblePhase } from './search-attributes.js';
import { ErrorTypes } from './policy.js';
import { perform } from './perform.js';
import { directoryNow, takeStatement } from './statement-spending.js';
import { closeRun } from './closing.js';
import { refuseForeignState, refuseStateFromElsewhere } from './carried-state.js';
import { observeStep } from './telemetry.js';
import { runBinding, unboundMark } from './trust/run-binding.js';
import { currentDetails, finalDetails } from './web-ui.js';
import { rollOver, upgradeDue } from './upgrade-on-rollover.js';
import { carriedReads, checkReadsBeforeRollover, firstTakeable } from './sealed.js';
import { olderRuleSetError, RULE_SET } from './rule-set.js';

/** What the agent workflow is started with: the run's input (and, after a continue-as-new, the state it carries). */
export interface AgentWorkflowInput {
  run: RunInput;
  /** Set by continue-as-new: the folded state of the previous execution. */
  carried?: RunState;
  /** Set by continue-as-new: a cancel or the deadline that arrived while a seal check was pending (arrivals.ts). */
  arrivals?: RunEvent[];
  /** Set by continue-as-new: the seals of reads no effect vouched for, that failed their check before it (sealed.ts). */
  reads?: ReadSeal[];
}

/** The agent workflow's signature, for clients that start or attach to runs by type name. */
export type AgentWorkflow = (input: AgentWorkflowInput) => Promise<RunResult>;

/**
 * The agent workflow for your domains. In your workflows module (the one the worker bundles):
 * `export const agentWorkflow = agentWorkflowFor([refunds, ...])`. The domains are workflow code:
 * deterministic, bundled into the sandbox, replay-sensitive.
 *
 * @example
 * ```ts
 * // workflows.ts, the worker's workflowsPath
 * import { agentWorkflowFor } from 'bounded-react-temporal/workflow';
 * import { orders } from './domain.js';
 *
 * export const agentWorkflow = agentWorkflowFor([orders]);
 * ```
 */
export function agentWorkflowFor(domains: readonly Domain[]): AgentWorkflow {
  const byName = new Map(domains.map((d) => [d.name, d] as const));
  if (byName.size !== domains.length) throw new Error('two domains share a name');
  // Named so that clients starting it by function get Temporal's type name right.
  // The cancel a rollover carries is stamped when it arrives, as every arrival is (arrivals.ts).
  const agentWorkflow: AgentWorkflow = (input) =>
    cancellationAsArrival(
      () => runAgent(input, byName),
      () => nativeCancel(Date.now()),
    );
  return agentWorkflow;
}

async function runAgent(input: AgentWorkflowInput, domains: ReadonlyMap<string, Domain>): Promise<RunResult> {
  const parsed = RunInput.safeParse(input.run);
  if (!parsed.success) throw ApplicationFailure.nonRetryable(`invalid run input: ${parsed.error.message}`, ErrorTypes.invalidRunInput);
  const run = parsed.data;
  const domain = domains.get(run.domain);
  if (!domain) throw ApplicationFailure.nonRetryable(`unknown domain ${run.domain}`, ErrorTypes.invalidRunInput);
  const caseId = domain.caseId?.safeParse(run.caseId);
  if (caseId && !caseId.success) throw ApplicationFailure.nonRetryable(`${run.caseId} is not a ${domain.name} case id`, ErrorTypes.invalidRunInput);
  const unknownEffect = unknownEffectOf(run, domain);
  if (unknownEffect) throw ApplicationFailure.nonRetryable(unknownEffect, ErrorTypes.invalidRunInput);
  if (run.shape === 'workflow' && !domain.route) {
    throw ApplicationFailure.nonRetryable(`shape workflow needs the domain's route, and ${domain.name} declares none`, ErrorTypes.invalidRunInput);
  }
  refuseForeignRunId(run); // one run per case at a time: the workflow id must be the case's

  // One rule set per release (workflows/rule-set.ts): first, before any command, so a history
  // from an older release is refused here, by name, and not by a nondeterminism error later.
  // A new execution records the marker; a replayed history answers by whether it holds it.
  if (!patched(RULE_SET)) throw olderRuleSetError(`the history of ${workflowInfo().workflowId}`);
  const loaded = input.carried === undefined ? undefined : loadState(input.carried);
  if (loaded && !loaded.ok) {
    if (loaded.olderRuleSet) throw olderRuleSetError(`the state ${workflowInfo().workflowId} carried over`);
    throw ApplicationFailure.nonRetryable(`carried run state is invalid: ${loaded.problem}`, ErrorTypes.invalidRunInput);
  }
  const carried = loaded?.ok ? loaded.state : undefined;
  if (carried) refuseForeignState(carried);
  const queue: RunEvent[] = [];
  let step: Step = carried ? commandOrHalt(carried, domain, loopNow()) : next(newState(run, domain), { type: 'started', now: loopNow() }, domain);
  // What a start or a request must have been signed for to count here (trust/run-binding.ts).
  const bound = runBinding(workflowInfo().namespace, run);
  installOperatorHandlers({ run, bound, state: () => step.state, queue, loadApprovers: directoryNow, domain });
  // The start statement and the starter's signed request are the first things the run takes,
  // before any proposal, each spent by this execution (a continued run carries them in its state)
  // unless it was signed for another run.
  if (!carried)
    queue.push(...(await Promise.all([...(run.start ? [startTaken(run.start, bound)] : []), ...(run.request ? [requestNote(run.request, bound)] : [])])));
  // Carried state is the engine's only if the execution that continued was an agent run on
  // this task queue: the server says so, not the state (activities/continuation.ts). Asked
  // before the loop's first command, with the handlers up so that queries still answer (and a
  // decision sent meanwhile waits in the queue: taken only if the answer is yes).
  if (carried) await refuseStateFromElsewhere();
  // What arrived while the previous execution's seal check was pending (arrivals.ts) comes first.
  const arrived = carriedArrivals(input.arrivals, carried !== undefined);
  if (!arrived.ok) throw ApplicationFailure.nonRetryable(arrived.problem, ErrorTypes.invalidRunInput);
  queue.push(...arrived.events);
  // Reads the previous execution took whose seals failed: every effect carries them, and is refused.
  const unvouched = carriedReads(input.reads, carried !== undefined);
  if (!unvouched.ok) throw ApplicationFailure.nonRetryable(unvouched.problem, ErrorTypes.invalidRunInput);

  // The deadline is a durable timer: it fires after a worker restart as it would have before.
  // The deadline moves while a person decides; a new timer follows it.
  // Shielded from any cancel: the loop takes a cancel itself, and a deadline timer cancelled by a
  // cancel that waited on a seal check (arrivals.ts) could not replay where the check's result ends the run.
  const armDeadline = (at: number) =>
    void CancellationScope.nonCancellable(() => sleep(Math.max(1, at - loopNow()), { summary: 'run deadline' })).then(
      () => deliver(queue, { type: 'deadlinePassed', now: Date.now() }),
      ignoreCancellation,
    );
  // Temporal's own cancellation request (its CLI, Web UI, client) cancels this scope (as an
  // arrival: arrivals.ts): whatever cancellable the loop waits on rejects, and the run takes it as a cancel.
  const root = CancellationScope.current();
  let nativeCancelTaken = false;
  let armedDeadline = step.state.deadlineAt;
  armDeadline(armedDeadline);

  // One update for what a run is about and where it stands, and none when the starter already
  // set exactly that (startSearchAttributes): each update is a write to the server's visibility store.
  let shownPhase = visiblePhase(step.state.phase);
  const wanted = runSearchAttributes(run, shownPhase);
  const atStart = workflowInfo().typedSearchAttributes;
  if (!wanted.every(({ key, value }) => atStart.get(key) === value)) upsertSearchAttributes(wanted);
  while (step.command.type !== 'stop') {
    observeStep(step); // telemetry, when the worker has it: no command, no promise, no history
    // What the Web UI shows as the run's current details: no history, just the latest word.
    setCurrentDetails(currentDetails(step));
    const phase = visiblePhase(step.state.phase);
    if (phase !== shownPhase) {
      shownPhase = phase;
      upsertSearchAttributes([{ key: phaseKey, value: shownPhase }]);
    }
    if (step.state.deadlineAt !== armedDeadline) {
      armedDeadline = step.state.deadlineAt;
      armDeadline(armedDeadline);
    }
    if (queue.length > 0) {
      // A decision is taken only once the directory read it was judged on holds (sealed.ts).
      const check = firstTakeable(queue);
      if (!check || (await check)) step = next(step.state, queue.shift() as RunEvent, domain);
      continue;
    }
    // Roll over only at a quiet point: no activity in flight, no effect in doubt, no operator
    // input waiting. A pending approval rides along in the state and keeps its request id.
    // (Not awaiting handlers here: an approve handler waits for this loop to take its event.)
    const quiet = (step.command.type === 'propose' || step.command.type === 'awaitApproval') && queue.length === 0 && allHandlersFinished();
    // A pinned run whose build is no longer current moves to the new one here (workflows/upgrade-on-rollover.ts).
    const upgrade = quiet && upgradeDue();
    if (quiet && (upgrade || shouldContinueAsNew(run))) {
      // The reads' seals are checked first: the next execution's effects carry only those that failed.
      const reads = await checkReadsBeforeRollover();
      if (reads) {
        // What waits on a seal check's result goes along (arrivals.ts), taken first by the next execution.
        const arrivals = takeHeld();
        return await rollOver<AgentWorkflow>(upgrade, {
          run,
          carried: step.state,
          ...(arrivals.length ? { arrivals } : {}),
          ...(reads.length ? { reads } : {}),
        });
      }
      // The check could not run: the run goes on, and rolls over at its next quiet point.
    }
    const work = perform(step.command, run, domain, queue);
    actedOn(); // the next work has started: what waited on a seal check may arrive (arrivals.ts)
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
    // Notes that came while the model was thinking are in the record before its proposal is
    // judged: a request an operator signed and sent with the start counts from the first turn.
    if (step.command.type === 'propose') step = takeNotes(step, queue, domain);
    step = next(step.state, outcome.ok ? work.done(outcome.value) : work.failed(outcome.err), domain);
  }

  observeStep(step);
  const terminal = step.state.terminal;
  if (!terminal) throw new Error('bug: stopped without a terminal');
  // What the run set up is put back however it ended (workflows/closing.ts).
  const closing = domain.closing?.length ? await closeRun(step.state, run, domain) : [];
  actedOn();
  upsertSearchAttributes([
    { key: phaseKey, value: 'terminal' },
    { key: terminalKey, value: terminal.class },
    { key: stopReasonKey, value: terminal.reason },
  ]);
  // The Web UI's last word on the run: what it did and how it ended (no command, no history).
  setCurrentDetails(finalDetails(step.state, headline(step.state, domain)));
  // Shielded: in a cancelled run a wait in the root scope would reject at once.
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return {
    runId: step.state.runId,
    domain: domain.name,
    caseId: run.caseId,
    terminal,
    turns: step.state.turn,
    ...(step.state.shape ? { shape: step.state.shape, modelCalls: step.state.used.modelCalls ?? 0 } : {}),
    toolCalls: step.state.used.toolCalls,
    effects: step.state.effects,
    ...(closing.length ? { closing } : {}),
  };
}

/**
 * The start statement, judged against the directory as it is now, and spent by this execution
 * (statement-spending.ts takeStatement); `bound` is what this run's start must have been signed for.
 * One signed for another run is not taken, so not spent either: whoever lifted it into this run
 * does not use it up for the run it was signed for (handlers.ts does the same for a note).
 */
async function startTaken(signed: NonNullable<RunInput['start']>, bound: string): Promise<RunEvent> {
  if (unboundMark(signed.statement, bound, true).unbound) return { type: 'startTaken', now: loopNow(), directory: [], unbound: true };
  const { directory, spentBy } = await takeStatement('start', signed.signature);
  return { type: 'startTaken', now: loopNow(), directory, ...(spentBy ? { spentBy } : {}) };
}

/**
 * The start's request as a signed note, judged against the directory as it is now (none readable:
 * no one vouches), and spent by this execution (statement-spending.ts takeStatement); like the
 * start, not taken (nor spent) when it was signed for another run.
 */
async function requestNote(signed: NonNullable<RunInput['request']>, bound: string): Promise<RunEvent> {
  if (unboundMark(signed.statement, bound, true).unbound) return { type: 'signedNoteAdded', now: loopNow(), signed, directory: [], unbound: true };
  const { directory, spentBy } = await takeStatement('request', signed.signature);
  return { type: 'signedNoteAdded', now: loopNow(), signed, directory, ...(spentBy ? { spentBy } : {}) };
}

/** Takes the notes waiting in the queue, in order, leaving every other event where it is. */
function takeNotes(step: Step, queue: RunEvent[], domain: Domain): Step {
  for (let i = 0; i < queue.length;) {
    const event = queue[i] as RunEvent;
    if (event.type !== 'noteAdded' && event.type !== 'signedNoteAdded') {
      i++;
      continue;
    }
    queue.splice(i, 1);
    step = next(step.state, event, domain);
  }
  return step;
}

/** The deadline timer is cancelled with the run; anything else rejecting it is a bug. */
function ignoreCancellation(err: unknown): void {
  if (!isCancellation(err)) throw err;
}

/**
 * Temporal's cancellation request as the controller's cancel. Its identity and reason are in
 * the execution's history (WorkflowExecutionCancelRequested) but not visible to workflow code.
 */
function nativeCancel(now = loopNow()): Extract<RunEvent, { type: 'cancelled' }> {
  return { type: 'cancelled', now, by: 'temporal-cancel', reason: 'cancellation requested through Temporal' };
}

/** Work whose outcome says what the world now holds, and is kept when a cancel comes with it. */
function keepsOutcome(command: Command): boolean {
  return command.type === 'readback' || (command.type === 'invoke' && command.calls.some((c) => c.kind === 'effect'));
}

function newState(run: RunInput, domain: Domain): RunState {
  const defaults = domainDefaults(domain);
  const scope = approverScope(run);
  const permitted = permittedEffects(run);
  const state = initialState({
    runId: workflowInfo().workflowId,
    domain,
    caseId: run.caseId,
    budgets: { ...defaults.budgets, ...run.budgets },
    context: {
      strategy: run.context?.strategy ?? defaults.context,
      window: run.context?.window ?? defaults.window,
    },
    ...(run.approvalTimeoutMs ? { approvalTimeoutMs: run.approvalTimeoutMs } : {}),
    ...(scope ? { approverScope: scope } : {}),
    chain: workflowInfo().firstExecutionRunId,
    ...(permitted ? { permittedEffects: permitted } : {}),
    ...(run.shape ? { shape: run.shape } : {}),
    ...(run.model.adapter === 'scripted' ? { scriptedStart: true } : {}),
    now: loopNow(),
  });
  return run.start ? { ...state, starterClaim: run.start } : state;
}

function shouldContinueAsNew(run: RunInput): boolean {
  const task = loopTask(); // as it was when a pending seal check started (arrivals.ts)
  if (run.continueAsNewAfterEvents !== undefined) return task.historyLength >= run.continueAsNewAfterEvents;
  return task.continueAsNewSuggested;
}
