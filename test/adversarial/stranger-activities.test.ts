// The engine's activities scheduled by a workflow that is not the engine. Anyone who reaches the
// frontend can run a workflow of their own, on a queue of their own, that schedules activities on
// the engine's task queue, where the engine's workers take them: a reissue asked that way would
// reach the processor with no controller, gate or person in between, and a ledger read would
// hand the transfer's record to the stranger. Each is refused before it touches the world
// (activities/caller.ts), judged by the world's own records: the processor received no reissue,
// the ledger no read.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { seedTransfer } from '../../domains/world/seeds.js';
import type { StrangerInput, StrangerOutcome } from '../fixtures/stranger-workflows.js';
import { reissueCalls, reissuesOf } from '../support/adversarial.js';
import { uniqueCase, useAgentHarness } from '../support/agent.js';
import { uniqueTaskQueue } from '../support/temporal.js';

const strangerWorkflows = fileURLToPath(new URL('../fixtures/stranger-workflows.ts', import.meta.url));

describe("the engine's activities scheduled by a workflow that is not the engine", () => {
  const engine = useAgentHarness();
  const strangerQueue = uniqueTaskQueue('stranger');
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await Worker.create({
      connection,
      namespace: inject('temporalNamespace'),
      taskQueue: strangerQueue,
      workflowsPath: strangerWorkflows,
      bundlerOptions: { ignoreModules: [] },
    });
    const running = worker.run();
    stop = async () => {
      worker.shutdown();
      await running;
      await connection.close();
    };
  });
  afterAll(async () => stop());

  it('a reissue, a ledger read, a readback and a probe asked by a stranger named agentWorkflow: each fails NotAnAgentRun, and the world hears nothing', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(engine.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const input: StrangerInput = { engineTaskQueue: engine.taskQueue, transferId };
    const stranger = await engine.client.workflow.start('agentWorkflow', { taskQueue: strangerQueue, workflowId: `stranger-${transferId}`, args: [input] });
    const outcome = (await stranger.result()) as StrangerOutcome;

    // The world's records: no reissue reached the processor, the ledger was not read for anyone.
    expect(await reissueCalls(engine.world, transferId)).toEqual([]);
    expect(await reissuesOf(engine.world, transferId)).toEqual([]);
    const ledgerReads = (await engine.world.calls({ op: 'payments.ledger' })).filter((c) => c.key === transferId || JSON.stringify(c).includes(transferId));
    expect(ledgerReads).toEqual([]);
    // What the stranger got back: a failure for each, no result, nothing sealed.
    expect(outcome).toEqual({
      reissue: { failure: 'NotAnAgentRun' },
      ledger: { failure: 'NotAnAgentRun' },
      readback: { failure: 'NotAnAgentRun' },
      probe: { failure: 'NotAnAgentRun' },
    });
  });
});
