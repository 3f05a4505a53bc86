// Time of check versus time of use. A reissue is requested while the ledger says FAILED; while
// the approver thinks, the world changes (the transfer settles after all, or someone reissues it
// by hand). A valid, signed approval must then not move money: the ledger is read again and the
// precondition checked again just before dispatch. Judged by what reached the processor.
import { describe, expect, it } from 'vitest';
import { signDecision } from '../../client/sign.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { approveUpdate, stateQuery } from '../../workflows/messages.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { controlMessages, reissueCalls, reissuesOf, waitForRequest } from '../support/adversarial.js';

const failed = { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' } as const;

describe('approval re-check: the world changes while the approver decides', () => {
  const h = useAgentHarness();

  it('the transfer settles while the request waits: the approved reissue never reaches the processor', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, failed);
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const awaiting = await waitForRequest(handle);

    await seedTransfer(h.world, transferId, { ledgerStatus: 'SETTLED', replicaStatus: 'FAILED', processorAck: 'RECEIVED' });
    const ack = await handle.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, handle.workflowId, awaiting, 'approve', 'go')] });
    expect(ack.decision).toBe('approved');
    const result = await handle.result();
    const view = await handle.query(stateQuery);

    expect(await reissueCalls(h.world, transferId)).toEqual([]);
    expect(await reissuesOf(h.world, transferId)).toEqual([]);
    expect(controlMessages(view).some((m) => m.startsWith('precondition_failed') && m.includes('SETTLED'))).toBe(true);
    expect(result.effects).toEqual([]);
  });

  it('someone reissues it by hand while the request waits: the processor still holds exactly that one reissue', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, failed);
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const awaiting = await waitForRequest(handle);

    const manual = await h.world.reissue({ transferId, idempotencyKey: `manual-${transferId}`, reason: 'done by hand from the back office' });
    await handle.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, handle.workflowId, awaiting, 'approve', 'go')] });
    const result = await handle.result();
    const view = await handle.query(stateQuery);

    const reissues = await reissuesOf(h.world, transferId);
    expect(reissues.map((r) => r.effectId)).toEqual([manual.reissueId]);
    expect((await reissueCalls(h.world, transferId)).map((c) => c.idempotencyKey)).toEqual([`manual-${transferId}`]);
    expect(controlMessages(view).some((m) => m.startsWith('precondition_failed') && m.includes('already reissued'))).toBe(true);
    expect(result.effects.filter((e) => e.status === 'applied')).toEqual([]);
  });
});
