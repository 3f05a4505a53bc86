// What Temporal's own reset and delete do to a case that is already resolved, driven as an
// operator drives them (`temporal workflow reset`, `temporal workflow delete` and a new start),
// through @temporalio/client on the real dev server, judged by the world's records. Whatever
// point the run goes back to, the effect stays applied once in the world, and the run ends saying
// the work is done: `already_done` naming the earlier effect when the new execution did not do it
// itself, the run's own confirmed effect when the reset point lies past it.
import { describe, expect, it } from 'vitest';
import { seedIncident, seedTransfer } from '../../domains/world/seeds.js';
import type { RunResult } from '../../workflows/messages.js';
import type { RunInput } from '../../workflows/run-input.js';
import { controlMessages, incidentCalls, incidentEffects, reissueCalls, reissuesOf, watchRun, type AgentHandle } from '../support/adversarial.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { deleteAndForget, historyOf, reappliedUpdates, resetTo, taskAfterTool, taskOfFirstUpdate, workflowTaskCompletions } from '../support/temporal-ops.js';

type HistoryEvents = Awaited<ReturnType<typeof historyOf>>;

/** Where each reset goes back to, as `temporal workflow reset --type FirstWorkflowTask|LastWorkflowTask` or `--event-id`. */
const resetPoints: Record<string, (events: HistoryEvents, tool: string) => number> = {
  first: (events) => workflowTaskCompletions(events)[0] ?? 0,
  last: (events) => workflowTaskCompletions(events).at(-1) ?? 0,
  // Back to just after the first authoritative read, before the effect was asked for.
  'mid, before the effect': (events, tool) => taskAfterTool(events, tool),
};

