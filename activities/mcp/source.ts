// An MCP server as a source of tool implementations. The domain's contracts stay the only truth
// about a tool (read or effect, idempotent, authority, freshness, facts, preconditions,
// readback); this file only carries calls to the server and answers back in the engine's terms:
//
// * Effects are never re-issued blind. The engine's idempotency key travels with every effect
//   call, in the request's `_meta` and as an argument when the server's input schema has one.
//   A timeout, a dropped connection or a crashed server is ToolUnavailable (for an effect:
//   `unknown`, settled by the declared readback). A result with `isError` is ToolRefused for a
//   read; for an effect it is `unknown` too, since a server may report an error after it
//   committed, unless the binding says this server only reports errors before committing.
// * The connection belongs to the worker: one client per server per process, connected on the
//   first call, shared by every activity, dropped on a transport failure and reopened (a stdio
//   server that died is spawned again) by the next call. The tool list is fetched once per
//   connection and again on `notifications/tools/list_changed`, never per call.
// * The SDK is loaded on first use, so workers that use no MCP server never load it.
import { z } from 'zod';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JsonSchemaValidatorResult, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Readback, ToolContext } from '../implement.js';
import { ToolRefused, ToolUnavailable } from '../tool-errors.js';
import { describeBindings, markBinding, type BindingReport, type BoundImplementation } from './bindings.js';
import { classifyMcpError, McpConfigError } from './errors.js';

/** Where the engine puts the idempotency key of an effect in the request's `_meta`. */
export const IDEMPOTENCY_KEY_META = 'io.temporal.agent/idempotencyKey';

interface CommonConfig {
  /** Names the server in logs, errors and reports; one source per name per process. */
  name: string;
  /** Spawning or reaching the server, the MCP handshake and the first tool listing. Default 10 s. */
  connectTimeoutMs?: number;
  /** The argument an effect's key is passed as, when the tool's input schema declares it. Default `idempotencyKey`. */
  keyArgument?: string;
  /** Where connection events go (server exited, reconnecting, tool list changed). Default: console.warn. */
  log?: (line: string) => void;
}

export interface StdioServer {
  command: string;
  args?: string[];
  /** Added to a minimal inherited environment (PATH, HOME, ...), as the SDK does. */
  env?: Record<string, string>;
  cwd?: string;
}

export type McpSourceConfig = CommonConfig & ({ stdio: StdioServer; url?: undefined } | { url: string; headers?: Record<string, string>; stdio?: undefined });

/** A tool as the server lists it: what it says about itself, which the engine only reports. */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: { type: 'object'; properties?: Record<string, object>; required?: string[] };
  outputSchema?: { type: 'object'; properties?: Record<string, object>; required?: string[] };
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

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

const sources = new Map<string, { fingerprint: string; source: McpSourceImpl }>();

/**
 * The MCP server `config` names, as a source of tool implementations. Created once per worker
 * process (at module level beside the implementation); asking again for the same name and
 * configuration returns the same source, and so the same connection.
 */
export function mcpSource(config: McpSourceConfig): McpSource {
  if (!config.name) throw new McpConfigError('an MCP source needs a name');
  if (!config.stdio === !config.url) throw new McpConfigError(`MCP source ${config.name}: give exactly one of stdio (command, args) or url`);
  if (config.url) {
    try {
      new URL(config.url);
    } catch {
      throw new McpConfigError(`MCP source ${config.name}: ${config.url} is not a URL`);
    }
  }
  const { log: _log, ...comparable } = config;
  const fingerprint = JSON.stringify(comparable);
  const existing = sources.get(config.name);
  if (existing) {
    if (existing.fingerprint !== fingerprint) throw new McpConfigError(`an MCP source named ${config.name} already exists in this process with another configuration`);
    return existing.source;
  }
  const source = new McpSourceImpl(config);
  sources.set(config.name, { fingerprint, source });
  return source;
}

interface Session {
  client: Client;
  transport: Transport;
  /** The current listing; undefined until (re)fetched. */
  tools?: Promise<Map<string, McpToolInfo>>;
  pid?: number;
}

class McpSourceImpl implements McpSource {
  readonly name: string;
  private readonly keyArgument: string;
  private readonly connectTimeoutMs: number;
  private readonly log: (line: string) => void;
  private opening?: Promise<Session>;
  private current?: Session;
  private closed = false;
  private stderrTail = '';
  private readonly counts = { connects: 0, listings: 0, listChangedNotifications: 0, calls: 0 };

  constructor(private readonly config: McpSourceConfig) {
    this.name = config.name;
    this.keyArgument = config.keyArgument ?? 'idempotencyKey';
    this.connectTimeoutMs = config.connectTimeoutMs ?? 10_000;
    this.log = config.log ?? ((line) => console.warn(line));
  }

