// RunView, what a client may rely on about a run, is mapped once from the state query's answer
// (client/run-view.ts). These tests drive the pure controller to the states a client reads (a
// pending approval, an ended run), answer the query as the workflow does (handlers.ts view),
// and check what the mapping gives: the fields a client reads, none of the controller's
// internals, and no change when the internal state grows a field.
import { domainDefaults } from '../../workflows/contract.js';
import { describe, expect, it } from 'vitest';
import { payments } from '../../domains/payments/domain.js';
import { RunView } from '../../client/run-view.js';
import { currentAnswer, toRunView } from '../../client/to-run-view.js';
import { view } from '../../workflows/handlers.js';
import type { RunInput } from '../../workflows/run-input.js';
import { TEST_DIRECTORY } from '../support/keys.js';
import { Run, out, readLedger, reissue } from '../support/driver.js';
import { asVersion3, pendingRequest } from '../support/phase.js';

const input: RunInput = { domain: 'payments', caseId: 'PX-1042', model: { adapter: 'rules' } };

/** A guarded payments run waiting on a reissue approval, its directory loaded. */
function awaitingApproval(): Run {
  const run = new Run(payments);
  run.call(readLedger);
  run.observeOk({ read_ledger: (a: never, now: number) => ({ ...(out.ledger('FAILED')(a, now) as object), reissueId: null }) });
  run.call(reissue);
  run.feed({ type: 'approversLoaded', now: run.tick(), requestId: pendingRequest(run.state)?.requestId ?? '', approvers: TEST_DIRECTORY.approvers });
  expect(run.command.type).toBe('awaitApproval');
  return run;
}

describe('RunView: the client boundary over the state query', () => {
  it("a worker of the release before answers with version 3 state: the client reads it as this release's and shows the same", () => {
    const run = awaitingApproval();
    const answer = view(run.state, input, payments);
    const older = { ...answer, state: asVersion3(run.state) as unknown as typeof answer.state };
    expect(currentAnswer(older)).toEqual(answer);
    expect(toRunView(currentAnswer(older))).toEqual(toRunView(answer));
    // An answer this release does not read is handed on as it came.
    const unknown = { ...answer, state: { ...asVersion3(run.state), version: 9 } as unknown as typeof answer.state };
    expect(currentAnswer(unknown)).toBe(unknown);
  });

  it('a run waiting for a person: phase, the pending request, the clock paused, budgets used, evidence in summary', () => {
    const run = awaitingApproval();
    const answer = view(run.state, input, payments);
    const v = toRunView(answer);
    expect(v).toMatchObject({
      runId: run.state.runId,
      domain: 'payments',
      caseId: 'PX-1042',
      phase: 'awaiting_approval',
      terminal: null,
      deadlinePaused: true,
    });
    // With who proposed it, from the decision receipt of its turn (a react run: the model).
    expect(v.awaiting).toEqual({ ...answer.awaiting, turn: pendingRequest(run.state)?.call.turn, proposedBy: 'model' });
    expect(v.start).toEqual({ signed: false });
    expect(v.model).toEqual({ adapter: 'rules' });
    expect(v.awaiting?.tool).toBe('reissue_transfer');
    expect(v.budgets.used.turns).toBe(run.state.turn);
    expect(v.budgets.limits.turns).toBe(domainDefaults(payments).budgets.turns);
    expect(v.budgets.left).toEqual(answer.budgetLeft);
    expect(v.evidence.total).toBe(run.state.evidence.length);
    expect(v.evidence.items.map((e) => [e.tool, e.status, e.fresh])).toEqual(run.state.evidence.map((e) => [e.tool, e.status, e.fresh]));
    // The receipts watch and the console show, in their public shape.
    expect(v.decisions.map((d) => [d.turn, d.proposal, d.accepted])).toEqual(run.state.decisions.map((d) => [d.turn, d.proposal, d.accepted]));
    expect(v.executions.map((e) => [e.callId, e.tool, e.result])).toEqual(run.state.executions.map((e) => [e.callId, e.tool, e.result]));
    expect(v.dropped).toEqual({ decisions: 0, executions: 0, evidence: 0 });
    // Each observation placed in the turn whose call made it.
    const readAt = run.state.executions.find((e) => e.tool === 'read_ledger')!;
    expect(v.evidence.items.find((e) => e.id === readAt.evidenceId)?.turn).toBe(readAt.turn);
    // What the controller keeps for itself is not in the view: its transcript, loop-guard memory, calls in flight.
    expect(Object.keys(v)).not.toEqual(expect.arrayContaining(['state']));
    for (const internal of ['transcript', 'seen', 'pinned', 'inFlight', 'pendingApproval', 'guardVersion']) expect(v).not.toHaveProperty(internal);
    // It is what the schema says, exactly.
    expect(RunView.parse(v)).toEqual(v);
  });

  it('an ended run: its terminal record and the decision on its request', () => {
    const run = awaitingApproval();
    run.feed({ type: 'cancelled', now: run.tick(), by: 'oncall@ops', reason: 'wrong case' });
    expect(run.state.terminal?.class).toBe('cancelled');
    const v = toRunView(view(run.state, input, payments));
    expect(v.phase).toBe('terminal');
    expect(v.terminal).toEqual({ class: 'cancelled', reason: run.state.terminal?.reason, detail: run.state.terminal?.detail, at: run.state.terminal?.at });
    expect(v.awaiting).toBeNull();
    expect(v.deadlinePaused).toBe(false);
    expect(v.approvals).toEqual([expect.objectContaining({ decision: 'cancelled', by: 'oncall@ops', turn: 2, signatures: [] })]);
    expect(v.headline).toEqual(expect.any(String));
  });

  it('a field the engine adds to its internal state changes nothing a client sees', () => {
    const run = awaitingApproval();
    const answer = view(run.state, input, payments);
    const grown = { ...answer, state: { ...answer.state, somethingNew: { kept: 'by the controller only' } } } as typeof answer;
    expect(toRunView(grown)).toEqual(toRunView(answer));
  });
});