describe('reset and delete of a resolved case', () => {
  const h = useAgentHarness();

  async function resolvedPayment(): Promise<{ transferId: string; handle: AgentHandle; reissueId: string }> {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const first = await watchRun(handle, keys.alice);
    expect(first.result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    const reissues = await reissuesOf(h.world, transferId);
    expect(reissues).toHaveLength(1);
    return { transferId, handle, reissueId: reissues[0]?.effectId ?? '' };
  }

  async function resolvedIncident(): Promise<{ caseId: string; handle: AgentHandle; effectId: string }> {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    const handle = await startRun(h, { domain: 'incidents', caseId, model: { adapter: 'rules' } });
    const first = await handle.result();
    expect(first.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    const restarts = await incidentEffects(h.world, caseId, 'restart');
    expect(restarts).toHaveLength(1);
    return { caseId, handle, effectId: restarts[0]?.effectId ?? '' };
  }

  /** Follows the workflow id's current execution to its end, approving whatever it asks. */
  const followLatest = async (workflowId: string): Promise<RunResult> => (await watchRun(h.client.workflow.getHandle(workflowId), keys.alice)).result;

  /** The work is done and the terminal says so, naming the one effect the world holds. */
  function expectDone(result: RunResult, effectId: string): void {
    expect(result.terminal.class, `${result.terminal.reason}: ${result.terminal.detail}`).toBe('resolved');
    expect(['already_done', 'probe_confirmed']).toContain(result.terminal.reason);
    if (result.terminal.reason === 'already_done') {
      expect(result.terminal.detail).toContain(effectId);
      // Nothing was applied by this execution: the effect is the earlier run's.
      expect(result.effects.filter((e) => e.status === 'applied')).toEqual([]);
    } else {
      // Past the effect, the execution replays the run's own record of it.
      expect(result.effects.filter((e) => e.status === 'applied')).toHaveLength(1);
    }
  }

  describe('payments: a reissued transfer', () => {
    for (const [point, at] of Object.entries(resetPoints)) {
      it(`reset to the ${point} workflow task: still one reissue, and the run says it is done`, async () => {
        const { transferId, handle, reissueId } = await resolvedPayment();
        const events = await historyOf(h.client, handle.workflowId);
        await resetTo(h.client, handle.workflowId, at(events, 'read_ledger'));
        const result = await followLatest(handle.workflowId);

        expectDone(result, reissueId);
        if (point !== 'last') expect(result.terminal.reason).toBe('already_done');
        expect(await reissuesOf(h.world, transferId)).toHaveLength(1);
        // Before the effect, the new execution is refused by the ledger's record before any
        // request reaches the processor; only the first run's request is there.
        expect(await reissueCalls(h.world, transferId)).toHaveLength(1);
      });
    }

    it('reset to while it awaited approval: Temporal re-applies the signed approval, the ledger refuses it now', async () => {
      const { transferId, handle, reissueId } = await resolvedPayment();
      const events = await historyOf(h.client, handle.workflowId);
      const resetFrom = (await handle.describe()).runId;
      await resetTo(h.client, handle.workflowId, taskOfFirstUpdate(events));
      // Nobody approves this time: only the approval Temporal re-applies can move the run on.
      const watched = await watchRun(h.client.workflow.getHandle(handle.workflowId));

      expect(reappliedUpdates(await historyOf(h.client, handle.workflowId))).toBeGreaterThanOrEqual(1);
      expect(watched.view.state.approvals.map((a) => [a.decision, a.by])).toEqual([['approved', 'alice@ops']]);
      // The record says the decision came after a reset, naming the run it was reset from.
      expect(watched.view.state.approvals[0]?.afterResetOf).toBe(resetFrom);
      // Judged against the ledger now, not the evidence it was signed on.
      expect(controlMessages(watched.view).some((m) => m.startsWith('precondition_failed') && m.includes(`already reissued as ${reissueId}`))).toBe(true);
      expect(watched.result.terminal).toMatchObject({ class: 'resolved', reason: 'already_done' });
      expect(watched.result.terminal.detail).toContain(reissueId);
      expect(await reissuesOf(h.world, transferId)).toHaveLength(1);
      expect(await reissueCalls(h.world, transferId)).toHaveLength(1);
    });

    it('delete and start again under the same id: already_done, naming the reissue', async () => {
      const { transferId, handle, reissueId } = await resolvedPayment();
      await deleteAndForget(h.client, handle.workflowId);
      const run: RunInput = { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } };
      const result = (await watchRun(await startRun(h, run), keys.alice)).result;

      expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'already_done' });
      expect(result.terminal.detail).toContain(reissueId);
      expect(result.effects).toEqual([]);
      expect(await reissuesOf(h.world, transferId)).toHaveLength(1);
      expect(await reissueCalls(h.world, transferId)).toHaveLength(1);
    });
  });

  describe('incidents: a restarted cache', () => {
    for (const [point, at] of Object.entries(resetPoints)) {
      it(`reset to the ${point} workflow task: still one restart, and the run says it is done`, async () => {
        const { caseId, handle, effectId } = await resolvedIncident();
        const events = await historyOf(h.client, handle.workflowId);
        await resetTo(h.client, handle.workflowId, at(events, 'get_deploys'));
        const result = await followLatest(handle.workflowId);

        expectDone(result, effectId);
        if (point === 'first') expect(result.terminal.reason).toBe('already_done');
        expect(await incidentEffects(h.world, caseId, 'restart')).toHaveLength(1);
        // A request the new execution sends again carries the case's key and is answered with
        // the first restart; none restarts the cache a second time.
        const calls = await incidentCalls(h.world, caseId, 'incidents.restart');
        expect(calls.filter((c) => c.deduplicated !== true)).toHaveLength(1);
      });
    }

    it('delete and start again under the same id: already_done, naming the restart', async () => {
      const { caseId, handle, effectId } = await resolvedIncident();
      await deleteAndForget(h.client, handle.workflowId);
      const result = await (await startRun(h, { domain: 'incidents', caseId, model: { adapter: 'rules' } })).result();

      expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'already_done' });
      expect(result.terminal.detail).toContain(effectId);
      expect(result.effects).toEqual([]);
      expect(await incidentEffects(h.world, caseId, 'restart')).toHaveLength(1);
      expect(await incidentCalls(h.world, caseId, 'incidents.restart')).toHaveLength(1);
    });
  });
});
