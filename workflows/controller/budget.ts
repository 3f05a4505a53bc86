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
  };
}

/** The first budget that leaves no room for another model turn, if any. */
export function exhaustedBudget(state: RunState, now: number): { budget: string; detail: string } | undefined {
  const left = budgetLeft(state, now);
  if (left.msLeft <= 0) return { budget: 'deadline', detail: `deadline of ${state.budgets.deadlineMs} ms passed` };
  if (left.turns <= 0) return { budget: 'turns', detail: `all ${state.budgets.turns} turns used` };
  if (left.tokens <= 0) return { budget: 'tokens', detail: `token budget of ${state.budgets.tokens} spent` };
  if (state.used.duplicates > state.budgets.duplicates) {
    return { budget: 'duplicates', detail: `more than ${state.budgets.duplicates} duplicate calls` };
  }
  return undefined;
}
