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
//   connection and again on `notifications/tools/list_changed`, never per call, and only so long
//   (MCP_LISTING_LIMITS): the server does not decide how much the worker reads.
// * The SDK is loaded on first use, so workers that use no MCP server never load it.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { logLine } from '../log-line.js';
import { ToolRefused, ToolUnavailable } from '../tool-errors.js';
import { describeBindings, markBinding, type BindingReport, type BoundImplementation } from './bindings.js';
import {
  IDEMPOTENCY_KEY_META,
  type CallOptions,
  type McpReadbackFn,
  type McpSource,
  type McpSourceConfig,
  type McpSourceStatus,
  type McpToolFn,
  type ReadbackOptions,
  type ToolOptions,
} from './config.js';
import type { McpToolInfo } from './tool-info.js';
import { classifyMcpError, McpConfigError } from './errors.js';
import { contractDecides, declaresProperty, decodeReadback, loadSdk, outputOf } from './wire.js';

/**
 * How long a tool listing may be. A hostile or broken server can hand out a next cursor forever
 * (the shared connection would never finish loading) or a fresh tool name on every page (the
 * list would grow until the worker runs out of memory); past either bound, or on a cursor it sent
 * before, the listing fails as ToolUnavailable naming the server and the bound. Real servers list
 * tens of tools on a page or a few.
 */
export const MCP_LISTING_LIMITS = { pages: 50, tools: 1_000 } as const;

const sources = new Map<string, { fingerprint: string; source: McpSourceImpl }>();

/**
 * Ends every MCP connection in this process, keeping the sources usable: the agent plugin calls
 * it when the last worker it runs in the process stops, so no server child outlives the workers
 * that used it, and a worker started later in the same process simply connects again.
 */
export async function disconnectMcpSources(): Promise<void> {
  await Promise.all([...sources.values()].map(({ source }) => source.disconnect()));
}

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
    if (existing.fingerprint !== fingerprint)
      throw new McpConfigError(`an MCP source named ${config.name} already exists in this process with another configuration`);
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
    // A line may carry the server's own words (why a connection was dropped): logged as one line.
    const log = config.log ?? ((line: string) => console.warn(line));
    this.log = (line) => log(logLine(line));
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
        throw new ToolUnavailable(
          `MCP ${this.name} ${mcpTool}: cannot tell from this answer whether ${key} was applied: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`,
        );
      }
    };
    markBinding(fn, { source: this, mcpTool, role: 'readback', keyArg });
    return fn;
  }

  async call(mcpTool: string, args: Record<string, unknown>, options: CallOptions): Promise<unknown> {
    const where = `MCP ${this.name} ${mcpTool}`;
    let session: Session | undefined;
    let sent = false;
    try {
      session = await this.connect();
      const listed = await this.toolsOf(session);
      const tool = listed.get(mcpTool);
      if (!tool) {
        throw new ToolRefused(
          `the MCP server ${this.name} does not list a tool named ${mcpTool} (it lists ${[...listed.keys()].join(', ') || 'none'})`,
          'mcp_tool_not_listed',
        );
      }
      const key = options.idempotencyKey;
      // The engine's key wins over anything in the arguments: the server must dedupe on it.
      const callArgs = key && declaresProperty(tool, this.keyArgument) ? { ...args, [this.keyArgument]: key } : { ...args };
      this.counts.calls++;
      sent = true;
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
      // An effect's request once sent may have run, whatever comes back: a server that answers
      // "rejected" after doing the work, or an answer the SDK itself refuses (a result that does
      // not match the tool's listed outputSchema), leaves it open, to be read back by key.
      if (sent && options.isError === 'unknown' && ToolRefused.isInstance(error)) {
        throw new ToolUnavailable(`${where}: the server's answer to the sent request is an error (${error.message}); it may have run`);
      }
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

  /** Ends the connection (a stdio server is stopped) but not the source: the next call opens a new one. */
  async disconnect(): Promise<void> {
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
      transport = new sdk.StreamableHTTPClientTransport(
        new URL(this.config.url),
        this.config.headers ? { requestInit: { headers: this.config.headers } } : undefined,
      );
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
    const seen = new Set<string>();
    let cursor: string | undefined;
    // The server decides how many pages there are; these bounds decide how many we read.
    const tooLong = (why: string) => new ToolUnavailable(`MCP ${this.name} tools/list: ${why}; the listing is refused`);
    for (let pages = 1; ; pages++) {
      const page = await session.client.listTools(cursor ? { cursor } : undefined, { timeout: this.connectTimeoutMs });
      for (const tool of page.tools) {
        tools.set(tool.name, tool as McpToolInfo);
        if (tools.size > MCP_LISTING_LIMITS.tools) throw tooLong(`the server lists more than ${MCP_LISTING_LIMITS.tools} tools`);
      }
      cursor = page.nextCursor;
      if (!cursor) break;
      if (seen.has(cursor)) throw tooLong(`the server sent the cursor ${JSON.stringify(cursor.slice(0, 100))} a second time`);
      seen.add(cursor);
      if (pages >= MCP_LISTING_LIMITS.pages) throw tooLong(`the server still has a next page after ${MCP_LISTING_LIMITS.pages} pages`);
    }
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
