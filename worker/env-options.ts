// The one place a worker's environment becomes its options. `npm run worker` (runWorkerProcess)
// reads it, and a team's own worker takes it in one line:
//
//   const worker = await createAgentWorker({ ...(await workerOptionsFromEnv()), workflowsPath, implementations, blobDir });
//
// so the variables the docs describe (OPENAI_*, AGENT_MODELS, OTEL_EXPORTER_OTLP_ENDPOINT,
// AGENT_METRICS_ADDRESS, AGENT_PAYLOAD_KEYS, SPEND_*, ...) mean the same on every worker. What
// the code gives after the spread wins. Integrations come back as the plugins that carry them
// (tracing, payload codec, spend), so a worker built by hand lists the same ones.
//
// Every value is checked here, at start: a bad one throws WorkerEnvError naming the variable,
// never a worker that fails its first model call or silently runs without encryption.
import type { WorkerPlugin, RuntimeOptions, WorkflowBundleOption } from '@temporalio/worker';
import { DefaultLogger } from '@temporalio/worker';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { ModelAdapters } from '../activities/model/index.js';
import { modelAdaptersFromEnv } from '../activities/model/env.js';
import { spendOptionsFromEnv } from '../activities/spend/spending.js';
import { AgentWorkerError } from '../activities/worker-error.js';
import type { ApproverDirectory } from '../workflows/trust/directory.js';
import { loadApproverDirectory } from './approvers.js';
import { agentCodecPlugin } from './codec-plugin.js';
import { deploymentFromEnv, type AgentDeployment } from './deployment.js';
import { loadPayloadCodec } from './payload-codec.js';
import { agentSpendPlugin } from './spend-plugin.js';
import { agentMetricsPlugin, agentTracingPlugin } from './telemetry-plugin.js';
import { agentTracingFromEnv, prometheusTelemetry } from './telemetry.js';

/** A variable the worker cannot start with: which one, and what is wrong with its value. */
export class WorkerEnvError extends AgentWorkerError {
  static override readonly errorName: string = 'WorkerEnvError';
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {
    super(problem.includes(variable) ? problem : `${variable}: ${problem}`);
  }
}

/**
 * What the environment sets, as createAgentWorker's options: only what it configures is
 * present, so a spread of it leaves every default in place and what follows the spread wins.
 */
export interface WorkerEnvOptions {
  /** AGENT_TASK_QUEUE. */
  taskQueue?: string;
  /** AGENT_SHARED_QUEUE: `warn` to start beside a worker of other domains on the same queue. */
  sharedQueue?: 'refuse' | 'warn';
  /** STICKY_TIMEOUT_MS. */
  stickyTimeoutMs?: number;
  /** WORKFLOW_BUNDLE: a prebuilt bundle, which createAgentWorker prefers to a workflowsPath. */
  workflowBundle?: WorkflowBundleOption;
  /** BLOB_DIR. */
  blobDir?: string;
  /** TOOL_TIMEOUT_MS. */
  toolTimeoutMs?: number;
  /** OPENAI_* (the `openai` adapter) and AGENT_MODELS (named models; docs/models.md). */
  models?: ModelAdapters;
  /** AGENT_APPROVERS_FILE, read and checked. */
  approvers?: ApproverDirectory;
  /** AGENT_DEPLOYMENT_NAME, AGENT_BUILD_ID, AGENT_VERSIONING_BEHAVIOR (docs/operations.md). */
  deployment?: AgentDeployment;
  /**
   * The integrations configured: agentCodecPlugin (AGENT_PAYLOAD_KEYS), agentTracingPlugin
   * (OTEL_EXPORTER_OTLP_ENDPOINT) or agentMetricsPlugin (AGENT_METRICS_ADDRESS alone), and
   * agentSpendPlugin (SPEND_*). Empty when none is.
   */
  plugins: WorkerPlugin[];
  /** WORKER_LOG_LEVEL and AGENT_METRICS_ADDRESS (a Prometheus endpoint): the process's runtime, installed before it connects. */
  runtime?: RuntimeOptions;
}

/** A set value, trimmed; blank counts as unset. */
const setting = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (typeof v === 'string' && v.trim() ? v.trim() : undefined), schema.optional());
const positiveInteger = z.coerce.number().int('a whole number of milliseconds').positive('more than zero');
const path = z.string().min(1);

/** The single-valued variables; each is checked alone, so an error names exactly one. */
const Scalars = {
  AGENT_TASK_QUEUE: setting(z.string().max(1_000)),
  AGENT_SHARED_QUEUE: setting(z.enum(['refuse', 'warn'])),
  STICKY_TIMEOUT_MS: setting(positiveInteger),
  TOOL_TIMEOUT_MS: setting(positiveInteger),
  WORKFLOW_BUNDLE: setting(path),
  BLOB_DIR: setting(path),
  AGENT_APPROVERS_FILE: setting(path),
  WORKER_LOG_LEVEL: setting(z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'])),
  AGENT_METRICS_ADDRESS: setting(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'host:port, e.g. 127.0.0.1:9464')),
};
type Scalars = { [K in keyof typeof Scalars]: z.output<(typeof Scalars)[K]> };

