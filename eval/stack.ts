// Why this exists: the engine side of the eval needs what demo/local-stack.ts starts (a Temporal
// server unless the environment names one, the simulated world, a client and an in-process agent
// worker with approvers) plus the eval's own model adapters, which startLocalStack does not take.
// Everything here is started by this process and stopped by close(), by handle and pid.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { ModelAdapters } from '../activities/model/index.js';
import { examplesWorkflowsPath } from '../demo/local-stack.js';
import { implementations } from '../domains/implementations.js';
import { WorldClient } from '../domains/world/client.js';
import { startWorld, type RunningWorld } from '../domains/world/process.js';
import type { Log } from '../temporal-dev/log.js';
import { useTemporal, type TemporalTarget } from '../temporal-dev/target.js';
import { createAgentWorker } from '../worker/create-worker.js';
import type { ApproverDirectory } from '../workflows/trust/directory.js';

export interface EvalStack {
  target: TemporalTarget;
  world: RunningWorld;
  worldClient: WorldClient;
  client: Client;
  taskQueue: string;
  /** The tool timeout the worker uses; the baseline uses the same. */
  toolTimeoutMs: number;
  close(): Promise<void>;
}

export async function startEvalStack(options: { models: ModelAdapters; approvers: ApproverDirectory; toolTimeoutMs: number; log: Log }): Promise<EvalStack> {
  const scratch = mkdtempSync(join(tmpdir(), 'agent-eval-'));
  const undo: (() => Promise<unknown>)[] = [async () => rmSync(scratch, { recursive: true, force: true })];
  const closeAll = async () => {
    for (const step of undo.reverse()) await step().catch((err: unknown) => options.log(`close: ${String(err)}`));
  };
  try {
    // In memory, headless; the dev server's transfer queue is read as often as the bench reads it
    // (the default pins a sequential run at 100 ms a turn, whatever the engine does).
    const target = await useTemporal({ headless: true, dynamicConfig: { 'history.transferProcessorMaxPollRPS': 1_000 }, log: options.log });
    undo.push(() => target.stop());
    const world = await startWorld({ dbPath: join(scratch, 'world.db') });
    undo.push(() => world.stop());
    const connection = await Connection.connect(target.connectionOptions);
    undo.push(() => connection.close());
    const client = new Client({ connection, namespace: target.namespace });
    const workerConnection = await NativeConnection.connect(target.connectionOptions);
    undo.push(() => workerConnection.close());
    const taskQueue = `agent-eval-${process.pid}-${Date.now().toString(36)}`;
    const worker = await createAgentWorker({
      connection: workerConnection,
      namespace: target.namespace,
      taskQueue,
      workflowsPath: examplesWorkflowsPath,
      implementations,
      deps: { world: new WorldClient(world.url) },
      blobDir: join(scratch, 'blobs'),
      toolTimeoutMs: options.toolTimeoutMs,
      models: options.models,
      approvers: options.approvers,
    });
    const running = worker.run();
    void running.catch((err: unknown) => options.log(`worker stopped: ${String(err)}`));
    undo.push(async () => {
      worker.shutdown();
      await running;
    });
    return {
      target,
      world,
      worldClient: new WorldClient(world.url),
      client,
      taskQueue,
      toolTimeoutMs: options.toolTimeoutMs,
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
