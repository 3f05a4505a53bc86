// Attach means the same run on the same engine. Someone who reaches the frontend starts the
// case's run first, under its canonical workflow id, on a task queue that their own worker
// polls: whatever that worker writes ("resolved"), it is not the operator's run. The operator's
// start must be refused, naming the queue, instead of reporting "attached" to it.
import { describe, expect, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { RunSettingsConflictError } from '../../client/agent-errors.js';
import { servedElsewhere } from '../../client/start-run.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { cancelSignal } from '../../workflows/messages.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { reissuesOf } from '../support/adversarial.js';

describe('attach only to a run the same task queue serves', () => {
  // The harness's worker stands in for the attacker's: it polls a queue of its own.
  const attacker = useAgentHarness();

  it('a start that finds the case run on another queue is refused, and the foreign run is not reported as ours', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(attacker.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const run = { domain: 'payments', caseId: transferId, model: { adapter: 'rules' as const } };
    const foreign = await startRun(attacker, run);

    const operatorQueue = uniqueTaskQueue('operator');
    const operator = new AgentClient({ client: attacker.client, taskQueue: operatorQueue });
    const refused = await operator.start(run).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(RunSettingsConflictError);
    expect(String((refused as Error).message)).toContain(`served by task queue ${attacker.taskQueue}, this start asked for ${operatorQueue}`);

    await foreign.signal(cancelSignal, { by: 'test', reason: 'done probing' });
    await foreign.result();
    // Nothing the operator did moved money through the foreign run.
    expect(await reissuesOf(attacker.world, transferId)).toHaveLength(0);
  });

  it('a run of another workflow type under the case id is not an agent run', () => {
    expect(servedElsewhere({ servedBy: { taskQueue: 'q', workflowType: 'agentWorkflow' } }, 'q')).toEqual([]);
    expect(servedElsewhere({ servedBy: { taskQueue: 'q', workflowType: 'impostorWorkflow' } }, 'q')).toEqual([
      'workflow type: run is of type impostorWorkflow, not agentWorkflow',
    ]);
  });
});
