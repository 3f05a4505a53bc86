// Everything a local run needs in one process: a Temporal server (started here unless the
// environment names one), the simulated systems of record, a client and an agent worker.
// Shared by the demo and the replay-fixture recorder.
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { implementations } from '../domains/implementations.js';
import { WorldClient } from '../domains/world/client.js';
import { startWorld, type RunningWorld } from '../domains/world/process.js';
import type { DevServerOptions } from '../temporal-dev/dev-server.js';
import { useTemporal, type TemporalTarget } from '../temporal-dev/target.js';
import { createAgentWorker } from '../worker/create-worker.js';
import type { ApproverDirectory } from '../workflows/trust/directory.js';

/** The examples' workflows module: the agent workflow over the example domains. */
export const examplesWorkflowsPath = fileURLToPath(new URL('../domains/workflows.ts', import.meta.url));

export interface LocalStack {
  target: TemporalTarget;
  world: RunningWorld;
  client: Client;
  worker: Worker;
  taskQueue: string;
  /** Stops everything this process started; `keepServer` leaves the Temporal server up. */
  close(options?: { keepServer?: boolean }): Promise<void>;
}

export async function startLocalStack(options: {
  server: DevServerOptions;
  worldDb: string;
  blobDir: string;
  taskQueue: string;
  /** Who this worker lets approve: ids, public keys, roles. */
  approvers?: ApproverDirectory;
}): Promise<LocalStack> {
  const target = await useTemporal(options.server);
  const world = await startWorld({ dbPath: options.worldDb });
  const connection = await Connection.connect(target.connectionOptions);
  const client = new Client({ connection, namespace: target.namespace });
  const workerConnection = await NativeConnection.connect(target.connectionOptions);
  const worker = await createAgentWorker({
    connection: workerConnection,
    namespace: target.namespace,
    taskQueue: options.taskQueue,
    workflowsPath: examplesWorkflowsPath,
    implementations,
    deps: { world: new WorldClient(world.url) },
    blobDir: options.blobDir,
    toolTimeoutMs: 1_000,
    ...(options.approvers ? { approvers: options.approvers } : {}),
  });
  return {
    target,
    world,
    client,
    worker,
    taskQueue: options.taskQueue,
    async close({ keepServer = false } = {}) {
      await workerConnection.close();
      await connection.close();
      await world.stop();
      if (!keepServer) await target.stop();
    },
  };
}
