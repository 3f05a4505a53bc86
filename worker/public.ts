/**
 * `bounded-react-temporal/worker`: implement your domains against your own systems and run the
 * worker that serves them. `implement(domain).with({ tools, readbacks, probe })` is checked
 * against the domain's types (a missing tool or readback is a compile error);
 * `createAgentWorker` is a Temporal worker with the engine in it, and `agentPlugin` is the same
 * engine for a `Worker.create` of your own. Models (any AI SDK model, or a `policy` that
 * stands in for one) and MCP servers as implementations are its options; tracing, encrypted
 * payloads and spend caps are plugins listed beside it (`agentTracingPlugin`,
 * `agentCodecPlugin`, `agentSpendPlugin`). `workerOptionsFromEnv()` turns the environment
 * (OPENAI_*, AGENT_MODELS, OTEL_*, AGENT_PAYLOAD_KEYS, SPEND_*...) into those options in one line.
 *
 * Node-side code: never import this entry from workflow code (your domain files import
 * `bounded-react-temporal/workflow` only).
 *
 * @example
 * ```ts
 * import { createAgentWorker, implement, loadApproverDirectory, workerOptionsFromEnv } from 'bounded-react-temporal/worker';
 * import { orders } from './domain.js';
 *
 * const implementation = implement(orders).with<{ book: OrderBook }>({
 *   tools: { read_order: (args, ctx) => ctx.deps.book.get(args.orderId), cancel_order: (args, ctx) => ctx.deps.book.cancel(args.orderId, ctx.idempotencyKey) },
 *   readbacks: { cancellation_by_key: async (key, ctx) => ctx.deps.book.byKey(key) },
 *   probe: async (_claim, ctx) => {
 *     const { status } = await ctx.deps.book.get(ctx.caseId);
 *     return { holds: status === 'CANCELLED', conflict: false, decided: true, detail: `order is ${status}`, facts: { 'order.status': status } };
 *   },
 * });
 * const worker = await createAgentWorker({
 *   ...(await workerOptionsFromEnv()),
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
/** The environment as createAgentWorker's options, in one place: `createAgentWorker({ ...(await workerOptionsFromEnv()), ...yours })`. */
export { workerOptionsFromEnv, type WorkerEnvOptions } from './env-options.js';
export { taskQueueFor } from './connection.js';
export { loadApproverDirectory } from './approvers.js';
/** Worker Versioning: runs stay on their build and move at the engine's rollover (docs/operations.md). */
export { DeploymentConfigError, type AgentDeployment } from './deployment.js';

// Your domain's implementation, and how its tools say what went wrong.
export { implement, type DomainImplementation, type ProbeAnswer, type Readback, type ToolContext } from '../activities/implement.js';
export { ToolRefused, ToolUnavailable } from '../activities/tool-errors.js';

// Models: any AI SDK model, directly or by provider configuration (the environment's come from workerOptionsFromEnv).
export type { ModelAdapter } from '../activities/model/index.js';
export { createAiSdkAdapter } from '../activities/model/ai-sdk.js';
export { createProviderAdapter } from '../activities/model/providers.js';

// MCP tool servers as the implementation of your contracts.
export { formatBindings, mcpSource, type McpSource, type StdioServer } from '../activities/mcp/index.js';

// Integrations, each a plugin listed beside agentPlugin: encrypted payloads (AES-GCM, key ids,
// rotation), spend caps, traces and metrics. From the environment they come through
// workerOptionsFromEnv; the converter alone (for a client or a replay) through dataConverterFromEnv.
export { agentCodecPlugin } from './codec-plugin.js';
export { agentSpendPlugin } from './spend-plugin.js';
export { agentMetricsPlugin, agentTracingPlugin } from './telemetry-plugin.js';
export { dataConverterFromEnv, loadPayloadCodec } from './payload-codec.js';
export type { SpendOptions } from '../activities/spend/spending.js';
export { openSqliteLedger, type SpendLedger } from '../activities/spend/ledger.js';
// The ring workers seal their results with (docs/security.md, "Results a worker produced"), read
// from a file of the payload ring's format, for agentPlugin's `resultKeys`.
export { readKeyRing, type KeyRing } from './payload-keys.js';
export { createAgentTracing, METRICS_WORKFLOW_MODULES, TRACING_WORKFLOW_MODULES, type AgentTracing } from './telemetry.js';

// What the worker side throws. Every one is an AgentError; all but the tools' two answers above
// are an AgentWorkerError. Ask with `isInstance`, which holds across copies of the engine.
export { AgentError } from '../workflows/agent-error.js';
export { AgentWorkerError } from '../activities/worker-error.js';
export { ActivityNameTakenError, WorkerOptionError } from './plugin.js';
export { TaskQueueSharedError } from './shared-queue.js';
export { RuntimeInstalledError } from './create-worker.js';
export { QuarantineMissingError } from './quarantine-install.js';
export { WorkerEnvError } from './env-options.js';
export { McpConfigError } from '../activities/mcp/errors.js';
export { PayloadDecryptError, UnknownPayloadKeyError } from './payload-codec.js';
export { PayloadKeyRingError } from './payload-keys.js';
export { CodecServerConfigError } from './codec-server.js';
