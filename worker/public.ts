/**
 * `bounded-react-temporal/worker`: implement your domains against your own systems and run the
 * worker that serves them. `implement(domain).with({ tools, readbacks, probe })` is checked
 * against the domain's types (a missing tool or readback is a compile error);
 * `createAgentWorker` is a Temporal worker with the engine in it, and `agentPlugin` is the same
 * engine for a `Worker.create` of your own. Models (any AI SDK model, or a `policy` that
 * stands in for one), MCP servers as implementations, encrypted payloads, spend caps and
 * telemetry are options of that one worker.
 *
 * Node-side code: never import this entry from workflow code (your domain files import
 * `bounded-react-temporal/workflow` only).
 *
 * @example
 * ```ts
 * import { createAgentWorker, implement, loadApproverDirectory } from 'bounded-react-temporal/worker';
 * import { orders } from './domain.js';
 *
 * const implementation = implement(orders).with<{ book: OrderBook }>({
 *   tools: { read_order: (args, ctx) => ctx.deps.book.get(args.orderId), cancel_order: (args, ctx) => ctx.deps.book.cancel(args.orderId, ctx.idempotencyKey) },
 *   readbacks: { cancellation_by_key: async (key, ctx) => ctx.deps.book.byKey(key) },
 *   probe: async (_claim, ctx) => ({ holds: ..., conflict: false, decided: true, detail: '...' }),
 * });
 * const worker = await createAgentWorker({
 *   workflowsPath: new URL('./domain.js', import.meta.url).pathname,
 *   implementations: [implementation],
 *   deps: { book },
 *   blobDir: './.blobs',
 *   approvers: loadApproverDirectory('approvers.json'),
 * });
 * await worker.run();
 * ```
 *
 * @module
 */

// The worker: the engine as a Temporal worker, as a plugin for your own, or as a whole process.
export { createAgentWorker, type AgentWorkerOptions } from './create-worker.js';
export { agentPlugin, type AgentPluginOptions } from './plugin.js';
export { runWorkerProcess, type WorkerProcessConfig } from './run-worker.js';
export { taskQueueFor } from './connection.js';
export { loadApproverDirectory } from './approvers.js';
/** Worker Versioning from configuration: runs stay on their build and move at the engine's rollover (docs/operations.md). */
export { deploymentFromEnv, DeploymentConfigError, type AgentDeployment } from './deployment.js';

// Your domain's implementation, and how its tools say what went wrong.
export { implement, type DomainImplementation, type ProbeAnswer, type Readback, type ToolContext } from '../activities/implement.js';
export { ToolRefused, ToolUnavailable } from '../activities/tool-errors.js';

// Models: any AI SDK model, directly or by provider configuration, and the environment's.
export type { ModelAdapter } from '../activities/model/index.js';
export { createAiSdkAdapter } from '../activities/model/ai-sdk.js';
export { createProviderAdapter } from '../activities/model/providers.js';
export { modelAdaptersFromEnv } from '../activities/model/env.js';

// MCP tool servers as the implementation of your contracts.
export { formatBindings, mcpSource, type McpSource, type StdioServer } from '../activities/mcp/index.js';

// Encrypted payloads (AES-GCM, key ids, rotation), spend caps, traces and metrics: from the environment.
export { dataConverterFromEnv, loadPayloadCodec } from './payload-codec.js';
export { spendOptionsFromEnv, type SpendOptions } from '../activities/spend/spending.js';
export { openSqliteLedger, type SpendLedger } from '../activities/spend/ledger.js';
export {
  agentTracingFromEnv,
  createAgentTracing,
  engineMetricsTelemetry,
  METRICS_WORKFLOW_MODULES,
  prometheusTelemetryFromEnv,
  TRACING_WORKFLOW_MODULES,
  type AgentTracing,
} from './telemetry.js';
