// `agent watch` says who took each decision and, for a model turn in a shaped run, why the
// model was asked (what the route left open); receipts from before shapes print as they did.
import { describe, expect, it } from 'vitest';
import { describeItem } from '../../client/watch-cursor.js';
import type { RunView } from '../../client/run-view.js';

type DecisionReceipt = RunView['decisions'][number];

const receipt = (extra: Partial<DecisionReceipt>): DecisionReceipt => ({
  turn: 3,
  at: 0,
  proposal: 'call get_metrics({"service":"db"})',
  accepted: true,
  reason: 'admitted',
  evidenceIds: [],
  budgetLeft: { turns: 1, toolCalls: 1, effects: 1, duplicates: 1, tokens: 1, msLeft: 1 },
  tokens: 0,
  contextTokens: 0,
  ...extra,
});

describe('watch: who decided', () => {
  it('names the route, the model and what the model was asked about', () => {
    expect(describeItem({ type: 'decision', ...receipt({ by: 'route' }) })).toBe(
      '[turn 3] route     call get_metrics({"service":"db"}) -> accepted (admitted)',
    );
    expect(describeItem({ type: 'decision', ...receipt({ by: 'model', open: ['api and cache are unhealthy'] }) })).toBe(
      '[turn 3] model     call get_metrics({"service":"db"}) -> accepted (admitted); asked because: api and cache are unhealthy',
    );
  });

  it('prints a receipt from before shapes as before', () => {
    expect(describeItem({ type: 'decision', ...receipt({}) })).toBe('[turn 3] proposal  call get_metrics({"service":"db"}) -> accepted (admitted)');
  });
});