  tool<Out = unknown>(mcpTool: string, options: ToolOptions = {}): McpToolFn<Out> {
    // Only an effect's dispatch carries a key (the contract, not the server, decides which calls those are).
    const fn: McpToolFn<Out> = async (args, ctx) =>
      (await this.call(mcpTool, args as Record<string, unknown>, {
        timeoutMs: ctx.timeoutMs,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(ctx.idempotencyKey ? { idempotencyKey: ctx.idempotencyKey } : {}),
        // Only an effect's dispatch carries a key: its error is in doubt unless the binding says otherwise.
        isError: options.isError ?? (ctx.idempotencyKey ? 'unknown' : 'refused'),
      })) as Out;
    markBinding(fn, { source: this, mcpTool, role: 'tool' });
    return fn;
  }

  readback(mcpTool: string, options: ReadbackOptions = {}): McpReadbackFn {
    const keyArg = options.keyArg ?? this.keyArgument;
    const decode = options.decode ?? decodeReadback;
    const fn: McpReadbackFn = async (key, ctx) => {
      const answer = await this.call(mcpTool, { [keyArg]: key }, { timeoutMs: ctx.timeoutMs, ...(ctx.signal ? { signal: ctx.signal } : {}) });
      try {
        return decode(answer);
      } catch (err) {
        // An answer the readback cannot read decides nothing: the engine asks again, then says undecided.
        throw new ToolUnavailable(`MCP ${this.name} ${mcpTool}: cannot tell from this answer whether ${key} was applied: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`);
      }
    };
    markBinding(fn, { source: this, mcpTool, role: 'readback', keyArg });
    return fn;
  }

  async call(mcpTool: string, args: Record<string, unknown>, options: CallOptions): Promise<unknown> {
    const where = `MCP ${this.name} ${mcpTool}`;
    let session: Session | undefined;
    try {
      session = await this.connect();
      const listed = await this.toolsOf(session);
      const tool = listed.get(mcpTool);
      if (!tool) {
        throw new ToolRefused(`the MCP server ${this.name} does not list a tool named ${mcpTool} (it lists ${[...listed.keys()].join(', ') || 'none'})`, 'mcp_tool_not_listed');
      }
      const key = options.idempotencyKey;
      // The engine's key wins over anything in the arguments: the server must dedupe on it.
      const callArgs = key && declaresProperty(tool, this.keyArgument) ? { ...args, [this.keyArgument]: key } : { ...args };
      this.counts.calls++;
      const result = await session.client.callTool(
        { name: mcpTool, arguments: callArgs, ...(key ? { _meta: { [IDEMPOTENCY_KEY_META]: key } } : {}) },
        undefined,
        { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) },
      );
      return outputOf(result, where, options.isError ?? 'refused');
    } catch (err) {
      // Our own cancellation (activity cancelled, worker stopping) says nothing about the connection.
      if (options.signal?.aborted) throw new ToolUnavailable(`${where}: cancelled while waiting for the server`);
      const { error, dropConnection } = classifyMcpError(err, where);
      if (dropConnection && session) this.drop(session, error.message);
      throw error;
    }
  }

  async listTools(): Promise<McpToolInfo[]> {
    const where = `MCP ${this.name} tools/list`;
    let session: Session | undefined;
    try {
      session = await this.connect();
      return [...(await this.toolsOf(session)).values()];
    } catch (err) {
      const { error, dropConnection } = classifyMcpError(err, where);
      if (dropConnection && session) this.drop(session, error.message);
      throw error;
    }
  }

  describeBindings(implementation: BoundImplementation): Promise<BindingReport> {
    return describeBindings(this, implementation, this.keyArgument);
  }

  status(): McpSourceStatus {
    return {
      name: this.name,
      connected: this.current !== undefined,
      ...(this.current?.pid ? { pid: this.current.pid } : {}),
      ...this.counts,
      stderrTail: this.stderrTail,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (sources.get(this.name)?.source === this) sources.delete(this.name);
    const session = this.current ?? (await this.opening?.catch(() => undefined));
    this.current = undefined;
    this.opening = undefined;
    await session?.client.close().catch(() => undefined);
  }

  /** The shared connection, opened on first use and again after it was dropped. */
  private connect(): Promise<Session> {
    if (this.closed) return Promise.reject(new ToolUnavailable(`the MCP source ${this.name} is closed`));
    this.opening ??= this.open().catch((err: unknown) => {
      this.opening = undefined;
      throw err;
    });
    return this.opening;
  }

  private async open(): Promise<Session> {
    const sdk = await loadSdk();
    const client = new sdk.Client({ name: 'bounded-react-temporal', version: '0.2.0' }, { jsonSchemaValidator: contractDecides });
    let transport: Transport;
    if (this.config.stdio) {
      const stdio = new sdk.StdioClientTransport({ ...this.config.stdio, stderr: 'pipe' });
      // Drained for the server's whole life (a full pipe would block it); only the tail is kept.
      stdio.stderr?.on('data', (chunk: Buffer | string) => {
        this.stderrTail = (this.stderrTail + chunk.toString()).slice(-4_000);
      });
      transport = stdio;
    } else {
      transport = new sdk.StreamableHTTPClientTransport(new URL(this.config.url), this.config.headers ? { requestInit: { headers: this.config.headers } } : undefined);
    }
    const session: Session = { client, transport };
    client.onclose = () => {
      if (this.current !== session) return;
      this.current = undefined;
      this.opening = undefined;
      if (!this.closed) this.log(`MCP ${this.name}: the connection closed${session.pid ? ` (server pid ${session.pid})` : ''}; the next call reconnects`);
    };
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      this.counts.listChangedNotifications++;
      session.tools = undefined;
      // Refetched now, so the next call finds it ready; a failure leaves it to that call.
      this.toolsOf(session).catch(() => undefined);
    });
    try {
      await client.connect(transport, { timeout: this.connectTimeoutMs });
      if (transport instanceof sdk.StdioClientTransport) session.pid = transport.pid ?? undefined;
      this.counts.connects++;
      await this.toolsOf(session);
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new ToolUnavailable(`the MCP source ${this.name} is closed`);
    }
    this.current = session;
    return session;
  }

  private toolsOf(session: Session): Promise<Map<string, McpToolInfo>> {
    session.tools ??= this.fetchTools(session).catch((err: unknown) => {
      session.tools = undefined;
      throw err;
    });
    return session.tools;
  }

  private async fetchTools(session: Session): Promise<Map<string, McpToolInfo>> {
    const tools = new Map<string, McpToolInfo>();
    let cursor: string | undefined;
    do {
      const page = await session.client.listTools(cursor ? { cursor } : undefined, { timeout: this.connectTimeoutMs });
      for (const tool of page.tools) tools.set(tool.name, tool as McpToolInfo);
      cursor = page.nextCursor;
    } while (cursor);
    this.counts.listings++;
    return tools;
  }

  private drop(session: Session, why: string): void {
    if (this.current === session) {
      this.current = undefined;
      this.opening = undefined;
      this.log(`MCP ${this.name}: dropping the connection (${why.slice(0, 200)}); the next call reconnects`);
    }
    void session.client.close().catch(() => undefined);
  }
}

