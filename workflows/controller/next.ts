// The controller: next(state, event, domain) -> { state, command }. Pure: no I/O, no clock (time comes
// on the event), no randomness, no exceptions for anything a model or a tool can cause. The
// command is derived from the state alone, so the workflow can always ask "what now?".
// This file is the table: each event goes to a small handler in proposals.ts, approvals.ts,
// finish.ts or observed.ts; the gate (admission.ts) judges proposed calls.
import type { Budgets, ContextStrategy, Domain } from '../contract.js';
import { onAmended, onApprovalTimedOut, onApproversLoaded, onDecided } from './approvals.js';
import { onCancelReadback, onCancelRequested } from './cancel.js';
import type { Command } from './commands.js';
import { compileContext } from './context.js';
import type { RunEvent } from './events.js';
import { onVerified } from './finish.js';
import { onObserved, onReconciled } from './observed.js';
import { fold } from './retention.js';
import { onModelReply, stepsWithoutModel } from './proposals.js';
import type { Shape } from './shape.js';
import { STATE_VERSION, type RunState } from './state.js';
import { contractOf, control, inDoubt, onDeadline, proposeOrStop, stop } from './transitions.js';
import { noteEntry, verifiedStarter } from './trust.js';

export interface Step {
  state: RunState;
  command: Command;
}

export interface NewRun {
  runId: string;
  domain: Domain;
  caseId: string;
  budgets: Budgets;
  context: { strategy: ContextStrategy; window: number };
  approvalTimeoutMs?: number;
  now: number;
  approverScope?: string[];
  /** The chain's first execution run id, which binds every signed statement to this run. */
  chain: string;
  /** The effects the run may take, when its start narrowed them. */
  permittedEffects?: string[];
  /** Who decides the run's steps; absent: react, with nothing recorded (as in runs before shapes). */
  shape?: Shape;
}

export function initialState(run: NewRun): RunState {
  return {
    version: STATE_VERSION,
    ...(run.approverScope ? { approverScope: run.approverScope } : {}),
    chain: run.chain,
    ...(run.permittedEffects ? { permittedEffects: run.permittedEffects } : {}),
    ...(run.shape ? { shape: run.shape } : {}),
    runId: run.runId,
    domain: run.domain.name,
    caseId: run.caseId,
    goal: run.domain.goal(run.caseId),
    startedAt: run.now,
    deadlineAt: run.now + run.budgets.deadlineMs,
    budgets: run.budgets,
    used: { toolCalls: 0, effects: 0, duplicates: 0, tokens: 0, ...(run.shape ? { modelCalls: 0 } : {}) },
    context: run.context,
    phase: 'proposing',
    turn: 0,
    seq: 0,
    factsVersion: 0,
    pinned: {},
    evidence: [],
    transcript: [],
    decisions: [],
    executions: [],
    effects: [],
    approvals: [],
    seen: {},
    nudges: 0,
    inFlight: [],
    dropped: { evidence: 0, transcript: 0, decisions: 0, executions: 0, effects: 0 },
    ...(run.approvalTimeoutMs ? { approvalTimeoutMs: run.approvalTimeoutMs } : {}),
  };
}

export function next(state: RunState, event: RunEvent, domain: Domain): Step {
  if (domain.name !== state.domain) throw new Error(`bug: run state of ${state.domain} given domain ${domain.name}`);
  let after: RunState;
  try {
    after = stepsWithoutModel(fold(reduce(state, event, domain)), domain, event.now);
  } catch (err) {
    return haltedBy(state, err, event.now, domain);
  }
  return commandOrHalt(after, domain, event.now);
}

/**
 * The command for a state, or, when deriving it throws (a domain hook that throws, a domain
 * the definition checks could not see through), the run stopped with the reason. A throw in
 * workflow code would fail the workflow task, which Temporal retries forever: the run would
 * never end and nobody would be told.
 */
export function commandOrHalt(state: RunState, domain: Domain, now: number): Step {
  try {
    return { state, command: commandFor(state, domain, now) };
  } catch (err) {
    return haltedBy(state, err, now, domain);
  }
}

function haltedBy(state: RunState, err: unknown, now: number, domain: Domain): Step {
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 300);
  // An effect whose outcome the run had not settled stays named in its ledger; the class says so.
  const stopped = stop(state, inDoubt(state) ? 'unknown_outcome' : 'failed', 'controller_error', `the run could not go on: ${message}`, now);
  return { state: stopped, command: commandFor(stopped, domain, now) };
}

/** What the workflow should do in this state. Same state, same command: safe to ask again. */
export function commandFor(state: RunState, domain: Domain, now: number): Command {
  if (state.terminal) return { type: 'stop', terminal: state.terminal };
  switch (state.phase) {
    case 'proposing':
      return { type: 'propose', context: compileContext(state, domain, now), proposalIndex: state.turn - 1 };
    case 'acting':
      return { type: 'invoke', calls: state.inFlight };
    case 'verifying':
      return { type: 'verify', claim: state.pendingClaim?.claim, ...(state.pendingClaim?.soak ? { soak: state.pendingClaim.soak } : {}) };
    case 'awaiting_approval':
      if (!state.pendingApproval) throw new Error('bug: awaiting approval without a request');
      if (!state.pendingApproval.eligible) return { type: 'loadApprovers', request: state.pendingApproval };
      return { type: 'awaitApproval', request: state.pendingApproval };
    case 'reconciling': {
      const effect = state.effects.find((e) => e.status === 'unknown');
      const readbackTool = effect && contractOf(domain, effect.tool).readback;
      if (!effect || !readbackTool) throw new Error('bug: reconciling without an effect that has a readback');
      return { type: 'readback', effect, readbackTool, ...(effect.recheckAt ? { after: effect.recheckAt } : {}) };
    }
    case 'terminal':
      throw new Error('bug: terminal phase without a terminal record');
  }
}

