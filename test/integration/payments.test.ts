import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentHarness, runToEnd, uniqueCase, type AgentHarness } from '../helpers/agent.js';

describe('payments exception', () => {
  let h: AgentHarness;
  beforeAll(async () => {
    h = await startAgentHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const seed = (transferId: string, overrides: Record<string, unknown> = {}) =>
    h.world.seedPayment({
      transferId,
      ledgerStatus: 'SETTLED',
      replicaStatus: 'PENDING',
      replicaLagMs: 15 * 60_000,
      processorAck: 'RECEIVED',
      amountMinor: 125_00,
      currency: 'EUR',
      destination: 'DE89370400440532013000',
      ...overrides,
    } as Parameters<WorldClientSeed>[0]);
  type WorldClientSeed = AgentHarness['world']['seedPayment'];

  it('a stale replica says PENDING, the ledger says SETTLED: resolved with no effect', async () => {
    const transferId = uniqueCase('PX');
    await seed(transferId);
    const { result, view } = await runToEnd(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    expect(result.terminal.class).toBe('resolved');
    expect(result.terminal.reason).toBe('probe_confirmed');
    const replica = view.state.evidence.find((e) => e.tool === 'read_replica');
    expect(replica?.fresh).toBe(false);
    expect(replica?.authority).toBe('secondary');
    const ledger = view.state.evidence.find((e) => e.tool === 'read_ledger');
    expect(ledger?.facts['ledger.status']).toBe('SETTLED');
    expect(ledger?.fresh).toBe(true);
    expect(view.state.effects).toEqual([]);
    const calls = await h.world.calls({ key: transferId });
    expect(calls.some((c) => c.op === 'payments.reissue')).toBe(false);
  });
});
