// The approver directory an approval is judged on, answered by hand through the frontend. Every
// decision reads the directory again as it arrives (revocation counts), and until engine-v28 that
// read counted as any read: its seal was checked only by the run's next effect. But a decision
// needs no effect to act: a directory that lists too few approvers closes the request at once. So
// whoever completed that read first, with an empty directory shaped like a worker's, closed a
// request a person had just approved, and the money the approver released never moved. Now the
// loop checks the read's seal before it takes the decision: the forged one decides nothing, the
// approver is told so, and the same approval sent again releases the reissue. Judged by the world.
import { describe, expect, it } from 'vitest';
import { resolveResultKeys } from '../../activities/result-keys.js';
import { signDecision } from '../../client/sign.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { approveUpdate, stateQuery } from '../../workflows/messages.js';
import { reissueCalls, reissuesOf, waitForRequest } from '../support/adversarial.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { heldActivity } from '../support/held-activity.js';
import { keys } from '../support/keys.js';
import { historyOf } from '../support/temporal-ops.js';

describe('a directory read answered by hand while a decision waits on it', () => {
  const directory = heldActivity('loadApprovers');
  const engine = useAgentHarness({ wrapActivities: directory.wrap });

  it('an empty directory shaped like a worker’s closes nothing: the approval is refused as judged on it, and sent again it releases the reissue once', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(engine.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const handle = await startRun(engine, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const awaiting = await waitForRequest(handle);
    expect(awaiting.eligible).toContain(keys.alice.id);

    // Alice approves; the directory her approval is judged on is held, and answered by hand first.
    const held = directory.hold(handle.workflowId);
    const first = handle.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, handle.workflowId, awaiting, 'approve', 'ledger checked')] });
    await held.entered;
    const { runId } = await handle.describe();
    const reads = (await historyOf(engine.client, handle.workflowId, runId)).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'loadApprovers',
    );
    const activityId = reads.at(-1)?.activityTaskScheduledEventAttributes?.activityId;
    if (!activityId) throw new Error('no directory read scheduled');
    const forged = { sealed: { approvers: [] }, keyId: resolveResultKeys().current, mac: 'forged-by-hand-not-a-worker-mac-000000000000' };
    await engine.client.activity.complete({ workflowId: handle.workflowId, runId, activityId }, forged);
    held.release();

    const refused = await first;
    expect(refused.decision).toBe('refused');
    expect(refused.outcome).toMatch(/the approver directory this approval was judged on is not a worker's/);
    // Nothing reached the bank, and the request is still open for her.
    expect(await reissueCalls(engine.world, transferId)).toHaveLength(0);
    const view = await handle.query(stateQuery);
    expect(view.state.terminal).toBeUndefined();
    expect(view.awaiting?.requestId).toBe(awaiting.requestId);

    const again = await handle.executeUpdate(approveUpdate, {
      args: [signDecision(keys.alice, handle.workflowId, view.awaiting!, 'approve', 'ledger checked')],
    });
    expect(again.decision).toBe('approved');
    const result = await handle.result();
    expect(result.terminal.class).toBe('resolved');
    expect(await reissuesOf(engine.world, transferId)).toHaveLength(1);
  });
});
