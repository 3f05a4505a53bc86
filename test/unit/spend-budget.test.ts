// The controller's side of money: a proposal's cost is charged to the run and a run over its
// spend budget stops; and the pricing rules that never take missing usage as free.
import { domainDefaults } from '../../workflows/contract.js';
import { describe, expect, it } from 'vitest';
import { payments } from '../../domains/payments/domain.js';
import { costMicros } from '../../activities/spend/prices.js';
import { initialState, next } from '../../workflows/controller/next.js';
import type { RunState } from '../../workflows/controller/state.js';

const escalate = { type: 'escalate', reason: 'enough' };

function started(extra: Partial<Parameters<typeof initialState>[0]>): RunState {
  const state = initialState({
    runId: 'payments-PX-1',
    domain: payments,
    caseId: 'PX-1',
    budgets: { ...domainDefaults(payments).budgets, spendMicros: 5_000 },
    context: { strategy: 'full', window: 10 },
    now: 0,
    chain: 'first-execution',
    ...extra,
  });
  return next(state, { type: 'started', now: 0 }, payments).state;
}

describe('spend in the controller', () => {
  it('charges the cost and stops a run that goes over its budget with budget:spend', () => {
    const s = started({});
    const after = next(s, { type: 'proposed', now: 1, reply: escalate, tokens: 10, contextTokens: 10, costMicros: 6_000 }, payments).state;
    expect(after.used.spendMicros).toBe(6_000);
    expect(after.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:spend' });
  });

  it('stops on a refusal from outside the run, naming the cap', () => {
    const s = started({});
    const after = next(s, { type: 'spendRefused', now: 1, cap: 'team a daily cap', detail: 'spent' }, payments).state;
    expect(after.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:spend', detail: 'team a daily cap: spent' });
  });

  it('prices usage a provider left out at the dearer price, and never below the context shown', () => {
    const price = { inputPerMillion: 1, outputPerMillion: 4 };
    expect(costMicros(price, { inputTokens: 100, outputTokens: 10 }, { tokens: 110, contextTokens: 90 })).toBe(140);
    expect(costMicros(price, undefined, { tokens: 110, contextTokens: 90 })).toBe(440);
    expect(costMicros(price, { inputTokens: 100 }, { tokens: 0, contextTokens: 300 })).toBe(1_200);
  });
});