function reduce(state: RunState, event: RunEvent, domain: Domain): RunState {
  if (state.terminal) return state; // a finished run ignores late events
  switch (event.type) {
    case 'started':
      return proposeOrStop(state, event.now);
    case 'cancelled':
      return onCancelRequested(state, domain, event);
    case 'deadlinePassed':
      // A cancel reading an effect back is bounded by the readback's own attempts.
      if (state.cancelling) return state;
      // The deadline moves (it pauses while a person decides), so a timer set for the old one
      // may fire early; and a waiting approval is bounded by its own expiry.
      if (event.now < state.deadlineAt || state.phase === 'awaiting_approval') return state;
      return onDeadline(state, event.now);
    case 'noteAdded':
      return {
        ...state,
        transcript: [...state.transcript, { kind: 'note', turn: state.turn, by: event.by, text: event.text.slice(0, 2_000), trusted: false }],
      };
    case 'startTaken':
      // A start statement names its signer as the starter once: in the first execution that takes it.
      if (event.spentBy) {
        const message = `the start statement was already taken by execution ${event.spentBy.slice(0, 80)}; nobody is named as this run's starter`;
        return control(state, 'start_spent', message);
      }
      return { ...state, ...verifiedStarter(state, event.directory) };
    case 'signedNoteAdded': {
      // A person's signed word is something new the run knows: a call refused for want of it
      // may be judged again (the loop guard compares factsVersion).
      if (event.spentBy) {
        // A request is spent by the execution that took it first: judged against no directory,
        // it is text here, like an unsigned note.
        const note = noteEntry(state, domain, event.signed, [], event.now);
        const noted = { ...state, transcript: [...state.transcript, note] };
        return control(noted, 'request_spent', `the signed request was already taken by execution ${event.spentBy.slice(0, 80)}; here it vouches for nothing`);
      }
      const note = noteEntry(state, domain, event.signed, event.directory, event.now);
      return { ...state, transcript: [...state.transcript, note], factsVersion: note.trusted ? state.factsVersion + 1 : state.factsVersion };
    }
    case 'proposed':
      expectPhase(state, 'proposing', event.type);
      return onModelReply(state, domain, event);
    case 'spendRefused':
      expectPhase(state, 'proposing', event.type);
      return stop(state, 'budget_exhausted', 'budget:spend', `${event.cap}: ${event.detail}`.slice(0, 300), event.now);
    case 'modelFailed':
      expectPhase(state, 'proposing', event.type);
      // An endpoint that stayed down is an outage a person can wait out or route around, not a broken run.
      if (event.outage)
        return stop(
          state,
          'escalated',
          'model_unavailable',
          `the model did not answer while proposing turn ${state.turn}: ${event.message}`.slice(0, 300),
          event.now,
        );
      return stop(state, 'failed', 'model_error', event.message.slice(0, 300), event.now);
    case 'observed':
      expectPhase(state, 'acting', event.type);
      return onObserved(state, domain, event.results, event.now);
    case 'verified':
      expectPhase(state, 'verifying', event.type);
      return onVerified(state, domain, event.verdict, event.now);
    case 'reconciled':
      expectPhase(state, 'reconciling', event.type);
      return state.cancelling ? onCancelReadback(state, domain, event.result, event.now) : onReconciled(state, domain, event.result, event.now);
    case 'approversLoaded':
      if (state.phase !== 'awaiting_approval') return state;
      return onApproversLoaded(state, event, event.now);
    // A person's decision can arrive at any moment; out of phase it changes nothing.
    case 'approvalTimedOut':
      return state.phase === 'awaiting_approval' ? onApprovalTimedOut(state, event) : state;
    case 'decided': {
      if (state.phase !== 'awaiting_approval') return state;
      const decided = onDecided(state, domain, event);
      return event.afterResetOf ? markedAfterReset(decided, event.signed.statement.requestId, event.afterResetOf) : decided;
    }
    case 'amended':
      if (state.phase !== 'awaiting_approval') return state;
      return onAmended(state, domain, event);
  }
}

/** The record of a decision that came after a reset says so (it may be one Temporal re-applied). */
function markedAfterReset(state: RunState, requestId: string, resetOf: string): RunState {
  return { ...state, approvals: state.approvals.map((a) => (a.requestId === requestId && a.afterResetOf === undefined ? { ...a, afterResetOf: resetOf } : a)) };
}

function expectPhase(state: RunState, phase: RunState['phase'], event: string): void {
  if (state.phase !== phase) throw new Error(`bug: ${event} arrived in phase ${state.phase}, expected ${phase}`);
}