/** A server's result in the engine's terms: isError is a definite no; otherwise its output. */
function outputOf(result: Awaited<ReturnType<Client['callTool']>>, where: string, isError: 'refused' | 'unknown'): unknown {
  if ('toolResult' in result) return result.toolResult;
  const texts = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : []));
  if (result.isError) {
    const said = `${where}: ${texts.join(' ').slice(0, 500) || 'the tool reported an error'}`;
    throw isError === 'unknown' ? new ToolUnavailable(said) : new ToolRefused(said, 'mcp_tool_error');
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  const first = texts[0];
  if (first === undefined) return undefined;
  try {
    return JSON.parse(first);
  } catch {
    // Not JSON: handed on as it is, and the contract's output schema judges it (bad_output).
    return first;
  }
}

const ReadbackAnswer = z.object({ applied: z.boolean(), output: z.unknown().optional(), effect: z.unknown().optional() });

function decodeReadback(answer: unknown): Readback {
  const parsed = ReadbackAnswer.parse(answer);
  if (!parsed.applied) return { applied: false };
  const output = parsed.output ?? parsed.effect;
  return output === undefined ? { applied: true } : { applied: true, output };
}

function declaresProperty(tool: McpToolInfo, property: string): boolean {
  return Object.hasOwn(tool.inputSchema.properties ?? {}, property);
}

/**
 * The SDK would check structured output against the server's own output schema and throw on a
 * mismatch. The contract's output schema is the one that counts (a mismatch is `bad_output`
 * evidence, decided by the engine), so the server's schema is not enforced here.
 */
const contractDecides: jsonSchemaValidator = {
  getValidator<T>() {
    return (input: unknown): JsonSchemaValidatorResult<T> => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

type Sdk = {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  StdioClientTransport: typeof import('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  ToolListChangedNotificationSchema: typeof import('@modelcontextprotocol/sdk/types.js').ToolListChangedNotificationSchema;
};

let sdkLoading: Promise<Sdk> | undefined;
function loadSdk(): Promise<Sdk> {
  sdkLoading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([client, stdio, http, types]) => ({
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  }));
  return sdkLoading;
}
