// An approval the run accepted but never took (a cancel came first, while the approval's handler
// was still reading the approver directory) answers with the run's end, and the run completes.
// Before, the handler waited for a loop that had stopped, and the run waited for the handler:
// it never completed. The directory read is held (the worker's own activity, wrapped) until the
// run has stopped, so the order does not depend on the machine's speed.
import { describe, expect, it } from 'vitest';
import { signDecision } from '../../client/sign.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { approveUpdate, cancelSignal, stateQuery } from '../../workflows/messages.js';
import { waitForRequest } from '../support/adversarial.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { heldActivity } from '../support/held-activity.js';
import { keys } from '../support/keys.js';
import { waitUntil } from '../support/wait.js';

describe('an approval the run never took', () => {
  const directory = heldActivity('loadApprovers');
  const h = useAgentHarness({ wrapActivities: directory.wrap });

  it("answers with the run's end when a cancel was taken first, and the run completes", async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const awaiting = await waitForRequest(handle);

    // From here the run's directory reads wait: the approval's handler is held mid-read.
    const held = directory.hold(handle.workflowId);
    const approval = handle.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, handle.workflowId, awaiting, 'approve', 'looks right')] });
    await held.entered;
    await handle.signal(cancelSignal, { by: 'ops', reason: 'stop before the reissue' });
    await waitUntil(async () => (await handle.query(stateQuery)).state.terminal !== undefined, 'the run to take the cancel');
    held.release();

    const ack = await approval;
    expect(ack.decision).toBe('cancelled'); // the request's record: closed by the cancel
    expect(ack.outcome).toMatch(/^run ended: cancelled/);
    const result = await handle.result();
    expect(result.terminal).toMatchObject({ class: 'cancelled', reason: 'operator_cancel' });
    expect(result.effects).toEqual([]);
    expect(await h.world.calls({ key: transferId, op: 'payments.reissue' })).toEqual([]);
  });
});
