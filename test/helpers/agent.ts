import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { createActivities } from '../../activities/index.js';
import { WorldClient } from '../../domains/world/client.js';
import { agentWorkflow } from '../../workflows/agent.js';
import type { RunResult, RunView } from '../../workflows/messages.js';
import { stateQuery } from '../../workflows/messages.js';
import type { RunInput } from '../../workflows/run-input.js';
import { connectClient, createTestWorker, uniqueTaskQueue } from './temporal.js';

export interface AgentHarness {
  client: Client;
  world: WorldClient;
  taskQueue: string;
  worker: Worker;
  close(): Promise<void>;
}

/** A real worker (in this process) for the agent workflow, on the shared dev server and world. */
export async function startAgentHarness(options: { toolTimeoutMs?: number } = {}): Promise<AgentHarness> {
  const taskQueue = uniqueTaskQueue('agent');
  const { client, close: closeClient } = await connectClient();
  const { worker, close: closeWorker } = await createTestWorker({
    taskQueue,
    activities: createActivities({
      worldUrl: inject('worldUrl'),
      blobDir: join(tmpdir(), 'agent-test-blobs'),
      toolTimeoutMs: options.toolTimeoutMs ?? 1_500,
    }),
  });
  const running = worker.run();
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

export function uniqueCase(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export async function startRun(h: AgentHarness, run: RunInput): Promise<WorkflowHandle<typeof agentWorkflow>> {
  return h.client.workflow.start(agentWorkflow, {
    taskQueue: h.taskQueue,
    workflowId: `${run.domain}-${run.caseId}`,
    args: [{ run }],
  });
}

export async function runToEnd(h: AgentHarness, run: RunInput): Promise<{ result: RunResult; view: RunView; handle: WorkflowHandle<typeof agentWorkflow> }> {
  const handle = await startRun(h, run);
  const result = await handle.result();
  const view = await handle.query(stateQuery);
  return { result, view, handle };
}
