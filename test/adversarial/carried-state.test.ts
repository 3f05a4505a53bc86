// Carried state is accepted only if the engine wrote it. The attacker here runs a workflow of
// their own, on their own worker and queue, that continues as new into the engine's workflow
// type on the engine's queue with state they made up (a run a few turns in, ready to act). The
// check "continued from an earlier execution" holds for it, so only the server's record of that
// earlier execution tells it apart: the agent run must fail before anything reaches the world.
import { domainDefaults } from '../../workflows/contract.js';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payments } from '../../domains/payments/domain.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { initialState } from '../../workflows/controller/next.js';
import type { RunState } from '../../workflows/controller/state.js';
import type { ImpostorInput } from '../fixtures/impostor-workflows.js';
import { uniqueCase, useAgentHarness } from '../support/agent.js';
import { startForeignWorker, uniqueTaskQueue } from '../support/temporal.js';
import { sleep } from '../support/adversarial.js';

const impostorWorkflows = fileURLToPath(new URL('../fixtures/impostor-workflows.ts', import.meta.url));

describe('carried state from a workflow that is not the engine', () => {
  const engine = useAgentHarness();
  const attackerQueue = uniqueTaskQueue('impostor');
  let stop: () => Promise<void>;
  beforeAll(async () => {
    stop = await startForeignWorker(attackerQueue, { workflowsPath: impostorWorkflows });
  });
  afterAll(async () => stop());

  it('an agent execution continued from an impostor fails InvalidRunInput, and the world hears nothing', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(engine.world, transferId, { ledgerStatus: 'PENDING', replicaStatus: 'FAILED' });
    const workflowId = `payments-${transferId}`;
    const state: RunState = {
      ...initialState({
        runId: workflowId,
        domain: payments,
        caseId: transferId,
        budgets: domainDefaults(payments).budgets,
        context: { strategy: domainDefaults(payments).context, window: domainDefaults(payments).window },
        chain: 'made-up',
        now: Date.now(),
      }),
      turn: 2,
      seq: 2,
    };
    const run = { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } };
    const input: ImpostorInput = { engineTaskQueue: engine.taskQueue, handOver: { run, carried: state } };
    const impostor = await engine.client.workflow.start('agentWorkflow', { taskQueue: attackerQueue, workflowId, args: [input] });
    await impostor.result().catch(() => undefined); // continued as new: the handle follows the chain

    // The chain's latest execution is the agent run on the engine's queue; it must have failed.
    const latest = engine.client.workflow.getHandle(workflowId);
    let description = await latest.describe();
    for (let i = 0; i < 100 && description.status.name === 'RUNNING'; i++) {
      await sleep(100);
      description = await latest.describe();
    }
    // What reached the world: nothing about this transfer, not even a read.
    expect(await engine.world.calls({ key: transferId })).toEqual([]);
    expect(description.type).toBe('agentWorkflow');
    expect(description.taskQueue).toBe(engine.taskQueue);
    expect(description.status.name).toBe('FAILED');
    const failure = await latest.result().then(
      () => 'completed',
      (err: unknown) => (err instanceof Error && err.cause instanceof Error ? `${err.cause.message}` : String(err)),
    );
    expect(failure).toContain(`from an execution on task queue ${attackerQueue}`);
  });
});
