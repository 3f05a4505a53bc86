// The engine's activities scheduled by a workflow that is not the engine. Anyone who reaches the
// frontend can run a workflow of their own, on a queue of their own, that schedules activities on
// the engine's task queue, where the engine's workers take them: a reissue asked that way would
// reach the processor with no controller, gate or person in between, and a ledger read would
// hand the transfer's record to the stranger. Each is refused before it touches the world
// (activities/caller.ts), judged by the world's own records: the processor received no reissue,
// the ledger no read. A run's model queue has workers too, and no agent workflow: a stranger's
// workflow started there, its tasks taken by the stranger's own poller, would pass for an agent
// run on that queue, so a model queue's workers serve the model call only (`serves: 'models'`).
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { implementations } from '../../domains/implementations.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { agentPlugin } from '../../worker/plugin.js';
import type { StrangerInput, StrangerOutcome } from '../fixtures/stranger-workflows.js';
import { reissueCalls, reissuesOf } from '../support/adversarial.js';
import { uniqueCase, useAgentHarness } from '../support/agent.js';
import { uniqueTaskQueue } from '../support/temporal.js';

const strangerWorkflows = fileURLToPath(new URL('../fixtures/stranger-workflows.ts', import.meta.url));

describe("the engine's activities scheduled by a workflow that is not the engine", () => {
  const engine = useAgentHarness();
  const strangerQueue = uniqueTaskQueue('stranger');
  const modelQueue = uniqueTaskQueue('stranger-models');
  const stops: (() => Promise<void>)[] = [];
  /** A worker of its own connection on `taskQueue`, until the tests end. */
  async function serve(options: Omit<Parameters<typeof Worker.create>[0], 'connection' | 'namespace'>): Promise<void> {
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await Worker.create({ connection, namespace: inject('temporalNamespace'), ...options });
    const running = worker.run();
    stops.push(async () => {
      worker.shutdown();
      await running;
      await connection.close();
    });
  }
  beforeAll(async () => {
    // The stranger's own pollers: on a queue of theirs, and on the run's model queue.
    for (const taskQueue of [strangerQueue, modelQueue]) await serve({ taskQueue, workflowsPath: strangerWorkflows, bundlerOptions: { ignoreModules: [] } });
    // The team's model worker on the model queue, set up as docs/spend.md says.
    const deps = { world: new WorldClient(inject('worldUrl')) };
    await serve({ taskQueue: modelQueue, plugins: [agentPlugin({ implementations, deps, blobDir: join(tmpdir(), 'agent-test-blobs'), serves: 'models' })] });
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
  });

  /**
   * The stranger, run on `queue` against the engine's activities on `engineQueue`: what each call
   * answered it, after checking the world's own records show none of them.
   */
  async function strangerOn(queue: string, engineQueue: string): Promise<StrangerOutcome> {
    const transferId = uniqueCase('PX');
    await seedTransfer(engine.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const input: StrangerInput = { engineTaskQueue: engineQueue, transferId };
    const stranger = await engine.client.workflow.start('agentWorkflow', { taskQueue: queue, workflowId: `stranger-${queue}-${transferId}`, args: [input] });
    const outcome = (await stranger.result()) as StrangerOutcome;
    // The world's records: no reissue reached the processor, the ledger was not read for anyone.
    expect(await reissueCalls(engine.world, transferId)).toEqual([]);
    expect(await reissuesOf(engine.world, transferId)).toEqual([]);
    const ledgerReads = (await engine.world.calls({ op: 'payments.ledger' })).filter((c) => c.key === transferId || JSON.stringify(c).includes(transferId));
    expect(ledgerReads).toEqual([]);
    return outcome;
  }
  /** The same failure for each of the stranger's four calls. */
  const failedEach = (failure: string) => ({ reissue: { failure }, ledger: { failure }, readback: { failure }, probe: { failure } });

  it('a reissue, a ledger read, a readback and a probe asked by a stranger named agentWorkflow: each fails NotAnAgentRun, and the world hears nothing', async () => {
    // What the stranger got back: a failure for each, no result, nothing sealed.
    expect(await strangerOn(strangerQueue, engine.taskQueue)).toEqual(failedEach('NotAnAgentRun'));
  });

  it("the same stranger started on a run's model queue, where the team's model worker serves only the model call: nothing of the engine's but that answers, and the world hears nothing", async () => {
    // The worker has no such activity: each call fails, none ran.
    expect(await strangerOn(modelQueue, modelQueue)).toEqual(failedEach('NotFoundError'));
  });
});
