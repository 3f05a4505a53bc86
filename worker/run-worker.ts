// A long-running worker process configured from the environment only, so the same command
// serves the dev server, a cluster or Temporal Cloud. Your worker script calls it with your
// domains' implementations, their dependencies and your workflows module.
import { DEFAULT_TOOL_TIMEOUT_MS } from '../workflows/policy.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, type BundlerPlugin, type WorkerPlugin } from '@temporalio/worker';
import type { AnyImplementation } from '../activities/implement.js';
import type { ModelAdapters } from '../activities/model/index.js';
import { loadApproverDirectory } from './approvers.js';
import { connectConfig, taskQueueFor } from './connection.js';
import { createAgentWorker } from './create-worker.js';
import { cachedBundle, DEFAULT_BUNDLE_CACHE } from './bundle-cache.js';
import { workerOptionsFromEnv } from './env-options.js';
import { TaskQueueSharedError } from './shared-queue.js';
import { versionName } from './deployment.js';

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
 * Environment: TEMPORAL_* (or a profile) for the connection, and everything workerOptionsFromEnv
 * reads (worker/env-options.ts): AGENT_TASK_QUEUE (default `agents-<your domains, sorted>`),
 * AGENT_SHARED_QUEUE, AGENT_APPROVERS_FILE, OPENAI_*, AGENT_MODELS (docs/models.md),
 * TOOL_TIMEOUT_MS, BLOB_DIR, WORKFLOW_BUNDLE (else the bundle cache, AGENT_BUNDLE_CACHE: worker/bundle-cache.ts), STICKY_TIMEOUT_MS, WORKER_LOG_LEVEL,
 * AGENT_PAYLOAD_KEYS (docs/encryption.md), SPEND_* (docs/spend.md), OTEL_EXPORTER_OTLP_ENDPOINT
 * and AGENT_METRICS_ADDRESS (docs/observability.md), AGENT_DEPLOYMENT_NAME, AGENT_BUILD_ID and
 * AGENT_VERSIONING_BEHAVIOR (docs/operations.md). A bad value stops it in one line.
 */
export async function runWorkerProcess(config: WorkerProcessConfig): Promise<never> {
  const fromEnv = await workerOptionsFromEnv(process.env).catch((err: unknown) => {
    process.stderr.write(`worker: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
  const { runtime, models, ...options } = fromEnv;
  // The runtime (its log level, the Prometheus endpoint) is set once, before the first connection.
  Runtime.install({ logger: new DefaultLogger('WARN'), ...runtime });
  // Started by a test or the chaos run: leave no orphan if that parent dies without stopping us.
  if (process.env.EXIT_WITH_PARENT === '1') {
    process.stdin.on('close', () => process.exit(1));
    process.stdin.resume();
  }
  const { connectionOptions, namespace } = connectConfig();
  const connection = await NativeConnection.connect(connectionOptions);
  const taskQueue = options.taskQueue ?? taskQueueFor(config.implementations.map((i) => i.domain.name));
  // A prebuilt bundle (WORKFLOW_BUNDLE) wins; otherwise the cache's, bundled only when a file changed.
  const bundled = options.workflowBundle
    ? undefined
    : await cachedBundle(config.workflowsPath, {
        dir: process.env.AGENT_BUNDLE_CACHE?.trim() || DEFAULT_BUNDLE_CACHE,
        plugins: (options.plugins ?? []).filter(bundles),
      });
  const worker = await createAgentWorker({
    blobDir: join(tmpdir(), 'agent-blobs'),
    toolTimeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
    approvers: options.approvers ?? loadApproverDirectory(undefined), // says on stderr that nobody can approve
    ...options,
    connection,
    namespace,
    taskQueue,
    ...(bundled ? { workflowBundle: { codePath: bundled.codePath } } : { workflowsPath: config.workflowsPath }),
    implementations: config.implementations,
    deps: config.deps,
    models: withGiven(models, config.models),
  }).catch(async (err: unknown) => {
    if (!(err instanceof TaskQueueSharedError)) throw err;
    // The operator's mistake, not ours: one line, no stack.
    process.stderr.write(`worker: ${err.message}\n`);
    await connection.close();
    process.exit(1);
  });
  const build = options.deployment ? ` build=${versionName(options.deployment)}` : '';
  const bundle = bundled ? ` bundle=${bundled.reused ? 'cached' : 'built'}` : '';
  process.stdout.write(`WORKER_READY pid=${process.pid} taskQueue=${taskQueue} address=${connectionOptions.address}${build}${bundle}\n`);
  await worker.run();
  await connection.close();
  // The stdin lifeline above would keep the process alive after a graceful shutdown.
  process.exit(0);
}

/** A plugin with workflow code of its own (tracing, metrics): a bundle made ahead of the worker must include it. */
function bundles(plugin: WorkerPlugin): plugin is WorkerPlugin & BundlerPlugin {
  return typeof (plugin as Partial<BundlerPlugin>).configureBundler === 'function';
}

/** The environment's models with the script's added, the script's winning on a clash of names. */
function withGiven(fromEnv: ModelAdapters | undefined, given: ModelAdapters | undefined): ModelAdapters {
  const openai = given?.openai ?? fromEnv?.openai;
  const custom = { ...fromEnv?.custom, ...given?.custom };
  return { ...(openai ? { openai } : {}), ...(Object.keys(custom).length ? { custom } : {}) };
}
