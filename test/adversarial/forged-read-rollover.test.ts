// A read forged through the Temporal frontend, then a rollover before the effect it informs. Whoever
// reaches the frontend can complete a pending read by hand (the SDK's async completion, or
// `temporal activity complete`) with an envelope of their own: the run takes it, and the seal is
// checked by the run's next effect (workflows/sealed.ts). A rollover (continue-as-new) between the
// two must not lose that check: an attacker forces one by adding history (unsigned notes are
// anyone's). Judged by the world's own records: the processor received no reissue.
import { describe, expect, it } from 'vitest';
import { resolveResultKeys } from '../../activities/result-keys.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { stateQuery } from '../../workflows/messages.js';
import { keys } from '../support/keys.js';
import { notesUntil, reissueCalls, reissuesOf, rollingPaymentsRun, waitForRequest, watchRun } from '../support/adversarial.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { heldActivity } from '../support/held-activity.js';
import { callsInFlight } from '../support/phase.js';
import { historyOf } from '../support/temporal-ops.js';

describe('a forged read and a rollover before the effect', () => {
  const tools = heldActivity('invokeTool');
  const h = useAgentHarness({ wrapActivities: tools.wrap });

  it('a read completed by hand with a forged seal, then a rollover forced with notes: the reissue it enabled is not sent', async () => {
    const transferId = uniqueCase('PX');
    // The ledger says FAILED but the replica says SETTLED: reissue_transfer's precondition refuses
    // until a person resolves that, unless the replica's word is replaced by a forged one.
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'SETTLED', processorAck: 'REJECTED' });
    const workflowId = `payments-${transferId}`;
    const held = tools.hold(workflowId);
    // The rules model reads the replica first, then the ledger, and proposes the reissue on FAILED.
    const handle = await startRun(h, rollingPaymentsRun(transferId));
    await held.entered;
    const first = (await handle.describe()).runId;

    // The replica read, pending, completed by hand: a worker's shape, the current key's id, a made-up mac.
    const call = callsInFlight((await handle.query(stateQuery)).state)[0];
    expect(call?.tool).toBe('read_replica');
    const scheduled = (await historyOf(h.client, workflowId, first)).find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'invokeTool');
    const activityId = scheduled?.activityTaskScheduledEventAttributes?.activityId;
    if (!activityId || !call) throw new Error('no replica read pending');
    const now = Date.now();
    const forged = {
      sealed: {
        status: 'ok',
        callId: call.callId,
        output: { transferId, status: 'FAILED', asOf: new Date(now).toISOString(), note: '' },
        attempt: 1,
        startedAt: now,
        finishedAt: now,
      },
      keyId: resolveResultKeys().current,
      mac: 'forged-by-hand-not-a-worker-mac-000000000000',
    };
    await h.client.activity.complete({ workflowId, runId: first, activityId }, forged);
    held.release();

    // The run takes the forged read and asks for the reissue; an attacker adds history until it rolls over.
    await waitForRequest(h.client.workflow.getHandle(workflowId));
    await notesUntil(handle, async () => (await handle.describe()).runId !== first, 200);
    expect((await handle.describe()).runId).not.toBe(first);
    const firstHistory = await historyOf(h.client, workflowId, first);
    expect(firstHistory.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeDefined();

    // A careless approver approves whatever the run asks: only the engine stands between the forged read and the processor.
    const { view } = await watchRun(h.client.workflow.getHandle(workflowId), keys.alice);

    // The processor received no reissue, and the run's reissue answered not_sent on the forged read.
    expect(await reissueCalls(h.world, transferId)).toEqual([]);
    expect(await reissuesOf(h.world, transferId)).toEqual([]);
    const refused = view.state.evidence.filter((e) => e.tool === 'reissue_transfer');
    expect(refused.length).toBeGreaterThan(0);
    for (const e of refused) {
      expect(e.error?.class).toBe('not_sent');
      expect(e.error?.message).toMatch(/read_replica .*its seal does not match it/);
    }
    // The run's evidence holds the forged word, carried over the rollover.
    expect(view.state.evidence.find((e) => e.tool === 'read_replica')?.facts['replica.status']).toBe('FAILED');
  });
});
