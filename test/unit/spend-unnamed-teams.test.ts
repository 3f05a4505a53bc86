// The teams a worker's daily caps do not name share the one day of `*`. A run's team is its
// starter's word, so a name made up for each run must not be a fresh cap: the third made-up team's
// call is refused once the first two spent what `*` allows. withSpend on a real SQLite ledger.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProposeInput } from '../../activities/model/index.js';
import { openSqliteLedger, spendDay, type SpendLedger } from '../../activities/spend/ledger.js';
import { parsePriceTable } from '../../activities/spend/prices.js';
import { withSpend } from '../../activities/spend/spending.js';

// A dollar a million tokens in: a call of 100 tokens costs 100 micros.
const PRICES = parsePriceTable({ currency: 'USD', models: { metered: { inputPerMillion: 1, outputPerMillion: 0 } } });
const NOW = Date.parse('2026-12-07T12:00:00Z');

describe('teams the caps do not name', () => {
  let dir: string;
  let ledger: SpendLedger;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'spend-unnamed-'));
    ledger = await openSqliteLedger(join(dir, 'spend.sqlite'));
  });
  afterAll(async () => {
    await ledger.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('share the day of `*`: a fresh name per run is no fresh cap, while a named team keeps its own', async () => {
    if (!PRICES.ok) throw new Error(PRICES.problem);
    let calls = 0;
    const propose = async () => {
      calls++;
      return { reply: { type: 'escalate', reason: 'done' }, tokens: 100, usage: { inputTokens: 100, outputTokens: 0 } };
    };
    const priced = withSpend(propose, { prices: PRICES.table, dailyCaps: { 'payments-team': 1_000, '*': 150 }, ledger, now: () => NOW });
    const call = (team: string) =>
      priced({
        domain: 'd',
        caseId: 'c',
        model: { adapter: 'custom', name: 'metered' },
        context: { tokenEstimate: 100 },
        proposalIndex: 0,
        team,
      } as unknown as ProposeInput);

    expect(await call('made-up-1')).toMatchObject({ costMicros: 100 });
    expect(await call('made-up-2')).toMatchObject({ costMicros: 100 });
    const third = await call('made-up-3');
    expect(third.spendRefused).toMatchObject({ cap: expect.stringContaining('(*)') });
    expect(calls).toBe(2);
    expect(await ledger.spent('*', spendDay(NOW))).toBe(200);
    // A team the caps name is charged to its own day, not the pool.
    expect(await call('payments-team')).toMatchObject({ costMicros: 100 });
    expect(await ledger.spent('payments-team', spendDay(NOW))).toBe(100);
    expect(calls).toBe(3);
  });
});
