// What an MCP source is configured with and what it offers the engine: the shapes a team's
// worker code writes against. The connection itself is in source.ts, the wire in wire.ts.
import type { Readback, ToolContext } from '../implement.js';
import type { BindingReport, BoundImplementation } from './bindings.js';
import type { McpToolInfo } from './tool-info.js';

/** Where the engine puts the idempotency key of an effect in the request's `_meta`. */
export const IDEMPOTENCY_KEY_META = 'io.temporal.agent/idempotencyKey';

export interface CommonConfig {
  /** Names the server in logs, errors and reports; one source per name per process. */
  name: string;
  /** Spawning or reaching the server, the MCP handshake and the first tool listing. Default 10 s. */
  connectTimeoutMs?: number;
  /** The argument an effect's key is passed as, when the tool's input schema declares it. Default `idempotencyKey`. */
  keyArgument?: string;
  /** Where connection events go (server exited, reconnecting, tool list changed). Default: console.warn. */
  log?: (line: string) => void;
}

/** How to start an MCP server as a child process speaking stdio (mcpSource's `stdio`): command, arguments, environment, working directory. */
export interface StdioServer {
  command: string;
  args?: string[];
  /** Added to a minimal inherited environment (PATH, HOME, ...), as the SDK does. */
  env?: Record<string, string>;
  cwd?: string;
}

export type McpSourceConfig = CommonConfig & ({ stdio: StdioServer; url?: undefined } | { url: string; headers?: Record<string, string>; stdio?: undefined });

export interface McpSourceStatus {
  name: string;
  connected: boolean;
  /** The stdio server's process id while connected. */
  pid?: number;
  /** Connections opened so far (a respawned server is one more). */
  connects: number;
  /** Complete tool listings fetched so far. */
  listings: number;
  listChangedNotifications: number;
  /** tools/call requests sent. */
  calls: number;
  /** The last lines the stdio server wrote to stderr. */
  stderrTail: string;
}

export interface ToolOptions {
  /**
   * What a result with `isError: true` means. For a read it is a refusal. For an effect the
   * default is `unknown`: nothing in MCP says the server had not committed before it failed (a
   * handler that throws late), so the effect is read back by key. `refused` is a promise about
   * this server: it reports errors only before committing, so an error means nothing happened.
   */
  isError?: 'refused' | 'unknown';
}

/** A tool implementation bound to a server tool; its output type comes from the contract it is used for. */
export type McpToolFn<Out> = (args: object, ctx: ToolContext<unknown>) => Promise<Out>;
export type McpReadbackFn = (key: string, ctx: ToolContext<unknown>) => Promise<Readback>;

export interface ReadbackOptions {
  /** The server tool's argument that takes the key. Default: the source's keyArgument. */
  keyArg?: string;
  /**
   * Turns the server's answer into { applied, output }. Default: the answer must be
   * `{ applied: boolean, output?: ..., effect?: ... }`; anything else cannot decide.
   */
  decode?: (answer: unknown) => Readback;
}

export interface CallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Sent in `_meta` and, when the schema has it, as the key argument. */
  idempotencyKey?: string;
  /** See ToolOptions. */
  isError?: 'refused' | 'unknown';
}

/** An MCP server as a source of tool implementations: `source.tool('restart')`, `source.readback(...)`, made by mcpSource. */
export interface McpSource {
  readonly name: string;
  /** The implementation of a contract by the server tool `mcpTool`: `tools: { restart_service: source.tool('restart') }`. */
  tool<Out = unknown>(mcpTool: string, options?: ToolOptions): McpToolFn<Out>;
  /** A readback by key through the server tool `mcpTool`: `readbacks: { effect_by_key: source.readback('effect_by_key') }`. */
  readback(mcpTool: string, options?: ReadbackOptions): McpReadbackFn;
  /** One call from activity code (a probe, a readback you decode yourself); same errors as a tool. */
  call(mcpTool: string, args: Record<string, unknown>, options: CallOptions): Promise<unknown>;
  /** The server's tools as it lists them now (connects if needed). */
  listTools(): Promise<McpToolInfo[]>;
  /** The domain's declarations beside the server's annotations, with a warning wherever they disagree. */
  describeBindings(implementation: BoundImplementation): Promise<BindingReport>;
  status(): McpSourceStatus;
  /** Closes the connection (a stdio server is stopped); later calls are unavailable. */
  close(): Promise<void>;
}
