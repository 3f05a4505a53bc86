// The run's deadline and an approval's wait are different clocks. A run whose deadline passes
// while it asks a person for a decision must not be cut off while that person decides (the
// deadline is paused), nor wait longer than the approval's own expiry; and a decision that comes
// after the deadline would have passed must still be carried out, once, on a fresh re-read of
// the ledger, on the time the run had left when it asked.
//
// The deadline must pass after the request is raised, and how long a run takes to get there is
// the machine's business, not the test's. So the test does not pick a deadline and hope: it
// starts the case with a short one, and if the run's own record shows the deadline passed before
// it asked (budget_exhausted on its deadline, no request ever raised), that attempt says nothing
// about the mechanism and the next one gets four times as long. The attempt that asked is the
// one judged, on the run's own history, never on a clock.
import { describe, expect, it } from 'vitest';
import { signDecision } from '../../client/sign.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { approveUpdate, stateQuery } from '../../workflows/messages.js';
import { startRun, uniqueCase, useAgentHarness, type AgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { deadlineTaken, reissueCalls, reissuesOf, type Awaiting } from '../support/adversarial.js';
import { waitUntil } from '../support/wait.js';
import { pendingRequest } from '../support/phase.js';

// Long enough that no loaded host lets it lapse before the test decides; the test reads it, never waits it out.
const APPROVAL_TIMEOUT_MS = 600_000;

/** Starts FAILED-ledger cases with growing deadlines until one asks for approval before its deadline. */
async function askedBeforeItsDeadline(h: AgentHarness) {
  for (const deadlineMs of [3_000, 12_000, 48_000]) {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const handle = await startRun(h, {
      domain: 'payments',
      caseId: transferId,
      model: { adapter: 'rules' },
      budgets: { deadlineMs },
      approvalTimeoutMs: APPROVAL_TIMEOUT_MS,
    });
    type Seen = { kind: 'asked'; awaiting: Awaiting } | { kind: 'ended'; terminal: unknown };
    const seen = await waitUntil<Seen>(async () => {
      const view = await handle.query(stateQuery);
      if (view.awaiting && view.awaiting.eligible.length > 0) return { kind: 'asked', awaiting: view.awaiting };
      if (view.state.terminal) return { kind: 'ended', terminal: view.state.terminal };
      return undefined;
    }, 'the run to ask for approval or to end');
    if (seen.kind === 'asked') return { transferId, handle, awaiting: seen.awaiting };
    // Only the deadline is a reason to try again; any other end is a failure. (A run that asked
    // is never ended by its deadline while it waits, so with the pause in place this attempt did
    // not ask; without it, every attempt that asks is seen asking and then fails below.)
    expect(seen.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:deadline' });
    expect(await reissueCalls(h.world, transferId)).toEqual([]);
  }
  throw new Error('no attempt asked for approval before its deadline, even with 48 s');
}

describe('approval vs deadline', () => {
  const h = useAgentHarness();

  it('a deadline that passes while the run waits for a 10 min approval does not end it; approving then reissues once', async () => {
    const { transferId, handle, awaiting } = await askedBeforeItsDeadline(h);
    expect(awaiting.tool).toBe('reissue_transfer');
    const before = await handle.query(stateQuery);

    // Not a clock: the history says when the deadline's timer fired and the run took it, and
    // the state read after that is the controller's verdict on the passed deadline.
    await deadlineTaken(handle);
    const view = await handle.query(stateQuery);
    expect(view.state.terminal).toBeUndefined();
    expect(view.state.phase.name).toBe('awaiting_approval');
    expect(view.awaiting?.requestId).toBe(awaiting.requestId);
    // The wait is bounded by the approval's own expiry (10 min from the request), which lies past
    // the run's deadline: the deadline did not cut the person's time short.
    const requestedAt = pendingRequest(view.state)?.requestedAt ?? 0;
    expect(view.awaiting?.expiresAt).toBe(requestedAt + APPROVAL_TIMEOUT_MS);
    expect(view.awaiting?.expiresAt ?? 0).toBeGreaterThan(before.state.deadlineAt);
    expect(await reissueCalls(h.world, transferId)).toEqual([]);

    const ack = await handle.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, handle.workflowId, awaiting, 'approve', 'late but fine')] });
    expect(ack.decision).toBe('approved');
    const result = await handle.result();
    // The approval is carried out once, on the time the run had left when it asked (the clock
    // was stopped, not wound back). Whether the probe that confirms it fits in that remainder is
    // the machine's business: the run resolves, or its deadline ends it after the reissue, which
    // reached the processor once either way.
    if (result.terminal.class !== 'resolved') expect(result.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:deadline' });
    expect(await reissuesOf(h.world, transferId)).toHaveLength(1);
    expect(await reissueCalls(h.world, transferId)).toHaveLength(1);
  });
});
