// The controller: next(state, event, domain) -> { state, command }. Pure: no I/O, no clock (time comes
// on the event), no randomness, no exceptions for anything a model or a tool can cause. The
// command is derived from the state alone, so the workflow can always ask "what now?".
// This file is the table: each event, in each phase, goes to one handler (proposals.ts,
// approvals.ts, verified.ts, observed.ts, cancel.ts), or is ignored, or is a bug. Handlers do not
// call one another: where one phase leads into another's work, the table says so.
import type { Budgets, ContextStrategy, Domain } from '../contract.js';
import { dispatchIfStillValid, onAmended, onApprovalTimedOut, onApproversLoaded, onDecided } from './approvals.js';
import { onCancelReadback, onCancelRequested } from './cancel.js';
import type { Command } from './commands.js';
import { compileContext } from './context.js';
import type { RunEvent } from './events.js';
import { onObserved, onReconciled } from './observed.js';
import { fold } from './bounds.js';
import { onModelReply, rejudgeAfterRefresh, stepsWithoutModel } from './proposals.js';
import type { Shape } from '../shape.js';
import { effectsInDoubt, STATE_VERSION, type In, type PhaseName, type RunState } from './state.js';
import { contractOf, control, onDeadline, proposeOrStop, stop } from './transitions.js';
import { noteEntry, verifiedStarter } from './trust.js';
import { onVerified } from './verified.js';

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
  /** The model's replies came with the start (the `scripted` adapter). */
  scriptedStart?: boolean;
}

export function initialState(run: NewRun): RunState {
  return {
    version: STATE_VERSION,
    ...(run.approverScope ? { approverScope: run.approverScope } : {}),
    chain: run.chain,
    ...(run.permittedEffects ? { permittedEffects: run.permittedEffects } : {}),
    ...(run.shape ? { shape: run.shape } : {}),
    ...(run.scriptedStart ? { scriptedStart: true as const } : {}),
    runId: run.runId,
    domain: run.domain.name,
    caseId: run.caseId,
    goal: run.domain.goal(run.caseId),
    startedAt: run.now,
    deadlineAt: run.now + run.budgets.deadlineMs,
    budgets: run.budgets,
    used: { toolCalls: 0, effects: 0, duplicates: 0, tokens: 0, ...(run.shape ? { modelCalls: 0 } : {}) },
    context: run.context,
    phase: { name: 'proposing' },
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
    dropped: { evidence: 0, transcript: 0, decisions: 0, executions: 0, effects: 0 },
    ...(run.approvalTimeoutMs ? { approvalTimeoutMs: run.approvalTimeoutMs } : {}),
  };
}

