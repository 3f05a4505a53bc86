// Edit, then approve. An approver may ask for the pending effect with other arguments: the
// amended call is a new proposal from an authenticated operator, judged by the same gate,
// precondition and provenance checks, with a request and digest of its own that needs its full
// quorum again. Judged by what reached the processor: the amended call ran once, as amended; a
// decision signed for the call as first proposed moved nothing; an amendment that sends money
// elsewhere was refused and nothing about the other transfer reached the world.
import { describe, expect, it } from 'vitest';
import { toRunExport } from '../../client/export-schema.js';
import { signAmend, signDecision } from '../../client/sign.js';
import { verifyExport } from '../../client/verify.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { amendUpdate, approveUpdate, cancelSignal, stateQuery } from '../../workflows/messages.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys, TEST_DIRECTORY } from '../support/keys.js';
import { bodyField, controlMessages, expectRefused, reissueCalls, reissuesOf, waitForRequest } from '../support/adversarial.js';
import { callsInFlight, dispatchOf } from '../support/phase.js';

const failedTransfer = { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' } as const;

describe('amend, then approve', () => {
  const h = useAgentHarness();

  it('the amended reissue is a new request: the old digest decides nothing, the new one runs once as amended', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, failedTransfer);
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const proposed = await waitForRequest(handle);
    const stale = signDecision(keys.alice, handle.workflowId, proposed, 'approve', 'as first proposed');

    const reason = 'ledger FAILED; the bank confirmed the original never left';
    const ack = await handle.executeUpdate(amendUpdate, {
      args: [signAmend(keys.alice, handle.workflowId, proposed, { transferId, reason }, 'clearer reason')],
    });
    expect(ack.decision).toBe('amended');
    const amended = await waitForRequest(handle);
    expect(amended.requestId).not.toBe(proposed.requestId);
    expect(amended.digest).not.toBe(proposed.digest);
    expect(amended.amendedFrom).toMatchObject({ requestId: proposed.requestId, by: keys.alice.id });

    // A decision over the call as first proposed is for a request that no longer exists. The
    // validator's refusal is the run's answer (it never reached the controller), so the state
    // read after it is the state the stale decision left.
    await expectRefused(handle.executeUpdate(approveUpdate, { args: [stale] }), /is not pending/);
    const after = await handle.query(stateQuery);
    expect(after.awaiting).toMatchObject({ requestId: amended.requestId, approvedBy: [] });
    expect(after.state.approvals.map((a) => a.decision)).toEqual(['amended']);
    expect(dispatchOf(after.state)).toBeUndefined();
    expect(callsInFlight(after.state)).toEqual([]);
    expect(await reissueCalls(h.world, transferId)).toEqual([]);

    await handle.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, handle.workflowId, amended, 'approve', 'amended by me, approved by me')] });
    const result = await handle.result();
    // What reached the processor: one reissue, with the amended reason.
    const calls = await reissueCalls(h.world, transferId);
    expect(calls.map((c) => bodyField(c, 'reason'))).toEqual([reason]);
    expect(await reissuesOf(h.world, transferId)).toHaveLength(1);
    expect(result.terminal.class).toBe('resolved');
    // The record keeps what was proposed, what it was amended to, and what ran.
    const view = await handle.query(stateQuery);
    expect(view.state.approvals.map((a) => a.decision)).toEqual(['amended', 'approved']);
    expect(view.state.approvals[0]?.amendment?.statement.args).toEqual({ transferId, reason });
    expect(view.state.effects.map((e) => e.args)).toEqual([{ transferId, reason }]);
    // Offline, an auditor checks the amendment and the approval against the directory.
    expect(verifyExport(toRunExport(view), TEST_DIRECTORY)).toMatchObject({ ok: true, problems: [] });
  });

  it('an amendment that points the reissue at another transfer is refused by the gate; nothing about it reaches the world', async () => {
    const transferId = uniqueCase('PX');
    const other = uniqueCase('PX-OTHER');
    await seedTransfer(h.world, transferId, failedTransfer);
    await seedTransfer(h.world, other, failedTransfer);
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const proposed = await waitForRequest(handle);
    const ack = await handle.executeUpdate(amendUpdate, {
      args: [signAmend(keys.alice, handle.workflowId, proposed, { transferId: other, reason: 'the other one is the real problem' })],
    });
    expect(ack.decision).toBe('refused');
    const view = await handle.query(stateQuery);
    expect(view.awaiting?.requestId).toBe(proposed.requestId);
    expect(controlMessages(view).some((m) => m.includes('amendment of reissue_transfer was refused'))).toBe(true);
    await handle.signal(cancelSignal, { by: 'test', reason: 'done probing' });
    await handle.result();
    expect(await h.world.calls({ key: other })).toEqual([]);
    expect(await reissuesOf(h.world, other)).toEqual([]);
    expect(await reissueCalls(h.world, transferId)).toEqual([]);
  });

  it('an amendment signed by someone who may not decide the request is refused before it is accepted', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, failedTransfer);
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const proposed = await waitForRequest(handle);
    const refused = await handle
      .executeUpdate(amendUpdate, { args: [signAmend(keys.bob, handle.workflowId, proposed, { transferId, reason: 'support knows best' })] })
      .then(
        () => 'accepted',
        (err: unknown) => (err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err)),
      );
    expect(refused).toMatch(/the signer may not decide/);
    await handle.signal(cancelSignal, { by: 'test', reason: 'done probing' });
    await handle.result();
    expect(await reissueCalls(h.world, transferId)).toEqual([]);
  });
});
