// What bounds a run, whatever the model does: its budgets, its repeats and the size of its state.
//
// Budgets are set when the run starts and only the controller spends them; nothing a model says
// can raise a limit. Repetition is the failure ReAct agents fall into most: a call is a repeat
// when the same tool with the same arguments already ran and nothing new has been learnt since.
// And RunState stays bounded however long a run lasts: a run of ten thousand turns carries no
// more across continue-as-new than one of a thousand (about 140 KB at these limits, far below
// Temporal's 2 MB payload limit). Old receipts, evidence and transcript entries are dropped from
// state (they stay in Temporal's history of the execution that made them) and only counted.
// Anything still referenced is kept: evidence behind a pinned fact, an effect or a pending
// approval, every effect that is not yet settled, and the approval record of every effect kept.
import { canonical } from '../trust/statement.js';
import { viewOf } from './subject.js';
import type { BudgetLeft } from './receipts.js';
import { isInDoubt, type PlannedCall, type RunState } from './state.js';

// Budgets.

export function budgetLeft(state: RunState, now: number): BudgetLeft {
  const { budgets: b, used: u } = state;
  return {
    turns: Math.max(0, b.turns - state.turn),
    toolCalls: Math.max(0, b.toolCalls - u.toolCalls),
    effects: Math.max(0, b.effects - u.effects),
    duplicates: Math.max(0, b.duplicates - u.duplicates),
    tokens: Math.max(0, b.tokens - u.tokens),
    msLeft: Math.max(0, state.deadlineAt - now),
    ...(spendLimited(state) ? { spendMicros: Math.max(0, (b.spendMicros ?? 0) - (u.spendMicros ?? 0)) } : {}),
  };
}

/**
 * What the budgets leave no room for, if `calls` ran now: the one rule for calls, judged when a
 * proposal is admitted and again when an approved call is about to go out.
 */
export function overBudget(state: RunState, calls: readonly { kind: 'read' | 'effect' }[]): string | undefined {
  const effects = calls.filter((c) => c.kind === 'effect').length;
  if (state.used.toolCalls + calls.length > state.budgets.toolCalls) return `tool-call budget: ${state.budgets.toolCalls - state.used.toolCalls} calls left`;
  if (state.used.effects + effects > state.budgets.effects) return `effect budget: ${state.budgets.effects - state.used.effects} effects left`;
  return undefined;
}

/** Whether the run's spend is bounded: only when its start set a spend budget. */
function spendLimited(state: RunState): boolean {
  return state.budgets.spendMicros !== undefined;
}

/**
 * Charges a model call's cost, priced by the model activity (activities/spend). A call the
 * activity could not price is charged nothing but, in a run with a spend budget, stops it: an
 * unknown cost never lets a run spend without bound. The first stop found is returned with it.
 */
export function chargeSpend(state: RunState, costMicros: number | undefined): { state: RunState; overrun?: { detail: string } } {
  const cost = costMicros !== undefined && Number.isFinite(costMicros) ? Math.max(0, Math.ceil(costMicros)) : undefined;
  const charged: RunState = cost === undefined ? state : { ...state, used: { ...state.used, spendMicros: (state.used.spendMicros ?? 0) + cost } };
  if (!spendLimited(state)) return { state: charged };
  const limit = state.budgets.spendMicros ?? 0;
  if (cost === undefined)
    return {
      state: charged,
      overrun: { detail: `the model call's cost is unknown (no price for the model), so a spend budget of ${formatMicros(limit)} cannot be kept` },
    };
  const spent = charged.used.spendMicros ?? 0;
  if (spent > limit) return { state: charged, overrun: { detail: `spend budget of ${formatMicros(limit)} exceeded: ${formatMicros(spent)} spent` } };
  return { state: charged };
}

/** Millionths of the price table's currency, as a person reads them: `0.001234`. */
export function formatMicros(micros: number): string {
  return (micros / 1_000_000).toFixed(6);
}

