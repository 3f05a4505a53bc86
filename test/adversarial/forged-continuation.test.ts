// The answer to "is this carried state the engine's own?" forged through the frontend. An attacker's
// workflow continues as new into the engine's workflow type with state they wrote (here, a run
// that already ended resolved), and completes the engine's continuation check by hand with an
// answer shaped like a worker's, before the worker's honest one. That answer's seal is checked
// when it arrives, not with a later effect: the run refuses the state instead of ending with the
// attacker's verdict.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveResultKeys } from '../../activities/result-keys.js';
import { payments } from '../../domains/payments/domain.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { domainDefaults } from '../../workflows/contract.js';
import { initialState } from '../../workflows/controller/next.js';
import type { RunState } from '../../workflows/controller/state.js';
import type { ImpostorInput } from '../fixtures/impostor-workflows.js';
import { uniqueCase, useAgentHarness } from '../support/agent.js';
import { heldActivity } from '../support/held-activity.js';
import { historyOf } from '../support/temporal-ops.js';
import { startForeignWorker, uniqueTaskQueue } from '../support/temporal.js';

const impostorWorkflows = fileURLToPath(new URL('../fixtures/impostor-workflows.ts', import.meta.url));

describe('a continuation check answered by hand', () => {
  const check = heldActivity('checkContinuation');
  const engine = useAgentHarness({ wrapActivities: check.wrap });
  const attackerQueue = uniqueTaskQueue('impostor');
  let stop: () => Promise<void>;
  beforeAll(async () => {
    stop = await startForeignWorker(attackerQueue, { workflowsPath: impostorWorkflows });
  });
  afterAll(async () => stop());

  it('a forged "yes, it is the engine\'s" is not believed: the run fails on it instead of ending with the carried verdict', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(engine.world, transferId, { ledgerStatus: 'PENDING', replicaStatus: 'FAILED' });
    const workflowId = `payments-${transferId}`;
    const now = Date.now();
    const state: RunState = {
      ...initialState({
        runId: workflowId,
        domain: payments,
        caseId: transferId,
        budgets: domainDefaults(payments).budgets,
        context: { strategy: domainDefaults(payments).context, window: domainDefaults(payments).window },
        chain: 'made-up',
        now,
      }),
      turn: 2,
      seq: 2,
      phase: { name: 'terminal' },
      terminal: { class: 'resolved', reason: 'probe_confirmed', detail: 'the attacker says it is done', at: now },
    };
    const held = check.hold(workflowId);
    const run = { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } };
    const input: ImpostorInput = { engineTaskQueue: engine.taskQueue, handOver: { run, carried: state } };
    // Continued as new at once; the engine's execution is then held at its check.
    await engine.client.workflow.start('agentWorkflow', { taskQueue: attackerQueue, workflowId, args: [input] });
    await held.entered;

    // The engine's execution is asking; the attacker answers first, shaped like a worker's answer.
    const latest = engine.client.workflow.getHandle(workflowId);
    const { runId } = await latest.describe();
    const scheduled = (await historyOf(engine.client, workflowId, runId)).find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'checkContinuation',
    );
    const activityId = scheduled?.activityTaskScheduledEventAttributes?.activityId;
    if (!activityId) throw new Error('no continuation check scheduled');
    const forged = { sealed: { ok: true }, keyId: resolveResultKeys().current, mac: 'forged-by-hand-not-a-worker-mac-000000000000' };
    await engine.client.activity.complete({ workflowId, runId, activityId }, forged);
    held.release();

    const outcome = await latest.result().then(
      (result) => `completed ${JSON.stringify((result as { terminal?: unknown }).terminal)}`,
      (err: unknown) => (err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err)),
    );
    expect(outcome).toMatch(/carried run state refused: the check's answer is not a worker's/);
    expect((await latest.describe()).status.name).toBe('FAILED');
    expect(await engine.world.calls({ key: transferId })).toEqual([]);
  });
});
