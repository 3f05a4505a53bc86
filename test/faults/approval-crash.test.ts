// An approval may come hours and several deploys later. Here the worker is SIGKILLed while the
// run waits; a fresh worker picks it up and the approved reissue runs exactly once.
import { describe, expect, inject, it } from 'vitest';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { waitUntil } from '../support/wait.js';
import { WorldClient } from '../../domains/world/client.js';
import { approveUpdate, stateQuery } from '../../workflows/messages.js';
import { signDecision, type KeyFile } from '../../client/sign.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { spawnWorker } from '../support/crash.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { uniqueTaskQueue, useClient } from '../support/temporal.js';

describe('approval survives a worker crash', () => {
  const client = useClient();
  const world = new WorldClient(inject('worldUrl'));

  it('waits, loses its worker, is approved on the next one, and reissues once', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const taskQueue = uniqueTaskQueue('approval-crash');
    const first = await spawnWorker(taskQueue);
    const handle = await startRun({ client: client(), taskQueue }, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const waiting = await waitUntil(async () => (await handle.query(stateQuery)).awaiting, 'the approval request');
    expect(waiting.tool).toBe('reissue_transfer');
    await first.kill();

    const second = await spawnWorker(taskQueue);
    // The request asks the worker's directory who may decide; the new worker answers that.
    await waitUntil(async () => ((await handle.query(stateQuery)).awaiting?.eligible.length ?? 0) > 0, 'the approver directory');
    // Signed decisions; the first worker's death changes nothing about who may decide.
    const approve = (key: KeyFile, requestId = waiting.requestId) =>
      handle.executeUpdate(approveUpdate, { args: [signDecision(key, handle.workflowId, { ...waiting, requestId }, 'approve', 'checked the ledger')] });
    await expectRejected(approve(keys.bob), /the signer may not decide reissue_transfer/);
    await expectRejected(approve(keys.alice, 'not-a-request'), /not pending/);
    expect(await world.calls({ key: transferId, op: 'payments.reissue' })).toHaveLength(0);

    const ack = await approve(keys.alice);
    expect(ack.decision).toBe('approved');
    await expectRejected(approve(keys.alice), /not pending|already/);
    const result = await handle.result();
    const view = await handle.query(stateQuery);
    await second.stop();

    expect(result.terminal.class).toBe('resolved');
    const reissues = await world.effects({ key: transferId });
    expect(reissues).toHaveLength(1);
    expect(reissues[0]?.idempotencyKey).toBe(result.effects[0]?.key);
    expect(view.state.approvals).toEqual([expect.objectContaining({ decision: 'approved', by: 'alice@ops', comment: 'checked the ledger' })]);
  });
});

/** A validator's refusal arrives as WorkflowUpdateFailedError with the reason as its cause. */
async function expectRejected(update: Promise<unknown>, reason: RegExp): Promise<void> {
  const error = await update.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  expect((error as WorkflowUpdateFailedError).cause?.message).toMatch(reason);
}