/** The first budget that leaves no room for another model turn, if any. */
export function exhaustedBudget(state: RunState, now: number): { budget: string; detail: string } | undefined {
  const left = budgetLeft(state, now);
  if (left.msLeft <= 0) return { budget: 'deadline', detail: `deadline of ${state.budgets.deadlineMs} ms passed` };
  if (left.turns <= 0) return { budget: 'turns', detail: `all ${state.budgets.turns} turns used` };
  if (left.tokens <= 0) return { budget: 'tokens', detail: `token budget of ${state.budgets.tokens} spent` };
  if (left.spendMicros !== undefined && left.spendMicros <= 0)
    return { budget: 'spend', detail: `spend budget of ${formatMicros(state.budgets.spendMicros ?? 0)} spent` };
  if (state.used.duplicates > state.budgets.duplicates) {
    return { budget: 'duplicates', detail: `more than ${state.budgets.duplicates} duplicate calls` };
  }
  return undefined;
}

/**
 * The run's time left as an operator is told it (the state query, so `status`, `watch` and the
 * console show one number): whole seconds, never more than is left, frozen once the run ended,
 * and while a person decides, the time left when the clock stopped (the deadline moves on
 * by the wait when the request closes, so deadlineAt - now would shrink on paper only).
 */
export function operatorMsLeft(state: RunState, now: number): number {
  // A finished run's clock stopped when it ended; a waiting one's when the request was raised.
  const stoppedAt = state.terminal?.at ?? (state.phase.name === 'awaiting_approval' ? state.phase.request.requestedAt : undefined);
  const left = Math.max(0, state.deadlineAt - Math.min(now, stoppedAt ?? now));
  return Math.floor(left / 1_000) * 1_000;
}

// Repeats.

/** Canonical JSON (sorted keys) so {a,b} and {b,a} are the same call. */
export function callSignature(tool: string, args: unknown): string {
  return `${tool}:${canonical(args)}`;
}

/**
 * A repeat without progress: same call, no new facts since, and last time it gave a usable
 * answer or a definite refusal. Repeating after a timeout or an outage is a justified retry.
 */
export function isRepeatWithoutProgress(state: RunState, signature: string): boolean {
  const last = state.seen[signature];
  if (last === undefined || last.factsVersion !== state.factsVersion) return false;
  // A definite "no" (404 transfer_not_found) will say no again: asking again is a loop too.
  return last.status === 'ok' || last.refused === true;
}

/**
 * The latest answer to this exact read was fresh when it came and is not any more (judged now).
 * A source that was already stale when it answered (a lagging replica) tells nothing new when
 * asked again: that stays a loop.
 */
export function answerWentStale(state: RunState, signature: string, now: number): boolean {
  const last = [...state.evidence].reverse().find((e) => e.args !== undefined && callSignature(e.tool, e.args) === signature);
  return last !== undefined && last.status === 'ok' && last.fresh && !viewOf(last, now).fresh;
}

/** A refusal (counted as a duplicate), or the run's stop. */
type RepeatVerdict =
  | { kind: 'refuse'; code: 'loop_nudge' | 'effect_guard'; message: string; duplicate: true }
  | { kind: 'stop'; terminalClass: 'escalated' | 'blocked'; code: 'loop' | 'effect_guard'; message: string };

/**
 * The loop guard and the effect guard, as the gate applies them to one planned call: a repeat
 * with nothing new learnt gets one nudge and then stops the run as a loop; a non-idempotent
 * effect repeated without a newer observation is refused once and then stops the run `blocked`.
 */
