// A long-running worker process configured from the environment only, so the same command
// serves the dev server, a cluster or Temporal Cloud. Your worker script calls it with your
// domains' implementations, their dependencies and your workflows module.
import { DEFAULT_TOOL_TIMEOUT_MS } from '../workflows/policy.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { AnyImplementation } from '../activities/implement.js';
import type { ModelAdapters } from '../activities/model/index.js';
import { modelAdaptersFromEnv } from '../activities/model/env.js';
import { loadApproverDirectory } from './approvers.js';
import { connectConfig, taskQueueFor } from './connection.js';
import { createAgentWorker } from './create-worker.js';
import type { PayloadCodec } from '@temporalio/common';
import { spendOptionsFromEnv, type SpendOptions } from '../activities/spend/spending.js';
import { loadPayloadCodec } from './payload-codec.js';
import type { AgentTelemetry } from './plugin.js';
import { agentTracingFromEnv, engineMetricsTelemetry, prometheusTelemetryFromEnv } from './telemetry.js';
import { TaskQueueSharedError } from './shared-queue.js';
import { deploymentFromEnv, versionName, type AgentDeployment } from './deployment.js';

/** What runWorkerProcess takes from your script; everything else it reads from the environment. */
export interface WorkerProcessConfig {
  implementations: readonly AnyImplementation[];
  deps?: unknown;
  /** Your workflows module; WORKFLOW_BUNDLE (a prebuilt bundle) takes precedence. */
  workflowsPath: string;
  /** Model adapters beyond those configured by OPENAI_* and AGENT_MODELS (these win on a clash of names). */
  models?: ModelAdapters;
}

/**
 * Environment: TEMPORAL_* (or a profile), AGENT_TASK_QUEUE (default `agents-<your domains,
 * sorted>`), AGENT_SHARED_QUEUE=warn (start even when a worker of other domains polls the
 * queue), AGENT_APPROVERS_FILE, OPENAI_*, AGENT_MODELS (docs/models.md), TOOL_TIMEOUT_MS, BLOB_DIR, WORKFLOW_BUNDLE,
 * STICKY_TIMEOUT_MS, WORKER_LOG_LEVEL, AGENT_PAYLOAD_KEYS (docs/encryption.md), SPEND_PRICES_FILE,
 * SPEND_DAILY_CAPS, SPEND_LEDGER (docs/spend.md), OTEL_EXPORTER_OTLP_ENDPOINT and
 * AGENT_METRICS_ADDRESS (docs/observability.md), AGENT_DEPLOYMENT_NAME, AGENT_BUILD_ID and
 * AGENT_VERSIONING_BEHAVIOR (Worker Versioning, docs/operations.md; off when unset).
 */
export async function runWorkerProcess(config: WorkerProcessConfig): Promise<never> {
  // Metrics (AGENT_METRICS_ADDRESS, a Prometheus endpoint) are runtime options: set before the first connection.
  const metrics = prometheusTelemetryFromEnv(process.env);
  Runtime.install({
    logger: new DefaultLogger((process.env.WORKER_LOG_LEVEL as 'WARN' | undefined) ?? 'WARN'),
    ...(metrics ? { telemetryOptions: metrics } : {}),
  });
  // Started by a test or the chaos run: leave no orphan if that parent dies without stopping us.
  if (process.env.EXIT_WITH_PARENT === '1') {
    process.stdin.on('close', () => process.exit(1));
    process.stdin.resume();
  }
  const { connectionOptions, namespace } = connectConfig();
  const connection = await NativeConnection.connect(connectionOptions);
  const taskQueue = taskQueueFor(config.implementations.map((i) => i.domain.name));
  const blobDir = process.env.BLOB_DIR ?? join(tmpdir(), 'agent-blobs');
  // Encryption (AGENT_PAYLOAD_KEYS), money (SPEND_*) and versioning (AGENT_DEPLOYMENT_NAME) are on only when configured; a bad
  // setting stops the worker here, in one line.
  const configured = await optionalSettings(blobDir).catch(async (err: unknown) => {
    process.stderr.write(`worker: ${err instanceof Error ? err.message : String(err)}\n`);
    await connection.close();
    process.exit(1);
  });
  const worker = await createAgentWorker({
    connection,
    namespace,
    taskQueue,
    sharedQueue: process.env.AGENT_SHARED_QUEUE === 'warn' ? 'warn' : 'refuse',
    ...(process.env.STICKY_TIMEOUT_MS ? { stickyTimeoutMs: Number(process.env.STICKY_TIMEOUT_MS) } : {}),
    ...(process.env.WORKFLOW_BUNDLE ? { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE } } : { workflowsPath: config.workflowsPath }),
    implementations: config.implementations,
    deps: config.deps,
    blobDir,
    ...configured,
    toolTimeoutMs: Number(process.env.TOOL_TIMEOUT_MS ?? DEFAULT_TOOL_TIMEOUT_MS),
    models: modelAdaptersFromEnv(process.env, config.models),
    approvers: loadApproverDirectory(process.env.AGENT_APPROVERS_FILE),
  }).catch(async (err: unknown) => {
    if (!(err instanceof TaskQueueSharedError)) throw err;
    // The operator's mistake, not ours: one line, no stack.
    process.stderr.write(`worker: ${err.message}\n`);
    await connection.close();
    process.exit(1);
  });
  const build = configured.deployment ? ` build=${versionName(configured.deployment)}` : '';
  process.stdout.write(`WORKER_READY pid=${process.pid} taskQueue=${taskQueue} address=${connectionOptions.address}${build}\n`);
  await worker.run();
  await connection.close();
  // The stdin lifeline above would keep the process alive after a graceful shutdown.
  process.exit(0);
}

async function optionalSettings(
  dataDir: string,
): Promise<{ payloadCodecs?: PayloadCodec[]; spend?: SpendOptions; telemetry?: AgentTelemetry; deployment?: AgentDeployment }> {
  const codec = loadPayloadCodec(process.env);
  const deployment = deploymentFromEnv(process.env);
  const spendConfigured = ['SPEND_PRICES_FILE', 'SPEND_DAILY_CAPS', 'SPEND_LEDGER'].some((name) => process.env[name]?.trim());
  // Traces when OTEL_EXPORTER_OTLP_ENDPOINT is set; the engine's counters with the metrics endpoint alone.
  const tracing = agentTracingFromEnv(process.env);
  const telemetry = tracing ? tracing.plugin : process.env.AGENT_METRICS_ADDRESS?.trim() ? engineMetricsTelemetry() : undefined;
  return {
    ...(codec ? { payloadCodecs: [codec] } : {}),
    ...(spendConfigured ? { spend: await spendOptionsFromEnv(process.env, dataDir) } : {}),
    ...(telemetry ? { telemetry } : {}),
    ...(deployment ? { deployment } : {}),
  };
}