/**
 * The worker options the environment configures (see WorkerEnvOptions for each variable).
 * Reads files the variables name (approver directory, key ring, price table) and opens the spend
 * ledger, so call it once, at start. Throws WorkerEnvError naming the variable that is wrong.
 *
 * @example
 * ```ts
 * const worker = await createAgentWorker({
 *   ...(await workerOptionsFromEnv()),
 *   workflowsPath: fileURLToPath(new URL('./domain.ts', import.meta.url)),
 *   implementations: [implementation],
 *   blobDir: './.blobs',
 * });
 * ```
 */
export async function workerOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<WorkerEnvOptions> {
  const v = scalars(env);
  const models = reading('OPENAI_BASE_URL', () => modelAdaptersFromEnv(env));
  const codec = reading('AGENT_PAYLOAD_KEYS', () => loadPayloadCodec(env));
  const deployment = reading('AGENT_DEPLOYMENT_NAME', () => deploymentFromEnv(env));
  const tracing = reading('OTEL_EXPORTER_OTLP_ENDPOINT', () => agentTracingFromEnv(env));
  const spendConfigured = ['SPEND_PRICES_FILE', 'SPEND_DAILY_CAPS', 'SPEND_LEDGER'].some((name) => env[name]?.trim());
  const spend = spendConfigured
    ? await spendOptionsFromEnv(env, v.BLOB_DIR ?? join(tmpdir(), 'agent-blobs')).catch((err: unknown) => {
        throw asEnvError('SPEND_DAILY_CAPS', err);
      })
    : undefined;
  const plugins: WorkerPlugin[] = [
    ...(codec ? [agentCodecPlugin([codec])] : []),
    // Traces when an endpoint is set (its modules include the engine's counters); the counters alone with the metrics endpoint.
    ...(tracing ? [agentTracingPlugin(tracing)] : v.AGENT_METRICS_ADDRESS ? [agentMetricsPlugin()] : []),
    ...(spend ? [reading('SPEND_DAILY_CAPS', () => agentSpendPlugin(spend))] : []),
  ];
  const runtime: RuntimeOptions = {
    ...(v.WORKER_LOG_LEVEL ? { logger: new DefaultLogger(v.WORKER_LOG_LEVEL) } : {}),
    ...(v.AGENT_METRICS_ADDRESS ? { telemetryOptions: prometheusTelemetry(v.AGENT_METRICS_ADDRESS) } : {}),
  };
  return {
    ...(v.AGENT_TASK_QUEUE ? { taskQueue: v.AGENT_TASK_QUEUE } : {}),
    ...(v.AGENT_SHARED_QUEUE ? { sharedQueue: v.AGENT_SHARED_QUEUE } : {}),
    ...(v.STICKY_TIMEOUT_MS ? { stickyTimeoutMs: v.STICKY_TIMEOUT_MS } : {}),
    ...(v.WORKFLOW_BUNDLE ? { workflowBundle: { codePath: v.WORKFLOW_BUNDLE } } : {}),
    ...(v.BLOB_DIR ? { blobDir: v.BLOB_DIR } : {}),
    ...(v.TOOL_TIMEOUT_MS ? { toolTimeoutMs: v.TOOL_TIMEOUT_MS } : {}),
    ...(models.openai || models.custom ? { models } : {}),
    ...(v.AGENT_APPROVERS_FILE ? { approvers: reading('AGENT_APPROVERS_FILE', () => loadApproverDirectory(v.AGENT_APPROVERS_FILE)) } : {}),
    ...(deployment ? { deployment } : {}),
    plugins,
    ...(Object.keys(runtime).length ? { runtime } : {}),
  };
}

function scalars(env: NodeJS.ProcessEnv): Scalars {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(Scalars)) {
    const parsed = schema.safeParse(env[name]);
    if (!parsed.success) throw new WorkerEnvError(name, `${parsed.error.issues[0]?.message ?? 'invalid'}, got ${JSON.stringify(env[name])}`);
    out[name] = parsed.data;
  }
  return out as Scalars;
}

/** Runs a reader of a group of variables, its error named by the variable it mentions (else the group's). */
function reading<T>(group: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw asEnvError(group, err);
  }
}

function asEnvError(group: string, err: unknown): WorkerEnvError {
  if (WorkerEnvError.isInstance(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  const named = /\b(?:OPENAI|AGENT|SPEND|OTEL|ANTHROPIC|GOOGLE)_[A-Z0-9_]+\b/.exec(message)?.[0];
  return new WorkerEnvError(named ?? group, message);
}