export function repeatRefusal(state: RunState, call: PlannedCall, now: number): RepeatVerdict | undefined {
  const signature = callSignature(call.tool, call.args);
  const nudge = (message: string): RepeatVerdict => ({ kind: 'refuse', code: 'loop_nudge', message, duplicate: true });
  const refusedAlready = state.seen[signature]?.gate === true && state.seen[signature]?.factsVersion === state.factsVersion;
  if (refusedAlready) {
    // Insisting on a call the gate refused, with nothing new learnt, is a loop like a repeated read.
    if (state.nudges >= 1)
      return { kind: 'stop', terminalClass: 'escalated', code: 'loop', message: `${call.tool} proposed again, unchanged, after the gate refused it` };
    return nudge(`${call.tool} was refused with these arguments and nothing has changed since; it will be refused again`);
  }
  if (!isRepeatWithoutProgress(state, signature)) return undefined;
  // Reading again what has gone stale is how a run keeps its facts fresh (a slow model turn,
  // a wait for a person): a repeat, but not one without progress.
  if (call.kind === 'read' && answerWentStale(state, signature, now)) return undefined;
  if (call.kind === 'effect' && !call.idempotent) {
    const refusedBefore = state.transcript.some((t) => t.kind === 'control' && t.code === 'effect_guard');
    if (refusedBefore) return { kind: 'stop', terminalClass: 'blocked', code: 'effect_guard', message: `${call.tool} repeated without a newer observation` };
    const message = `${call.tool} already ran with these arguments and nothing new has been observed since; observe before acting again`;
    return { kind: 'refuse', code: 'effect_guard', message, duplicate: true };
  }
  if (state.nudges >= 1) return { kind: 'stop', terminalClass: 'escalated', code: 'loop', message: `${call.tool} repeated again without new facts` };
  return nudge(`${call.tool} with these arguments already answered and nothing changed since; use that evidence or try something else`);
}

// The size of the state.

export const KEEP = {
  evidence: 64,
  transcript: 96,
  decisions: 128,
  executions: 128,
  settledEffects: 64,
  approvals: 32,
  seen: 256,
  notes: 32,
} as const;

export function fold(state: RunState): RunState {
  const seenKeys = Object.keys(state.seen);
  const over =
    state.evidence.length > KEEP.evidence ||
    state.transcript.length > KEEP.transcript ||
    state.decisions.length > KEEP.decisions ||
    state.executions.length > KEEP.executions ||
    state.effects.length > KEEP.settledEffects ||
    state.approvals.length > KEEP.approvals ||
    seenKeys.length > KEEP.seen;
  if (!over) return state;

  const referenced = new Set<string>([
    ...Object.values(state.pinned).map((p) => p.evidenceId),
    ...state.effects.flatMap((e) => (e.evidenceId ? [e.evidenceId] : [])),
    ...(state.phase.name === 'awaiting_approval' ? state.phase.request.evidenceIds : []),
    ...(state.phase.name === 'verifying' ? state.phase.claim.evidenceIds : []),
  ]);
  const firstRecent = state.evidence.length - KEEP.evidence;
  const evidence = firstRecent <= 0 ? state.evidence : state.evidence.filter((e, i) => i >= firstRecent || referenced.has(e.id));

  const notes = state.transcript.filter((t) => t.kind === 'note').slice(-KEEP.notes);
  const recent = state.transcript.slice(-KEEP.transcript).filter((t) => t.kind !== 'note');
  const transcript = [...notes, ...recent].sort((a, b) => a.turn - b.turn);

  const settled = new Set(state.effects.filter((e) => !isInDoubt(e)).slice(-KEEP.settledEffects));
  const effects = state.effects.filter((e) => isInDoubt(e) || settled.has(e));

  // An effect kept in state keeps the approval it ran under: an auditor checks every effect
  // against its signed record (client/verify.ts), so one must never outlive the other.
  const approvedCalls = new Set(effects.map((e) => e.callId));
  const firstApproval = state.approvals.length - KEEP.approvals;
  const approvals = firstApproval <= 0 ? state.approvals : state.approvals.filter((a, i) => i >= firstApproval || approvedCalls.has(a.callId));

  const decisions = state.decisions.slice(-KEEP.decisions);
  const executions = state.executions.slice(-KEEP.executions);
  // Signatures are re-inserted when used again, so the last keys are the most recently used.
  const seen =
    seenKeys.length <= KEEP.seen ? state.seen : Object.fromEntries(seenKeys.slice(-KEEP.seen).map((k) => [k, state.seen[k] as RunState['seen'][string]]));

  return {
    ...state,
    evidence,
    transcript,
    decisions,
    executions,
    effects,
    approvals,
    seen,
    dropped: {
      evidence: state.dropped.evidence + (state.evidence.length - evidence.length),
      transcript: state.dropped.transcript + (state.transcript.length - transcript.length),
      decisions: state.dropped.decisions + (state.decisions.length - decisions.length),
      executions: state.dropped.executions + (state.executions.length - executions.length),
      effects: state.dropped.effects + (state.effects.length - effects.length),
    },
  };
}
