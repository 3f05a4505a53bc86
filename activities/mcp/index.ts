// MCP tool servers as tool implementations of a domain's contracts: the one entry the worker's
// public module re-exports. See source.ts for what the engine guarantees that MCP does not.
export { mcpSource } from './source.js';
export {
  IDEMPOTENCY_KEY_META,
  type CallOptions,
  type McpReadbackFn,
  type McpSource,
  type McpSourceConfig,
  type McpSourceStatus,
  type McpToolFn,
  type ReadbackOptions,
  type StdioServer,
  type ToolOptions,
} from './config.js';
export type { McpToolInfo } from './tool-info.js';
export { formatBindings, type BindingReport, type BindingRow, type BoundImplementation, type DeclaredContract } from './bindings.js';
export { classifyMcpError, McpConfigError } from './errors.js';
