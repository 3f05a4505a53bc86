// Revocation counts from the moment the worker knows. Alice's key is in the directory when a
// reissue's approval request is raised, and removed before she decides (the worker restarted
// with a new directory file): her signed approval must move no money. A key still listed is
// judged as before, so the next approver in the directory can still release the reissue once.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { directoryEntry, signDecision } from '../../client/sign.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { approveUpdate, cancelSignal, stateQuery } from '../../workflows/messages.js';
import type { ApproverDirectory } from '../../workflows/trust/directory.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { keys, TEST_DIRECTORY } from '../support/keys.js';
import { startWorkerWith, uniqueTaskQueue, type StartedWorker } from '../support/temporal.js';
import { reissueCalls, reissuesOf, waitForRequest } from '../support/adversarial.js';
import { waitUntil } from '../support/wait.js';

describe('a key removed from the directory decides nothing', () => {
  const taskQueue = uniqueTaskQueue('revocation');
  const world = new WorldClient(inject('worldUrl'));
  // What the worker's directory activity answers now; the test edits it as an operator would the file.
  let directory: ApproverDirectory = TEST_DIRECTORY;
  let h: StartedWorker;
  beforeAll(async () => {
    h = await startWorkerWith({ taskQueue, swap: () => ({ loadApprovers: async () => directory }) });
  });
  afterAll(async () => h.close());

  const withoutAlice = (): ApproverDirectory => ({
    approvers: [
      ...TEST_DIRECTORY.approvers.filter((a) => a.id !== keys.alice.id && a.id !== keys.carol.id),
      directoryEntry(keys.carol, ['sre-lead', 'payments-approver']),
    ],
  });

  it("alice's approval after her key was removed is refused and no money moves; carol, still listed, releases it once", async () => {
    directory = TEST_DIRECTORY;
    const transferId = uniqueCase('PX');
    await seedTransfer(world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const awaiting = await waitForRequest(handle);
    expect(awaiting.eligible).toContain(keys.alice.id);

    directory = withoutAlice();
    const ack = await handle.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, handle.workflowId, awaiting, 'approve', 'before I left')] });
    // Until the run is waiting again (her decision counted for nothing) or has ended (it counted).
    const view = await waitUntil(async () => {
      const v = await handle.query(stateQuery);
      return v.state.terminal || v.awaiting ? v : undefined;
    }, 'the run waiting again or ended');
    // What reached the world: no reissue request at all.
    expect(await reissueCalls(world, transferId)).toHaveLength(0);
    expect(ack.decision).toBe('refused');
    expect(view.state.phase.name).toBe('awaiting_approval');
    // Who may still decide, as the run now knows it.
    expect(view.awaiting?.eligible).toEqual([keys.carol.id]);

    const released = await handle.executeUpdate(approveUpdate, {
      args: [signDecision(keys.carol, handle.workflowId, view.awaiting!, 'approve', 'checked the ledger')],
    });
    expect(released.decision).toBe('approved');
    const result = await handle.result();
    expect(result.terminal.class).toBe('resolved');
    expect(await reissuesOf(world, transferId)).toHaveLength(1);
    expect((await handle.query(stateQuery)).state.approvals).toEqual([expect.objectContaining({ decision: 'approved', by: keys.carol.id })]);
  });

  it('a request whose last eligible approver was removed closes instead of waiting', async () => {
    directory = TEST_DIRECTORY;
    const transferId = uniqueCase('PX');
    await seedTransfer(world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const awaiting = await waitForRequest(handle);
    directory = { approvers: TEST_DIRECTORY.approvers.filter((a) => a.id !== keys.alice.id) };
    await handle.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, handle.workflowId, awaiting, 'approve', 'too late')] });
    const view = await handle.query(stateQuery);
    if (!view.state.terminal) await handle.signal(cancelSignal, { by: 'test', reason: 'done probing' });
    const result = await handle.result();
    expect(await reissueCalls(world, transferId)).toHaveLength(0);
    expect(result.effects).toEqual([]);
    expect(view.state.approvals.at(-1)).toMatchObject({ decision: 'timed_out', by: 'directory' });
  });
});
