import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, inject } from 'vitest';
import { createActivities, type AgentActivities } from '../../activities/index.js';
import { implementations } from '../../domains/implementations.js';
import type { ModelAdapters } from '../../activities/model/index.js';
import { WorldClient } from '../../domains/world/client.js';
import { agentWorkflow } from '../../domains/workflows.js';
import type { RunResult, RunView } from '../../workflows/messages.js';
import { stateQuery } from '../../workflows/messages.js';
import type { RunInput } from '../../workflows/run-input.js';
import { TEST_DIRECTORY } from './keys.js';
import { pollersOf } from '../../client/server-facts.js';
import { connectClient, createTestWorker, uniqueTaskQueue } from './temporal.js';
import { waitUntil } from './wait.js';

export interface AgentHarness {
  client: Client;
  world: WorldClient;
  taskQueue: string;
  worker: Worker;
  close(): Promise<void>;
}

/** A real worker (in this process) for the agent workflow, on the shared dev server and world, polling before the harness is handed out. */
export interface HarnessOptions {
  toolTimeoutMs?: number;
  /** Model adapters beyond the offline ones, e.g. an OpenAI-compatible endpoint. */
  models?: ModelAdapters;
  /** The worker's activities as the test wants them (one of them held, say). */
  wrapActivities?: (made: AgentActivities) => AgentActivities;
}

export async function startAgentHarness(options: HarnessOptions = {}): Promise<AgentHarness> {
  const taskQueue = uniqueTaskQueue('agent');
  const { client, close: closeClient } = await connectClient();
  const activities = createActivities({
    implementations,
    deps: { world: new WorldClient(inject('worldUrl')) },
    blobDir: join(tmpdir(), 'agent-test-blobs'),
    toolTimeoutMs: options.toolTimeoutMs ?? 1_500,
    ...(options.models ? { models: options.models } : {}),
    approvers: TEST_DIRECTORY,
  });
  const { worker, close: closeWorker } = await createTestWorker({ taskQueue, activities: options.wrapActivities?.(activities) ?? activities });
  const running = worker.run();
  // Served once the server has seen the worker poll: a CLI start checks exactly that.
  await waitUntil(async () => (await pollersOf(client, taskQueue)).recent > 0, `the harness worker polling ${taskQueue}`);
  return {
    client,
    world: new WorldClient(inject('worldUrl')),
    taskQueue,
    worker,
    async close() {
      worker.shutdown();
      await running;
      await closeWorker();
      await closeClient();
    },
  };
}

/**
 * The harness for every test of the enclosing describe block: started before the first, closed
 * after the last. Its fields may be read inside tests only.
 */
export function useAgentHarness(options: HarnessOptions = {}): AgentHarness {
  let started: AgentHarness | undefined;
  beforeAll(async () => {
    started = await startAgentHarness(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  const get = (): AgentHarness => {
    if (!started) throw new Error('the agent harness is only there inside the tests of its describe block');
    return started;
  };
  return {
    get client() {
      return get().client;
    },
    get world() {
      return get().world;
    },
    get taskQueue() {
      return get().taskQueue;
    },
    get worker() {
      return get().worker;
    },
    close: () => get().close(),
  };
}

export function uniqueCase(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/**
 * Starts an agent run on a task queue (a harness's, or one that spawned workers poll), as the
 * operator's client does. `workflowTaskTimeout` is for a test that stops a worker holding a
 * workflow task: the next worker gets it once it times out (10 s by default).
 */
export async function startRun(
  on: { client: Client; taskQueue: string },
  run: RunInput,
  options: { workflowTaskTimeout?: string } = {},
): Promise<WorkflowHandle<typeof agentWorkflow>> {
  return on.client.workflow.start(agentWorkflow, {
    taskQueue: on.taskQueue,
    workflowId: `${run.domain}-${run.caseId}`,
    args: [{ run }],
    ...(options.workflowTaskTimeout ? { workflowTaskTimeout: options.workflowTaskTimeout } : {}),
  });
}

export async function runToEnd(h: AgentHarness, run: RunInput): Promise<{ result: RunResult; view: RunView; handle: WorkflowHandle<typeof agentWorkflow> }> {
  const handle = await startRun(h, run);
  const result = await handle.result();
  const view = await handle.query(stateQuery);
  return { result, view, handle };
}
