// The engine's worker entry (`bounded-react-temporal/worker`): implement your domains, give the
// worker your dependencies, and run it. Node-side code: never import this from workflow code.
export { createAgentWorker, type AgentWorkerOptions } from './create-worker.js';
export { runWorkerProcess, type WorkerProcessConfig } from './run-worker.js';
export { bundleWorkflows } from './bundle.js';
export { connectConfig, TASK_QUEUE } from './connection.js';
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
export type { ModelAdapter, ModelAdapters, ProposeInput, ProposeOutput } from '../activities/model/index.js';
export { createOpenAiAdapter, type OpenAiAdapterConfig } from '../activities/model/openai.js';
export { openAiAdapterFromEnv } from '../activities/model/openai-config.js';
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
