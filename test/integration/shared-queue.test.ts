// A worker never silently shares a task queue with a worker of other workflows (issue 27): by
// default each worker polls a queue named after the domains it serves (and clients given the
// same domains start runs there), and a worker told to use a queue that a worker of other
// domains polls refuses to start, in one line, before it takes any task. Real workers on the
// shared dev server; a real worker process for the one-line refusal.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { incidents } from '../../domains/incidents/domain.js';
import { payments } from '../../domains/payments/domain.js';
import { paymentsImplementation } from '../../domains/payments/tools.js';
import { synthetic } from '../../domains/synthetic/domain.js';
import { syntheticImplementation } from '../../domains/synthetic/tools.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { waitUntil } from '../support/wait.js';
import { taskQueueFor } from '../../worker/connection.js';
import { createAgentWorker, type AgentWorkerOptions } from '../../worker/create-worker.js';
import { domainsOfIdentity, queueNeighbours, TaskQueueSharedError } from '../../worker/shared-queue.js';
import { TEST_DIRECTORY } from '../support/keys.js';
import { uniqueCase } from '../support/agent.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { EXAMPLES_WORKER, startWorkerProcess } from '../support/worker-process.js';

let connection: NativeConnection;
const running: Array<{ worker: Worker; done: Promise<void> }> = [];

beforeAll(async () => {
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
});
afterAll(async () => {
  for (const r of running) r.worker.shutdown();
  await Promise.all(running.map((r) => r.done));
  await connection?.close();
});

function workerOptions(impls: AgentWorkerOptions['implementations'], taskQueue?: string): AgentWorkerOptions {
  return {
    connection,
    namespace: inject('temporalNamespace'),
    ...(taskQueue ? { taskQueue } : {}),
    workflowBundle: { codePath: inject('workflowBundlePath') },
    implementations: impls,
    deps: { world: new WorldClient(inject('worldUrl')) },
    blobDir: join(tmpdir(), 'agent-test-blobs'),
    toolTimeoutMs: 1_500,
    approvers: TEST_DIRECTORY,
  };
}

/** Starts a worker and waits until the server lists it as a poller of its queue. */
async function pollingWorker(options: AgentWorkerOptions): Promise<Worker> {
  const worker = await createAgentWorker(options);
  running.push({ worker, done: worker.run() });
  const names = options.implementations.map((i) => i.domain.name);
  await waitUntil(
    async () => {
      const response = await connection.workflowService.describeTaskQueue({
        namespace: inject('temporalNamespace'),
        taskQueue: { name: worker.options.taskQueue },
        taskQueueType: 1,
      });
      return (response.pollers ?? []).some((p) => domainsOfIdentity(p.identity ?? '')?.join(',') === [...names].sort().join(',')) || undefined;
    },
    `the worker to poll ${worker.options.taskQueue}`,
    { everyMs: 100 },
  );
  return worker;
}

describe('the default task queue', () => {
  it('is named after the domains served, so the examples and a team of its own never meet; AGENT_TASK_QUEUE overrides', () => {
    expect(taskQueueFor(['synthetic', 'payments', 'incidents'], {})).toBe('agents-incidents-payments-synthetic');
    expect(taskQueueFor([payments, incidents, synthetic], {})).toBe('agents-incidents-payments-synthetic');
    expect(taskQueueFor(['refunds'], {})).toBe('agents-refunds');
    expect(taskQueueFor(['refunds'], { AGENT_TASK_QUEUE: 'mine' })).toBe('mine');
    expect(taskQueueFor([], {})).toBe('agent-runs');
  });

  it('a worker and a client given the same domains meet on it, and a run started there resolves', async () => {
    const saved = { queue: process.env.AGENT_TASK_QUEUE, address: process.env.TEMPORAL_ADDRESS, namespace: process.env.TEMPORAL_NAMESPACE };
    delete process.env.AGENT_TASK_QUEUE;
    process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
    process.env.TEMPORAL_NAMESPACE = inject('temporalNamespace');
    try {
      const worker = await pollingWorker(workerOptions([paymentsImplementation]));
      expect(worker.options.taskQueue).toBe('agents-payments');
      const agent = await AgentClient.connect({ domains: [payments] });
      try {
        expect(agent.taskQueue).toBe('agents-payments');
        const transferId = uniqueCase('PX-q');
        await seedTransfer(new WorldClient(inject('worldUrl')), transferId);
        const started = await agent.start({ domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
        const result = await started.handle.result();
        expect(result.terminal.class).toBe('resolved');
        expect((await agent.describe(started.runId)).taskQueue).toBe('agents-payments');
      } finally {
        await agent.close();
      }
    } finally {
      for (const [key, value] of [
        ['AGENT_TASK_QUEUE', saved.queue],
        ['TEMPORAL_ADDRESS', saved.address],
        ['TEMPORAL_NAMESPACE', saved.namespace],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});

describe('a queue that a worker of other domains polls', () => {
  it('is refused at start with a TaskQueueSharedError naming the other worker; a worker of the same domains may join', async () => {
    const queue = uniqueTaskQueue('shared');
    await pollingWorker(workerOptions([paymentsImplementation], queue));

    const refused = await createAgentWorker(workerOptions([syntheticImplementation], queue)).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(TaskQueueSharedError);
    const message = (refused as Error).message;
    expect(message).toContain(`task queue ${queue} is already polled by a worker of other workflows`);
    expect(message).toContain('serving domains payments');
    expect(message).toContain('this worker serves domains synthetic');
    expect(message).toContain('AGENT_TASK_QUEUE');
    expect(message).not.toContain('\n');

    // The same domains (a second replica, a restarted worker) are not a collision; others are.
    expect((await queueNeighbours(connection, inject('temporalNamespace'), queue, ['payments'])).conflicting).toEqual([]);
    const seenBySynthetic = await queueNeighbours(connection, inject('temporalNamespace'), queue, ['synthetic']);
    expect(seenBySynthetic.conflicting.map((p) => p.domains)).toEqual([['payments']]);
  });

  it('the examples worker process (npm run worker) exits 1 with one line, before it is ready; AGENT_SHARED_QUEUE=warn lets it start', async () => {
    const queue = uniqueTaskQueue('shared-proc');
    await pollingWorker(workerOptions([syntheticImplementation], queue));
    const spawnExamplesWorker = () =>
      startWorkerProcess({
        script: EXAMPLES_WORKER,
        temporalAddress: inject('temporalAddress'),
        taskQueue: queue,
        worldUrl: inject('worldUrl'),
        workflowBundlePath: inject('workflowBundlePath'),
        approversFile: inject('approversFile'),
      });
    const failure = await spawnExamplesWorker().then(
      async (proc) => {
        await proc.stop();
        return undefined;
      },
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
    expect(failure).toBeDefined();
    expect(failure).toContain('worker exited (1) before it was ready');
    const lines = (failure ?? '').split('\n').filter((l) => l.startsWith('worker: '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`task queue ${queue} is already polled by a worker of other workflows`);
    expect(lines[0]).toContain('serving domains synthetic); this worker serves domains incidents, payments, synthetic');
    expect(failure).not.toMatch(/\n\s+at /); // no stack

    // Someone who means it (a rolling deploy that adds a domain) says so.
    process.env.AGENT_SHARED_QUEUE = 'warn';
    try {
      const proc = await spawnExamplesWorker();
      await proc.stop();
    } finally {
      delete process.env.AGENT_SHARED_QUEUE;
    }
  });
});
