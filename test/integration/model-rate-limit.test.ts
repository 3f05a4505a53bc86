// Model calls across runs are rate-limited by Temporal itself: runs send them to a model
// queue, whose workers ask the server for at most N activity tasks a second for the whole
// queue (maxTaskQueueActivitiesPerSecond), with the team as fairness key. Fifty runs start at
// once; the limit is measured where the calls arrive, in the model server's request log.
// The test has its own dev server: fairness is a server setting (matching.enableFairness), and
// the queue-wide rate is split between a queue's partitions, each with its own burst, so one
// partition keeps the measured limit the configured one (docs/spend.md).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import { agentPlugin } from '../../worker/plugin.js';
import { implementations } from '../../domains/implementations.js';
import { WorldClient } from '../../domains/world/client.js';
import { agentWorkflow } from '../../domains/workflows.js';
import type { RunInput } from '../../workflows/run-input.js';
import { TEST_DIRECTORY } from '../support/keys.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { startDevServer, type DevServer } from '../../temporal-dev/dev-server.js';
import { quietLog } from '../../temporal-dev/log.js';
import { Client, Connection } from '@temporalio/client';
import { uniqueCase } from '../support/agent.js';
import { meteredAdapter, startMeteredModelServer, type MeteredModelServer } from './spend-support.js';

const RUNS = 50;
const PER_SECOND = 2;
/** The limiter's burst at the start of a storm, plus one for timer jitter (see the assertion). */
const BURST = 5;

describe('model calls rate-limited across runs by the task queue', () => {
  let server: MeteredModelServer;
  let temporal: DevServer;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    server = await startMeteredModelServer(() => ({
      decision: { type: 'escalate', reason: 'nothing to do in a storm' },
      promptTokens: 100,
      completionTokens: 10,
    }));
    closers.push(() => server.close());
    temporal = await startDevServer({
      headless: true,
      log: quietLog,
      dynamicConfig: { 'matching.enableFairness': true, 'matching.numTaskqueueReadPartitions': 1, 'matching.numTaskqueueWritePartitions': 1 },
    });
    closers.push(() => temporal.stop());
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  it(`keeps ${RUNS} runs started at once under ${PER_SECOND} model calls a second, fairly between teams`, async () => {
    const taskQueue = uniqueTaskQueue('storm');
    const modelQueue = `${taskQueue}-models`;
    const clientConnection = await Connection.connect({ address: temporal.address });
    closers.push(() => clientConnection.close());
    const client = new Client({ connection: clientConnection, namespace: temporal.namespace });

    // The run's own worker has no such model: a call that reached this queue would fail the run.
    const workerConnection = await NativeConnection.connect({ address: temporal.address });
    const worker = await Worker.create({
      connection: workerConnection,
      namespace: temporal.namespace,
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: createActivities({
        implementations,
        deps: { world: new WorldClient(inject('worldUrl')) },
        blobDir: join(tmpdir(), 'agent-test-blobs'),
        approvers: TEST_DIRECTORY,
      }),
    });
    const running = worker.run();
    closers.push(async () => {
      worker.shutdown();
      await running;
      await workerConnection.close();
    });

    // Two model workers, each asking for the same queue-wide limit: the server holds the queue to it.
    // Activity-only workers with the engine's plugin, as docs/spend.md says (its model call seals a planner's reply).
    const adapters = { custom: { metered: meteredAdapter(server.baseUrl, 'storm-model') } };
    for (let i = 0; i < 2; i++) {
      const connection = await NativeConnection.connect({ address: temporal.address });
      const models = await Worker.create({
        connection,
        namespace: temporal.namespace,
        taskQueue: modelQueue,
        plugins: [agentPlugin({ implementations, models: adapters, blobDir: join(tmpdir(), 'agent-test-blobs'), serves: 'models' })],
        maxTaskQueueActivitiesPerSecond: PER_SECOND,
      });
      const serving = models.run();
      closers.push(async () => {
        models.shutdown();
        await serving;
        await connection.close();
      });
    }

    // A storm from one team, then a quiet team's few runs behind it.
    const teams = Array.from({ length: RUNS }, (_, i) => (i < RUNS - 10 ? 'storm' : 'quiet'));
    const handles = await Promise.all(
      teams.map((team) => {
        const caseId = uniqueCase('INC');
        const run: RunInput = { domain: 'incidents', caseId, model: { adapter: 'custom', name: 'metered' }, team, modelQueue };
        return client.workflow.start(agentWorkflow, { taskQueue, workflowId: `incidents-${caseId}`, args: [{ run }] });
      }),
    );
    const results = await Promise.all(handles.map((h) => h.result()));

    expect(results.map((r) => r.terminal.class)).toEqual(teams.map(() => 'escalated'));
    expect(server.requests).toHaveLength(RUNS);
    // Temporal's limiter is a token bucket: within any stretch of time the calls that arrive
    // are at most the rate times its length plus the bucket's burst (a few calls when a storm
    // begins on a dev server 1.32; BURST allows that, and timer jitter). Without the limit all
    // fifty land within a second or two.
    const times = server.requests.map((r) => r.at).sort((a, b) => a - b);
    expect(worstExcess(times, PER_SECOND)).toBeLessThanOrEqual(BURST);

    // Fairness: the quiet team's calls are not queued behind the storm's forty (in arrival
    // order, FIFO would put them after most of them); they take turns with it.
    const order = server.requests.map((r) => r.team);
    const stormBeforeLastQuiet = order.slice(0, order.lastIndexOf('quiet')).filter((t) => t === 'storm').length;
    expect(stormBeforeLastQuiet).toBeLessThanOrEqual(25);
  });
});

/**
 * How far the arrivals ever run ahead of `perSecond`: the most, over every stretch from one
 * arrival to a later one, of the calls in it minus the rate times its length.
 */
function worstExcess(sorted: number[], perSecond: number): number {
  let worst = 0;
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i; j < sorted.length; j++) {
      const allowed = (perSecond * ((sorted[j] as number) - (sorted[i] as number))) / 1_000;
      worst = Math.max(worst, j - i + 1 - allowed);
    }
  }
  return worst;
}
