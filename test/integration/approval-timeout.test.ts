// Nobody answers an approval request: the durable timer ends the run, and the effect never runs.
import { describe, expect, it } from 'vitest';
import { seedTransfer } from '../../domains/world/seeds.js';
import { runToEnd, useAgentHarness, uniqueCase } from '../support/agent.js';

describe('approval timeout', () => {
  const h = useAgentHarness();

  it('ends escalated/approval_timeout with no effect when no one decides in time', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const { result, view } = await runToEnd(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' }, approvalTimeoutMs: 2_000 });
    expect(result.terminal).toMatchObject({ class: 'escalated', reason: 'approval_timeout' });
    expect(view.state.approvals).toEqual([expect.objectContaining({ decision: 'timed_out', by: 'timer' })]);
    expect(result.effects).toEqual([]);
    expect(await h.world.calls({ key: transferId, op: 'payments.reissue' })).toHaveLength(0);
  });
});
