// The engine's worker entry (`bounded-react-temporal/worker`): implement your domains, give the
// worker your dependencies, and run it. Node-side code: never import this from workflow code.
export { createAgentWorker, type AgentWorkerOptions } from './create-worker.js';
/** The engine as a plugin for your own Worker.create: `plugins: [agentPlugin({ implementations, ... })]`. */
export { agentPlugin, AgentPlugin, ActivityNameTakenError, AGENT_PLUGIN_NAME, type AgentPluginOptions, type AgentTelemetry } from './plugin.js';
export { runWorkerProcess, type WorkerProcessConfig } from './run-worker.js';
export { bundleWorkflows } from './bundle.js';
export { connectConfig, TASK_QUEUE, taskQueueFor } from './connection.js';
export { TaskQueueSharedError } from './shared-queue.js';
export { loadApproverDirectory } from './approvers.js';
export {
  implement,
  type AnyImplementation,
  type DomainImplementation,
  type ProbeAnswer,
  type Readback,
  type ToolContext,
} from '../activities/implement.js';
export { ToolRefused, ToolUnavailable } from '../activities/tool-errors.js';
export { createActivities, type ActivityDeps } from '../activities/index.js';
export type { ModelAdapter, ModelAdapters, ModelUsage, ProposeInput, ProposeOutput } from '../activities/model/index.js';
export { createOpenAiAdapter, type OpenAiAdapterConfig } from '../activities/model/openai.js';
export { openAiAdapterFromEnv } from '../activities/model/openai-config.js';
/** Any AI SDK model (LanguageModelV3) as a model adapter, directly or by provider configuration. */
export { createAiSdkAdapter, type AiSdkAdapterOptions, type LanguageModel } from '../activities/model/ai-sdk.js';
export { createProviderAdapter, languageModelFor, providerAdaptersFromEnv, ProviderConfig, PROVIDERS, type ProviderName } from '../activities/model/providers.js';
export { modelAdaptersFromEnv } from '../activities/model/env.js';
/** MCP tool servers as implementations of your contracts: `mcpSource({ name, stdio | url }).tool('restart')`. */
export {
  formatBindings,
  IDEMPOTENCY_KEY_META,
  McpConfigError,
  mcpSource,
  type BindingReport,
  type BindingRow,
  type McpSource,
  type McpSourceConfig,
  type McpSourceStatus,
  type McpToolInfo,
  type StdioServer,
  type ToolOptions,
} from '../activities/mcp/index.js';
/** Encrypted payloads: an AES-GCM payload codec with key ids and rotation, and the Web UI's codec endpoint. */
export {
  AesGcmPayloadCodec,
  dataConverterFromEnv,
  loadPayloadCodec,
  payloadKeyId,
  PayloadDecryptError,
  UnknownPayloadKeyError,
} from './payload-codec.js';
export { KeyRingFile, parseKeyRing, PayloadKeyRingError, readKeyRing } from './payload-keys.js';
export { CodecServerConfigError, startCodecServer, type CodecServerOptions } from './codec-server.js';
/** Money: a price table, spend charged per model call, and team caps per day held outside any run. */
export { DEFAULT_PRICES, parsePriceTable, PriceTable } from '../activities/spend/prices.js';
export { openSqliteLedger, type SpendLedger } from '../activities/spend/ledger.js';
export { spendOptionsFromEnv, withSpend, type SpendOptions } from '../activities/spend/spending.js';
/** Traces (OpenTelemetry, GenAI conventions, one trace per run) and metrics (Prometheus); docs/observability.md. */
export {
  agentTracingFromEnv,
  createAgentTracing,
  engineMetricsTelemetry,
  ENGINE_METRICS,
  keyDigest,
  METRICS_WORKFLOW_MODULES,
  prometheusTelemetry,
  prometheusTelemetryFromEnv,
  TRACING_WORKFLOW_MODULES,
  type AgentTracing,
  type AgentTracingOptions,
} from './telemetry.js';
