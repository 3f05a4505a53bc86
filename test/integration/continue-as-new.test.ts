// A long run rolls over into new executions (continue-as-new) and nothing is lost: a pending
// approval keeps its request id across one boundary, a cancel lands after another, and the
// budgets and effects ledger carry over intact.
import { describe, expect, it } from 'vitest';
import { signDecision } from '../../client/sign.js';
import { keys } from '../support/keys.js';
import { addNoteUpdate, approveUpdate, cancelSignal, stateQuery } from '../../workflows/messages.js';
import { useAgentHarness, startRun, uniqueCase } from '../support/agent.js';
import { waitUntil } from '../support/wait.js';

const read = (n: number) => ({ type: 'call', calls: [{ tool: 'read_counter', args: { n } }] });

describe('continue-as-new', () => {
  const h = useAgentHarness();

  it('crosses several boundaries with an approval pending across one and a cancel after another', async () => {
    const replies = [
      ...Array.from({ length: 10 }, (_, i) => read(i + 1)),
      { type: 'call', calls: [{ tool: 'gated_touch', args: { n: 11 } }] },
      ...Array.from({ length: 300 }, (_, i) => read(i + 12)),
    ];
    const handle = await startRun(h, {
      domain: 'synthetic',
      caseId: uniqueCase('can'),
      model: { adapter: 'scripted', replies, latencyMs: 40 },
      continueAsNewAfterEvents: 100,
    });
    const runIdNow = async () => (await handle.describe()).runId;
    const firstRunId = await runIdNow();

    const waiting = await waitUntil(async () => (await handle.query(stateQuery)).awaiting, 'the approval request');
    const waitingRunId = await runIdNow();
    expect(waitingRunId).not.toBe(firstRunId); // ten reads already rolled over once

    // Operators keep adding notes while the approval waits, until the run rolls over again.
    let notes = 0;
    while ((await runIdNow()) === waitingRunId && notes < 80) {
      await handle.executeUpdate(addNoteUpdate, { args: [{ by: 'oncall', text: `note ${++notes}` }] });
    }
    const afterApprovalBoundary = await runIdNow();
    expect(afterApprovalBoundary).not.toBe(waitingRunId);
    const carried = await handle.query(stateQuery);
    expect(carried.awaiting?.requestId).toBe(waiting.requestId);
    expect(carried.state.transcript.filter((t) => t.kind === 'note')).toHaveLength(notes);

    const ack = await handle.executeUpdate(approveUpdate, { args: [signDecision(keys.sam, handle.workflowId, waiting, 'approve', 'ok')] });
    expect(ack.decision).toBe('approved');

    await waitUntil(async () => (await runIdNow()) !== afterApprovalBoundary, 'another rollover after the approval');
    await handle.signal(cancelSignal, { by: 'oncall', reason: 'enough' });
    const result = await handle.result();
    const view = await handle.query(stateQuery);

    expect(result.terminal).toMatchObject({ class: 'cancelled', reason: 'operator_cancel' });
    expect(result.effects).toEqual([expect.objectContaining({ tool: 'gated_touch', status: 'applied', attempts: 1 })]);
    expect(view.state.approvals).toEqual([expect.objectContaining({ decision: 'approved', by: 'sam@bench' })]);
    // Budgets count every call of every execution: one per admitted call decision.
    const admittedCalls = view.state.decisions.filter((d) => d.accepted && d.proposal.startsWith('call')).length;
    expect(view.state.decisions[0]?.turn).toBe(1); // nothing dropped yet, so the count is complete
    expect(view.state.used.toolCalls).toBe(admittedCalls);
    expect(admittedCalls).toBeGreaterThan(15);
    expect(view.state.used.effects).toBe(1);

    // Every execution stayed small.
    let runId: string | undefined = firstRunId;
    let executions = 0;
    while (runId) {
      const history: { events?: { workflowExecutionContinuedAsNewEventAttributes?: { newExecutionRunId?: string | null } | null }[] | null } =
        await h.client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
      const events = history.events ?? [];
      expect(events.length).toBeLessThan(160);
      executions++;
      runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    }
    expect(executions).toBeGreaterThanOrEqual(3);
  });
});
