// A long-running worker process configured from the environment only, so the same command
// serves the dev server, a cluster or Temporal Cloud. Your worker script calls it with your
// domains' implementations, their dependencies and your workflows module.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { AnyImplementation } from '../activities/implement.js';
import type { ModelAdapters } from '../activities/model/index.js';
import { openAiAdapterFromEnv } from '../activities/model/openai-config.js';
import { loadApproverDirectory } from './approvers.js';
import { connectConfig, TASK_QUEUE } from './connection.js';
import { createAgentWorker } from './create-worker.js';

export interface WorkerProcessConfig {
  implementations: readonly AnyImplementation[];
  deps?: unknown;
  /** Your workflows module; WORKFLOW_BUNDLE (a prebuilt bundle) takes precedence. */
  workflowsPath: string;
  /** Model adapters beyond the OpenAI-compatible one configured by OPENAI_* variables. */
  models?: ModelAdapters;
}

/**
 * Environment: TEMPORAL_* (or a profile), AGENT_TASK_QUEUE, AGENT_APPROVERS_FILE, OPENAI_*,
 * TOOL_TIMEOUT_MS, BLOB_DIR, WORKFLOW_BUNDLE, STICKY_TIMEOUT_MS, WORKER_LOG_LEVEL.
 */
export async function runWorkerProcess(config: WorkerProcessConfig): Promise<never> {
  Runtime.install({ logger: new DefaultLogger((process.env.WORKER_LOG_LEVEL as 'WARN' | undefined) ?? 'WARN') });
  // Started by a test or the chaos run: leave no orphan if that parent dies without stopping us.
  if (process.env.EXIT_WITH_PARENT === '1') {
    process.stdin.on('close', () => process.exit(1));
    process.stdin.resume();
  }
  const { connectionOptions, namespace } = connectConfig();
  const connection = await NativeConnection.connect(connectionOptions);
  const worker = await createAgentWorker({
    connection,
    namespace,
    taskQueue: TASK_QUEUE,
    ...(process.env.STICKY_TIMEOUT_MS ? { stickyTimeoutMs: Number(process.env.STICKY_TIMEOUT_MS) } : {}),
    ...(process.env.WORKFLOW_BUNDLE ? { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE } } : { workflowsPath: config.workflowsPath }),
    implementations: config.implementations,
    deps: config.deps,
    blobDir: process.env.BLOB_DIR ?? join(tmpdir(), 'agent-blobs'),
    toolTimeoutMs: Number(process.env.TOOL_TIMEOUT_MS ?? 5_000),
    models: { ...openAiAdapterFromEnv(), ...config.models },
    approvers: loadApproverDirectory(process.env.AGENT_APPROVERS_FILE),
  });
  process.stdout.write(`WORKER_READY pid=${process.pid} taskQueue=${TASK_QUEUE} address=${connectionOptions.address}\n`);
  await worker.run();
  await connection.close();
  // The stdin lifeline above would keep the process alive after a graceful shutdown.
  process.exit(0);
}
