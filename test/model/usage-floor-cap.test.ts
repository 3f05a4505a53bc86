// A team's daily cap against an endpoint that reports 0 tokens for every call (a proxy, a
// gateway): on a real worker with the spend wrapper and a SQLite ledger, over the AI SDK's
// OpenAI-compatible package and a loopback chat-completions server, the floored calls are priced
// and charged to the team's day, so the cap is reached and the team's next call is refused before
// it reaches the endpoint. Asserted on the server's request log and the ledger.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviderAdapter } from '../../activities/model/providers.js';
import { openSqliteLedger, spendDay, type SpendLedger } from '../../activities/spend/ledger.js';
import { parsePriceTable } from '../../activities/spend/prices.js';
import { withSpend } from '../../activities/spend/spending.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { runToEnd, uniqueCase, type AgentHarness } from '../support/agent.js';
import { startWorkerWith, uniqueTaskQueue } from '../support/temporal.js';
import { startProviderServer, type ProviderServer } from './provider-server.js';

const PRICES = parsePriceTable({ currency: 'USD', models: { 'zero-usage': { inputPerMillion: 2, outputPerMillion: 8 } } });
// Less than two calls at the floor (each sends kilobytes, so costs thousands of micros at these
// prices); a call reported as free would never reach it.
const CAP = 4_000;
const TEAM = 'team-behind-a-proxy';

describe('a daily cap against an endpoint that reports 0 tokens', () => {
  let server: ProviderServer;
  let ledger: SpendLedger;
  let h: AgentHarness;
  let scratch: string;

  beforeAll(async () => {
    if (!PRICES.ok) throw new Error(PRICES.problem);
    scratch = mkdtempSync(join(tmpdir(), 'usage-floor-cap-'));
    ledger = await openSqliteLedger(join(scratch, 'spend.sqlite'));
    server = await startProviderServer('chat');
    // Every call: a read of the ledger for the transfer named in the prompt, and usage of 0 and 0.
    server.fallback = (request) => {
      const transferId = /PX-[A-Za-z0-9-]+/.exec(JSON.stringify(request.body))?.[0] ?? 'PX-unknown';
      return { calls: [{ name: 'read_ledger', args: { transferId } }], usage: { input: 0, output: 0 } };
    };
    const adapter = createProviderAdapter({ provider: 'openai-compatible', modelId: 'behind-proxy', baseUrl: server.baseUrl, timeoutMs: 60_000 });
    const prices = PRICES.table;
    h = await startWorkerWith({
      taskQueue: uniqueTaskQueue('usage-floor'),
      activities: { toolTimeoutMs: 1_500, models: { custom: { 'zero-usage': adapter } } },
      swap: (built) => ({ propose: withSpend(built.propose, { prices, dailyCaps: { [TEAM]: CAP }, ledger }) }),
    });
  });
  afterAll(async () => {
    await h?.close();
    await server?.close();
    await ledger?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("charges the floored calls to the team's day until the cap refuses the next one", async () => {
    const first = uniqueCase('PX');
    const second = uniqueCase('PX');
    for (const id of [first, second]) await seedTransfer(h.world, id);
    const callsFor = (caseId: string) => server.requests.filter((r) => JSON.stringify(r.body).includes(caseId)).length;

    const a = await runToEnd(h, { domain: 'payments', caseId: first, model: { adapter: 'custom', name: 'zero-usage' }, team: TEAM });
    expect(a.result.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:spend' });
    expect(a.result.terminal.detail).toContain(`team ${TEAM} daily cap`);
    const made = callsFor(first);
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThan(3);
    // What the ledger holds is what the run was charged, call by call: the floored counts, priced.
    const spent = await ledger.spent(TEAM, spendDay(Date.now()));
    expect(spent).toBeGreaterThanOrEqual(CAP);
    expect(a.view.state.used.spendMicros).toBe(spent);
    const charged = a.view.state.decisions.filter((d) => d.tokens > 0);
    expect(charged).toHaveLength(made);
    for (const d of charged) expect(d.tokens).toBeGreaterThan(d.contextTokens);

    // The team's day is spent: its next run is refused before anything reaches the endpoint.
    const b = await runToEnd(h, { domain: 'payments', caseId: second, model: { adapter: 'custom', name: 'zero-usage' }, team: TEAM });
    expect(b.result.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:spend' });
    expect(callsFor(second)).toBe(0);
    expect(await ledger.spent(TEAM, spendDay(Date.now()))).toBe(spent);
  });
});
