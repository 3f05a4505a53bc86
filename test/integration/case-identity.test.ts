// One run per case at a time, whatever workflow id a client picks. An operator with the Temporal
// CLI can start `agentWorkflow` under any id (`incidents-INC-7-b`); Temporal then keeps two open
// executions of one case, free to act twice. The run refuses such a start before any command,
// and effects are keyed by the case, so the world (its own call log and effects table) shows
// each effect at most once.
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { seedIncident, seedTransfer } from '../../domains/world/seeds.js';
import { agentWorkflow } from '../../domains/workflows.js';
import type { RunInput } from '../../workflows/run-input.js';
import { incidentCalls, incidentEffects, reissueCalls, reissuesOf, watchRun } from '../support/adversarial.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { historyOf } from '../support/temporal-ops.js';

describe('a case started under two workflow ids', () => {
  const h = useAgentHarness();

  const startAs = (workflowId: string, run: RunInput) => h.client.workflow.start(agentWorkflow, { taskQueue: h.taskQueue, workflowId, args: [{ run }] });

  /** The start fails as InvalidRunInput naming the case's id, and its history holds no activity at all. */
  async function expectRefused(handle: WorkflowHandle, expectedId: string): Promise<void> {
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('InvalidRunInput');
    expect((cause as ApplicationFailure).nonRetryable).toBe(true);
    expect(cause?.message).toContain(`must be started as ${expectedId}`);
    const events = await historyOf(h.client, handle.workflowId);
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toEqual([]);
  }

  it('incidents: only the case id runs; the cache is restarted once, under the case key', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    const run: RunInput = { domain: 'incidents', caseId, model: { adapter: 'rules' } };
    const canonical = await startAs(`incidents-${caseId}`, run);
    const others = await Promise.all(
      [`incidents-${caseId}-b`, `x-incidents-${caseId}`, `incidents-INC-elsewhere-${caseId.slice(4)}`].map((id) => startAs(id, run)),
    );

    for (const other of others) await expectRefused(other, `incidents-${caseId}`);
    const result = await canonical.result();
    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });

    const restarts = await incidentEffects(h.world, caseId, 'restart');
    expect(restarts).toHaveLength(1);
    expect(await incidentCalls(h.world, caseId, 'incidents.restart')).toHaveLength(1);
    // Keyed by the case, the service and the action, not by the run: any later run of the case
    // reaches the orchestrator with this same key.
    expect(restarts[0]?.idempotencyKey).toBe(`incidents/restart_service/restart:${caseId}:cache`);
  });

  it('incidents: a second run of the closed case under its own id restarts nothing and says it was done', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    const run: RunInput = { domain: 'incidents', caseId, model: { adapter: 'rules' } };
    const first = await (await startRun(h, run)).result();
    expect(first.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });

    const second = await (await startRun(h, run)).result();
    const [restart] = await incidentEffects(h.world, caseId, 'restart');
    expect(second.terminal).toMatchObject({ class: 'resolved', reason: 'already_done' });
    expect(second.terminal.detail).toContain(restart?.effectId);
    expect(second.terminal.detail).toContain(`restart:${caseId}:cache`);
    expect(second.effects).toEqual([]);
    expect(await incidentEffects(h.world, caseId, 'restart')).toHaveLength(1);
    expect(await incidentCalls(h.world, caseId, 'incidents.restart')).toHaveLength(1);
  });

  it('payments: only the case id runs; one reissue request, one reissue', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const run: RunInput = { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } };
    const canonical = await startAs(`payments-${transferId}`, run);
    const other = await startAs(`payments-${transferId}-b`, run);

    await expectRefused(other, `payments-${transferId}`);
    // A careless approver signs whatever the remaining run asks.
    const watched = await watchRun(canonical, keys.alice);
    expect(watched.result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(await reissuesOf(h.world, transferId)).toHaveLength(1);
    expect(await reissueCalls(h.world, transferId)).toHaveLength(1);
  });
});
