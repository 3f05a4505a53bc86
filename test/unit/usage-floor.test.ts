// The floor rule on its own: which reported counts are believed, which are lifted to the engine's
// estimate, and what the reply's `usageFloor` says about it. The wire-level tests are
// test/model/usage-floor.test.ts and test/model/usage-floor-cap.test.ts.
import { describe, expect, it } from 'vitest';
import { floorUsage, textTokens, UsageFloor, wireTokens } from '../../activities/model/usage-floor.js';
import { incidents } from '../../domains/incidents/domain.js';
import { restart, Run } from '../support/driver.js';

const ESTIMATE = { input: 1_000, output: 20 };

describe('floorUsage', () => {
  it.each([
    ['zero', 0],
    ['absent', undefined],
    ['negative', -5],
    ['not a number', '1200'],
    ['NaN', Number.NaN],
    ['infinite', Number.POSITIVE_INFINITY],
    ['null', null],
  ])('a %s count is floored at the estimate, and reported as 0', (_, reported) => {
    expect(floorUsage({ input: reported, output: reported }, ESTIMATE)).toEqual({
      inputTokens: 1_000,
      outputTokens: 20,
      usageFloor: { input: { reported: 0, charged: 1_000 }, output: { reported: 0, charged: 20 } },
    });
  });

  it('a count below the estimate is lifted to it and says what was reported', () => {
    expect(floorUsage({ input: 10, output: 20 }, ESTIMATE)).toEqual({
      inputTokens: 1_000,
      outputTokens: 20,
      usageFloor: { input: { reported: 10, charged: 1_000 } },
    });
  });

  it('counts at or above the estimate are charged as reported (rounded up), with no floor', () => {
    expect(floorUsage({ input: 1_000, output: 20.2 }, ESTIMATE)).toEqual({ inputTokens: 1_000, outputTokens: 21 });
  });

  it('never charges nothing, even for an estimate of nothing', () => {
    expect(floorUsage({ input: 0, output: 0 }, { input: 0, output: Number.NaN })).toMatchObject({ inputTokens: 1, outputTokens: 1 });
  });

  it('what it reports is what the activity reply schema accepts', () => {
    const { usageFloor } = floorUsage({ input: 3, output: undefined }, ESTIMATE);
    expect(UsageFloor.safeParse(usageFloor).success).toBe(true);
    expect(UsageFloor.safeParse({ input: { reported: -1, charged: 5 } }).success).toBe(false);
  });
});

describe('the estimate', () => {
  it('is four characters a token over the text on the wire; a body already serialized is not serialized again', () => {
    expect(textTokens('abcdefgh')).toBe(2);
    expect(textTokens('abcdefghi')).toBe(3);
    const body = { messages: [{ role: 'user', content: 'say "hi"' }] };
    expect(wireTokens(body)).toBe(Math.ceil(JSON.stringify(body).length / 4));
    expect(wireTokens(JSON.stringify(body))).toBe(wireTokens(body));
  });
});

describe("the run's receipt", () => {
  it('says when the floor applied, with both numbers, and charges the floored tokens', () => {
    const run = new Run(incidents);
    const usageFloor = { input: { reported: 0, charged: 1_234 } };
    run.feed({ type: 'proposed', now: run.tick(), reply: { type: 'call', calls: [restart('db')] }, tokens: 1_300, contextTokens: 1_000, usageFloor });
    expect(run.lastDecision?.usageFloor).toEqual(usageFloor);
    expect(run.state.used.tokens).toBe(1_300);
    // A call whose counts were believed has no floor on its receipt.
    const honest = new Run(incidents);
    honest.call(restart('db'));
    expect(honest.lastDecision?.usageFloor).toBeUndefined();
  });
});
