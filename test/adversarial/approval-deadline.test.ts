// The run's deadline and an approval's wait are different clocks. A run with a 3 s deadline that
// asks a person for a decision must not be cut off while that person decides (the deadline is
// paused), nor wait longer than the approval's own expiry; and a decision that comes after the
// deadline would have passed must still be carried out, once, on a fresh re-read of the ledger.
import { describe, expect, it } from 'vitest';
import { signDecision } from '../../client/sign.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { approveUpdate, stateQuery } from '../../workflows/messages.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { deadlineTaken, reissueCalls, reissuesOf, waitForRequest } from '../support/adversarial.js';

describe('approval vs deadline', () => {
  const h = useAgentHarness();

  it('a 3 s deadline does not end a run that waits past it for a 60 s approval; approving then reissues once', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const handle = await startRun(h, {
      domain: 'payments',
      caseId: transferId,
      model: { adapter: 'rules' },
      budgets: { deadlineMs: 3_000 },
      approvalTimeoutMs: 60_000,
    });
    const awaiting = await waitForRequest(handle);
    expect(awaiting.tool).toBe('reissue_transfer');

    // Not a clock: the history says when the deadline's timer fired and the run took it, and
    // the state read after that is the controller's verdict on the passed deadline.
    await deadlineTaken(handle);
    const view = await handle.query(stateQuery);
    expect(view.state.terminal).toBeUndefined();
    expect(view.state.phase).toBe('awaiting_approval');
    expect(view.awaiting?.requestId).toBe(awaiting.requestId);
    // The wait is bounded by the approval's own expiry (60 s from the request), not the run's deadline.
    const requestedAt = view.state.pendingApproval?.requestedAt ?? 0;
    expect(view.awaiting?.expiresAt).toBe(requestedAt + 60_000);
    expect(view.awaiting?.expiresAt ?? 0).toBeGreaterThan(Date.now() + 50_000);
    expect(await reissueCalls(h.world, transferId)).toEqual([]);

    const ack = await handle.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, handle.workflowId, awaiting, 'approve', 'late but fine')] });
    expect(ack.decision).toBe('approved');
    const result = await handle.result();
    expect(result.terminal.class).toBe('resolved');
    expect(await reissuesOf(h.world, transferId)).toHaveLength(1);
    expect(await reissueCalls(h.world, transferId)).toHaveLength(1);
  });
});