export function next(state: RunState, event: RunEvent, domain: Domain): Step {
  if (domain.name !== state.domain) throw new Error(`bug: run state of ${state.domain} given domain ${domain.name}`);
  let after: RunState;
  try {
    after = stepsWithoutModel(fold(route(state, event, domain)), domain, event.now);
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
  const stopped = stop(state, effectsInDoubt(state).length > 0 ? 'unknown_outcome' : 'failed', 'controller_error', `the run could not go on: ${message}`, now);
  return { state: stopped, command: commandFor(stopped, domain, now) };
}

/** What the workflow should do in this state. Same state, same command: safe to ask again. */
export function commandFor(state: RunState, domain: Domain, now: number): Command {
  if (state.terminal) return { type: 'stop', terminal: state.terminal };
  const phase = state.phase;
  switch (phase.name) {
    case 'proposing':
      return { type: 'propose', context: compileContext(state, domain, now), proposalIndex: state.turn - 1 };
    case 'acting':
    case 'refreshing':
    case 'rereading':
      return { type: 'invoke', calls: phase.calls };
    case 'verifying':
      return { type: 'verify', claim: phase.claim.claim, ...(phase.claim.soak ? { soak: phase.claim.soak } : {}) };
    case 'awaiting_approval':
      if (!phase.request.eligible) return { type: 'loadApprovers', request: phase.request };
      return { type: 'awaitApproval', request: phase.request };
    case 'reconciling':
    case 'cancelling': {
      const effect = state.effects.find((e) => e.status === 'unknown');
      const readbackTool = effect && contractOf(domain, effect.tool).readback;
      if (!effect || !readbackTool) throw new Error('bug: reconciling without an effect that has a readback');
      return { type: 'readback', effect, readbackTool, ...(effect.recheckAt ? { after: effect.recheckAt } : {}) };
    }
    case 'terminal':
      throw new Error('bug: terminal phase without a terminal record');
  }
}

type EventType = RunEvent['type'];
type EventOf<E extends EventType> = Extract<RunEvent, { type: E }>;
type Handler<P extends PhaseName, E extends EventType> = (state: In<P>, event: EventOf<E>, domain: Domain) => RunState;
/** What a phase does with each event: a handler, or 'ignored'. An event a row does not name is a bug there. */
type Row<P extends PhaseName> = { [E in EventType]?: Handler<P, E> | 'ignored' };

/** Events every phase takes the same way, unless its own row says otherwise. */
const EVERY_PHASE: Row<PhaseName> = {
  cancelled: (s, e, d) => onCancelRequested(s, d, e),
  // The deadline moves (it pauses while a person decides), so a timer set for the old one may fire early.
  deadlinePassed: (s, e) => (e.now < s.deadlineAt ? s : onDeadline(s, e.now)),
  noteAdded: (s, e) => ({
    ...s,
    transcript: [...s.transcript, { kind: 'note', turn: s.turn, by: e.by, text: e.text.slice(0, 2_000), trusted: false }],
  }),
  startTaken: (s, e) => {
    // A start statement names its signer as the starter once: in the first execution that takes it.
    if (e.spentBy)
      return control(s, 'start_spent', `the start statement was already taken by execution ${e.spentBy.slice(0, 80)}; nobody is named as this run's starter`);
    if (e.unbound)
      return control(s, 'start_unbound', "the start statement was not signed for this run's namespace and settings; nobody is named as this run's starter");
    return { ...s, ...verifiedStarter(s, e.directory) };
  },
  signedNoteAdded: (s, e, d) => onSignedNote(s, e, d),
  // A person's decision can arrive at any moment; out of phase it changes nothing.
  approversLoaded: 'ignored',
  approvalTimedOut: 'ignored',
  decided: 'ignored',
  amended: 'ignored',
};

/** Each phase's own events. The grid, with every cell, is in workflows/controller/README.md. */
const PHASES: { [P in Exclude<PhaseName, 'terminal'>]: Row<P> } = {
  proposing: {
    started: (s, e) => proposeOrStop(s, e.now),
    proposed: (s, e, d) => onModelReply(s, d, e),
    spendRefused: (s, e) => stop(s, 'budget_exhausted', 'budget:spend', `${e.cap}: ${e.detail}`.slice(0, 300), e.now),
    modelFailed: (s, e) => modelFailed(s, e),
  },
  acting: { observed: (s, e, d) => onObserved(s, d, e.results, e.now, (taken) => proposeOrStop(taken, e.now)) },
  refreshing: { observed: (s, e, d) => onObserved(s, d, e.results, e.now, (taken) => rejudgeAfterRefresh(taken, s.phase.held, d, e.now)) },
  rereading: { observed: (s, e, d) => onObserved(s, d, e.results, e.now, (taken) => dispatchIfStillValid(taken, s.phase.dispatch, d, e.now)) },
  verifying: { verified: (s, e, d) => onVerified(s, d, e.verdict, e.now) },
  awaiting_approval: {
    approversLoaded: (s, e) => onApproversLoaded(s, e, e.now),
    approvalTimedOut: (s, e) => onApprovalTimedOut(s, e),
    decided: (s, e, d) => (e.afterResetOf ? markedAfterReset(onDecided(s, d, e), e.signed.statement.requestId, e.afterResetOf) : onDecided(s, d, e)),
    amended: (s, e, d) => onAmended(s, d, e),
    // A waiting request is bounded by its own expiry, and the run's clock is stopped meanwhile.
    deadlinePassed: 'ignored',
  },
  reconciling: { reconciled: (s, e, d) => onReconciled(s, d, e.result, e.now) },
  cancelling: {
    reconciled: (s, e, d) => onCancelReadback(s, d, e.result, e.now),
    // A second cancel changes nothing: the first one's asker stays. The readback's own attempts bound the wait.
    cancelled: 'ignored',
    deadlinePassed: 'ignored',
  },
};

/** The one place an event meets a phase. A finished run ignores late events. */
function route(state: RunState, event: RunEvent, domain: Domain): RunState {
  const phase = state.phase.name;
  if (state.terminal || phase === 'terminal') return state;
  const row: Row<PhaseName> = PHASES[phase] as Row<PhaseName>;
  const cell = row[event.type] ?? EVERY_PHASE[event.type];
  if (cell === undefined) throw new Error(`bug: ${event.type} arrived in phase ${phase}`);
  if (cell === 'ignored') return state;
  return (cell as Handler<PhaseName, EventType>)(state, event, domain);
}

function modelFailed(state: RunState, event: EventOf<'modelFailed'>): RunState {
  // An endpoint that stayed down is an outage a person can wait out or route around, not a broken run.
  if (event.outage) {
    const message = `the model did not answer while proposing turn ${state.turn}: ${event.message}`.slice(0, 300);
    return stop(state, 'escalated', 'model_unavailable', message, event.now);
  }
  return stop(state, 'failed', 'model_error', event.message.slice(0, 300), event.now);
}

/**
 * A person's signed word is something new the run knows: a call refused for want of it may be
 * judged again (the loop guard compares factsVersion). A signed request or note already taken by
 * another execution of the workflow id, or signed for another run (unbound), is text here, like
 * an unsigned note.
 */
function onSignedNote(state: RunState, event: EventOf<'signedNoteAdded'>, domain: Domain): RunState {
  if (event.spentBy || event.unbound) {
    // Recorded as text, with no directory: it vouches for nothing, and the control line says why.
    const noted = { ...state, transcript: [...state.transcript, noteEntry(state, domain, event.signed, [], event.now)] };
    const what = event.later ? 'note' : 'request';
    const [why, because] = event.spentBy
      ? (['spent', `was already taken by execution ${event.spentBy.slice(0, 80)}`] as const)
      : (['unbound', "was not signed for this run's namespace and settings"] as const);
    return control(noted, `${what}_${why}`, `the signed ${what} ${because}; here it vouches for nothing`);
  }
  const entry = noteEntry(state, domain, event.signed, event.directory, event.now);
  // The request is what the run was asked for (trusted-facts.ts askedInWriting): a note sent later is not.
  const note = entry.trusted && !event.later ? { ...entry, request: true as const } : entry;
  return { ...state, transcript: [...state.transcript, note], factsVersion: note.trusted ? state.factsVersion + 1 : state.factsVersion };
}

/** The record of a decision that came after a reset says so (it may be one Temporal re-applied). */
function markedAfterReset(state: RunState, requestId: string, resetOf: string): RunState {
  return { ...state, approvals: state.approvals.map((a) => (a.requestId === requestId && a.afterResetOf === undefined ? { ...a, afterResetOf: resetOf } : a)) };
}
