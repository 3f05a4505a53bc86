// Budgets bound every run whatever the model does. They are set when the run starts and only
// the controller spends them; nothing a model says can raise a limit.
import type { BudgetLeft, RunState } from './state.js';

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
