// What an MCP failure means to the engine. The protocol only says "an error happened"; the
// engine must know whether the server definitely did nothing (ToolRefused) or the request may
// have arrived and done its work (ToolUnavailable: a read is retried, an effect is `unknown` and
// read back by key). Only a definite answer from the server counts as a refusal; anything that
// leaves the outcome open (a timeout, a dropped connection, a crashed server, an internal error)
// is unavailable. Kept apart from the SDK's classes (duck-typed on `code`) so the SDK loads lazily.
import { AgentWorkerError } from '../worker-error.js';
import { ToolRefused, ToolUnavailable } from '../tool-errors.js';

/** A source configured wrongly (no transport, two configurations under one name): a bug at start, not a tool failure. */
export class McpConfigError extends AgentWorkerError {
  static override readonly errorName: string = 'McpConfigError';
}

/** JSON-RPC error codes the SDK uses (see ErrorCode in @modelcontextprotocol/sdk/types.js). */
export const JSONRPC = {
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/**
 * Codes with which a server rejects a request before running anything: the request was
 * malformed, the method or tool does not exist, or the arguments did not validate.
 */
const REJECTED_BEFORE_RUNNING = new Set<number>([JSONRPC.ParseError, JSONRPC.InvalidRequest, JSONRPC.MethodNotFound, JSONRPC.InvalidParams]);

export interface Classified {
  error: ToolRefused | ToolUnavailable;
  /** True when the connection can no longer be trusted: drop it, the next call reconnects. */
  dropConnection: boolean;
}

/** Maps whatever a call to an MCP server threw to the engine's two answers. */
export function classifyMcpError(err: unknown, where: string): Classified {
  if (ToolRefused.isInstance(err) || ToolUnavailable.isInstance(err)) return { error: err, dropConnection: false };
  const message = err instanceof Error ? err.message : String(err);
  const name = err instanceof Error ? err.name : '';
  const code = typeof (err as { code?: unknown } | null)?.code === 'number' ? (err as { code: number }).code : undefined;

  if (name === 'McpError' && code !== undefined) {
    if (code === JSONRPC.RequestTimeout) return { error: new ToolUnavailable(`${where}: no answer in time (${message})`, true), dropConnection: false };
    if (code === JSONRPC.ConnectionClosed)
      return { error: new ToolUnavailable(`${where}: the connection to the server closed before it answered`), dropConnection: true };
    if (REJECTED_BEFORE_RUNNING.has(code))
      return { error: new ToolRefused(`${where}: the server rejected the request: ${message}`, 'mcp_rejected'), dropConnection: false };
    return { error: new ToolUnavailable(`${where}: the server failed (${code}): ${message}`), dropConnection: false };
  }
  // Our own abort (activity cancelled, worker shutting down): the request may have been sent.
  if (name === 'AbortError') return { error: new ToolUnavailable(`${where}: cancelled while waiting for the server`), dropConnection: false };
  // The server would not let us in (no credentials, or they were refused): nothing ran.
  if (name === 'UnauthorizedError' || (err instanceof Error && err.constructor.name === 'UnauthorizedError')) {
    return { error: new ToolRefused(`${where}: the server refused access: ${message}`, 'mcp_unauthorized'), dropConnection: true };
  }
  // The streamable HTTP transport's own errors carry the HTTP status.
  if (name === 'StreamableHTTPError' || /^Streamable HTTP error/.test(message)) {
    if (code === 401 || code === 403)
      return { error: new ToolRefused(`${where}: the server refused access (${code})`, 'mcp_unauthorized'), dropConnection: true };
    return { error: new ToolUnavailable(`${where}: ${message}`), dropConnection: true };
  }
  // Anything else (fetch failed, a pipe broke, a process could not be spawned): the transport is suspect.
  return { error: new ToolUnavailable(`${where}: ${message || name || 'transport failure'}`), dropConnection: true };
}
