// Money as a budget: a run's own spend budget and a team's daily cap, charged from the
// worker's price table for what the model server said each call used. Every assertion is made
// against the run's record and the model server's request log.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelAdapter } from '../../activities/model/index.js';
import { openSqliteLedger, spendDay, type SpendLedger } from '../../activities/spend/ledger.js';
import { parsePriceTable, type PriceTable } from '../../activities/spend/prices.js';
import { withSpend } from '../../activities/spend/spending.js';
import { paymentsPolicy } from '../../domains/payments/policy.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import type { RunInput } from '../../workflows/run-input.js';
import { startWorkerWith, uniqueTaskQueue } from '../support/temporal.js';
import { runToEnd, uniqueCase, type AgentHarness } from '../support/agent.js';
import { meteredAdapter, startMeteredModelServer, type MeteredModelServer } from './spend-support.js';

// The table prices a custom adapter by its name. Every call says it used 1,000 prompt and 200
// completion tokens: at 2 and 8 per million that is 1000*2 + 200*8 = 3,600 micros a call.
const PROMPT = 1_000;
const COMPLETION = 200;
const PRICES = parsePriceTable(
  JSON.stringify({ currency: 'USD', models: { metered: { inputPerMillion: 2, outputPerMillion: 8 }, usageless: { inputPerMillion: 2, outputPerMillion: 8 } } }),
);
const PER_CALL = PROMPT * 2 + COMPLETION * 8;

describe('spend budgets from a price table', () => {
  let server: MeteredModelServer;
  let ledger: SpendLedger;
  let h: AgentHarness;
  let scratch: string;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    if (!PRICES.ok) throw new Error(PRICES.problem);
    scratch = mkdtempSync(join(tmpdir(), 'spend-test-'));
    server = await startMeteredModelServer(({ context }) => ({ decision: paymentsPolicy(context), promptTokens: PROMPT, completionTokens: COMPLETION }));
    ledger = await openSqliteLedger(join(scratch, 'spend.sqlite'));
    h = await startSpendHarness(server, PRICES.table, ledger, { 'team-capped': PER_CALL - 1 });
    closers.push(
      () => h.close(),
      () => server.close(),
      () => ledger.close(),
    );
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const run = (caseId: string, extra: Partial<RunInput> = {}): RunInput => ({
    domain: 'payments',
    caseId,
    model: { adapter: 'custom', name: 'metered' },
    ...extra,
  });
  const callsFor = (caseId: string) => server.requests.filter((r) => r.caseId === caseId);

  it('charges every call at the table price and stops a run that would exceed its budget with budget:spend', async () => {
    // Unbounded first: the same case takes more than two calls to resolve.
    const free = uniqueCase('PX');
    await seedTransfer(h.world, free);
    const unbounded = await runToEnd(h, run(free));
    expect(unbounded.result.terminal.class).toBe('resolved');
    expect(callsFor(free).length).toBeGreaterThan(2);
    expect(unbounded.view.state.used.spendMicros).toBe(callsFor(free).length * PER_CALL);

    // A budget of one and a half calls: the second call takes the run over it, and it stops there.
    const bounded = uniqueCase('PX');
    await seedTransfer(h.world, bounded);
    const { result, view } = await runToEnd(h, run(bounded, { budgets: { spendMicros: Math.floor(PER_CALL * 1.5) } }));
    expect(result.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:spend' });
    expect(callsFor(bounded)).toHaveLength(2);
    expect(view.state.used.spendMicros).toBe(2 * PER_CALL);
    expect(view.state.decisions.at(-1)?.reason).toBe('budget:spend');
    expect(view.budgetLeft.spendMicros).toBe(0);
  });

  it('stops a second run of a team whose daily cap the first spent, before it calls the model', async () => {
    const first = uniqueCase('PX');
    const second = uniqueCase('PX');
    const other = uniqueCase('PX');
    for (const id of [first, second, other]) await seedTransfer(h.world, id);

    const a = await runToEnd(h, run(first, { team: 'team-capped' }));
    // The cap is less than one call: the first call is made and charged, the next refused.
    expect(a.result.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:spend' });
    expect(callsFor(first)).toHaveLength(1);
    expect(await ledger.spent('team-capped', spendDay(Date.now()))).toBe(PER_CALL);

    const b = await runToEnd(h, run(second, { team: 'team-capped' }));
    expect(b.result.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:spend' });
    expect(b.result.terminal.detail).toContain('team team-capped daily cap');
    expect(callsFor(second)).toHaveLength(0);

    // Another team's day is its own.
    const c = await runToEnd(h, run(other, { team: 'team-free' }));
    expect(c.result.terminal.class).toBe('resolved');
    expect(callsFor(other).length).toBeGreaterThan(0);
    expect(await ledger.spent('team-capped', spendDay(Date.now()))).toBe(PER_CALL);
  });

  it('charges a call whose usage the provider left out at the dearer price, never as free', async () => {
    const caseId = uniqueCase('PX');
    await seedTransfer(h.world, caseId);
    const { view } = await runToEnd(h, { ...run(caseId), model: { adapter: 'custom', name: 'usageless' } });
    const calls = callsFor(caseId).length;
    expect(calls).toBeGreaterThan(0);
    // Each call's whole token count (at least the context it was shown) at 8 per million.
    const expected = view.state.decisions.reduce((sum, d) => sum + Math.max(d.tokens, d.contextTokens) * 8, 0);
    expect(view.state.decisions).toHaveLength(calls);
    expect(view.state.used.spendMicros).toBe(expected);
    expect(expected).toBeGreaterThan(calls * PER_CALL);
  });

  it('stops a run with a spend budget after one call when the model has no price', async () => {
    const caseId = uniqueCase('PX');
    await seedTransfer(h.world, caseId);
    const { result, view } = await runToEnd(h, { ...run(caseId, { budgets: { spendMicros: 1_000_000 } }), model: { adapter: 'custom', name: 'unpriced' } });
    expect(result.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:spend' });
    expect(result.terminal.detail).toContain('cost is unknown');
    expect(callsFor(caseId)).toHaveLength(1);
    expect(view.state.used.spendMicros).toBeUndefined();
  });

  it('refuses a price table that is not one, naming the field', () => {
    const bad = parsePriceTable({ currency: 'USD', models: { m: { inputPerMillion: -1, outputPerMillion: 1 } } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problem).toContain('models.m.inputPerMillion');
  });
});

/** The same model, reporting only its total tokens, as some providers do. */
function withoutUsage(adapter: ModelAdapter): ModelAdapter {
  return async (input, domain) => {
    const { reply, tokens } = await adapter(input, domain);
    return { reply, tokens };
  };
}

/** A worker whose model activity is priced and capped, on the shared dev server and world. */
async function startSpendHarness(
  server: MeteredModelServer,
  prices: PriceTable,
  ledger: SpendLedger,
  dailyCaps: Record<string, number>,
): Promise<AgentHarness> {
  const metered = meteredAdapter(server.baseUrl, 'metered-model');
  return startWorkerWith({
    taskQueue: uniqueTaskQueue('spend'),
    activities: { toolTimeoutMs: 1_500, models: { custom: { metered, unpriced: metered, usageless: withoutUsage(metered) } } },
    swap: (built) => ({ propose: withSpend(built.propose, { prices, dailyCaps, ledger }) }),
  });
}
