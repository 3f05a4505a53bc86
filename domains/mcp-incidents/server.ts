// A real MCP tool server for the incidents example, written with the MCP SDK as any team would
// write one: incident tools over a small file-backed state (state.ts), served over stdio (the
// default) or streamable HTTP (`--http [--port N]`, bound to 127.0.0.1). It is deliberately not
// a well-behaved server, so the engine's guarantees can be shown against it:
//
// * `restart` is annotated `readOnlyHint: true`, which is a lie: it restarts a service.
// * `purge_all` (drops every stored effect), `arm_fault` and `reveal` exist on the server but
//   in no contract; the model must never be able to reach them.
// * `arm_fault crash_after_commit` (or MCP_INCIDENTS_FAULT=crash_after_commit at boot) makes the
//   next `restart` commit its effect, persist it and then kill the process before answering.
//   A fault fires at most once per state file, so the server started again behaves.
// * `arm_fault error_after_commit` makes the next `restart` commit and persist its effect, then
//   answer `isError: true`, as a server whose handler fails after the work is done.
// * MCP_INCIDENTS_ANSWER_DELAY_MS=N makes `restart` commit and persist at once but answer only
//   after N ms: a client that gives up first does not know the effect happened.
// * MCP_INCIDENTS_HIDDEN=restart,... registers tools disabled; `reveal` enables one, and the
//   server sends notifications/tools/list_changed.
//
// Environment: MCP_INCIDENTS_STATE (the state file, required), MCP_INCIDENTS_SCENARIO (JSON
// overrides of the initial services), MCP_INCIDENTS_FAULT, MCP_INCIDENTS_ANSWER_DELAY_MS,
// MCP_INCIDENTS_HIDDEN.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { Service } from './domain.js';
import { Fault, loadState, saveState, Scenario, type ServerState, type StoredEffect } from './state.js';

/** Where a client puts an effect's idempotency key in `_meta` (the engine's IDEMPOTENCY_KEY_META). */
const META_KEY = 'io.temporal.agent/idempotencyKey';

const stateFile = process.env.MCP_INCIDENTS_STATE;
if (!stateFile) {
  process.stderr.write('MCP_INCIDENTS_STATE must name the state file\n');
  process.exit(2);
}
const scenario = Scenario.parse(JSON.parse(process.env.MCP_INCIDENTS_SCENARIO || '{}'));
const state: ServerState = loadState(stateFile, scenario);
state.boots.push(process.pid);
for (const fault of (process.env.MCP_INCIDENTS_FAULT ?? '').split(',').filter(Boolean)) {
  const f = Fault.parse(fault);
  if (!state.firedFaults.includes(f) && !state.armedFaults.includes(f)) state.armedFaults.push(f);
}
saveState(stateFile, state);
const hidden = new Set((process.env.MCP_INCIDENTS_HIDDEN ?? '').split(',').filter(Boolean));
const answerDelayMs = Number(process.env.MCP_INCIDENTS_ANSWER_DELAY_MS ?? 0);
// A metrics pipeline that lags: after a restart, this many reads of the service still answer
// with what it measured before it, memory easing off by a point a read (in memory: the lag is
// this process's, as a real one's would be).
const metricsLagReads = Number(process.env.MCP_INCIDENTS_METRICS_LAG_READS ?? 0);
const lagging = new Map<string, { before: (typeof state.services)[keyof typeof state.services]; reads: number }>();

const persist = () => saveState(stateFile, state);
const json = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
const structured = (value: Record<string, unknown>): CallToolResult => ({ ...json(value), structuredContent: value });
const refuse = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** Every call is written down before it runs: the tests read this log, not the engine's. */
function received(tool: string, args: Record<string, unknown>, meta: Record<string, unknown> | undefined): void {
  const metaKey = typeof meta?.[META_KEY] === 'string' ? meta[META_KEY] : undefined;
  state.calls.push({ seq: state.calls.length + 1, at: new Date().toISOString(), tool, args, ...(metaKey ? { metaKey } : {}), pid: process.pid });
  persist();
}

function buildServer(): McpServer {
  const server = new McpServer({ name: 'incidents-mcp', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  const registered = new Map<string, RegisteredTool>();

  registered.set(
    'metrics',
    server.registerTool(
      'metrics',
      {
        description: 'Current error rate, p99 latency, memory use and health of one service.',
        inputSchema: { service: Service },
        outputSchema: { service: Service, errorRate: z.number(), latencyP99Ms: z.number(), memoryPct: z.number(), healthy: z.boolean(), asOf: z.string() },
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      (args, extra) => {
        received('metrics', args, extra._meta);
        const lag = lagging.get(args.service);
        const stale = lag !== undefined && lag.reads > 0;
        if (stale) lag.reads--;
        const s = stale ? { ...lag.before, memoryPct: lag.before.memoryPct - (metricsLagReads - lag.reads) } : state.services[args.service];
        return structured({
          service: args.service,
          errorRate: s.errorRate,
          latencyP99Ms: s.latencyP99Ms,
          memoryPct: s.memoryPct,
          healthy: s.healthy,
          asOf: new Date().toISOString(),
        });
      },
    ),
  );

  // No output schema: the answer is JSON in a text block, as many servers write it.
  registered.set(
    'logs',
    server.registerTool(
      'logs',
      {
        description: 'Recent log lines of one service.',
        inputSchema: { service: Service, limit: z.number().int().min(1).max(50).optional() },
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      (args, extra) => {
        received('logs', args, extra._meta);
        return json({ service: args.service, lines: state.services[args.service].logs.slice(-(args.limit ?? 10)), asOf: new Date().toISOString() });
      },
    ),
  );

  registered.set(
    'restart',
    server.registerTool(
      'restart',
      {
        description: 'Restart one service. Applied at most once per idempotency key.',
        inputSchema: { service: Service, idempotencyKey: z.string().min(1).max(300) },
        outputSchema: { effectId: z.string(), service: Service, appliedAt: z.string() },
        // Deliberately wrong: a restart changes the world. The engine must not believe it.
        annotations: { title: 'Restart a service', readOnlyHint: true, openWorldHint: false },
      },
      async (args, extra) => {
        received('restart', args, extra._meta);
        const metaKey = extra._meta?.[META_KEY];
        if (typeof metaKey === 'string' && metaKey !== args.idempotencyKey)
          return refuse(`the idempotency key in _meta (${metaKey}) differs from the argument (${args.idempotencyKey})`);
        const done = state.effects[args.idempotencyKey];
        if (done) return structured(effectView(done));
        const effect: StoredEffect = {
          effectId: `fx-${Object.keys(state.effects).length + 1}`,
          service: args.service,
          appliedAt: new Date().toISOString(),
          key: args.idempotencyKey,
        };
        state.effects[args.idempotencyKey] = effect;
        if (metricsLagReads > 0) lagging.set(args.service, { before: state.services[args.service], reads: metricsLagReads });
        state.services[args.service] = {
          ...state.services[args.service],
          healthy: true,
          memoryPct: 32,
          errorRate: 0.001,
          latencyP99Ms: 90,
          logs: [...state.services[args.service].logs, 'INFO restarted'],
        };
        persist();
        if (state.armedFaults.includes('crash_after_commit')) {
          // Committed and on disk; now die before the answer leaves.
          state.armedFaults = state.armedFaults.filter((f) => f !== 'crash_after_commit');
          state.firedFaults.push('crash_after_commit');
          persist();
          process.stderr.write(`incidents-mcp ${process.pid}: crash_after_commit fired after ${args.idempotencyKey}\n`);
          process.kill(process.pid, 'SIGKILL');
        }
        if (state.armedFaults.includes('error_after_commit')) {
          // Committed and on disk; now answer as a handler that failed late would: isError.
          state.armedFaults = state.armedFaults.filter((f) => f !== 'error_after_commit');
          state.firedFaults.push('error_after_commit');
          persist();
          return refuse('internal error while reporting the restart');
        }
        if (answerDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, answerDelayMs));
        return structured(effectView(effect));
      },
    ),
  );

  registered.set(
    'effect_by_key',
    server.registerTool(
      'effect_by_key',
      {
        description: 'The effect stored under an idempotency key, if any.',
        inputSchema: { idempotencyKey: z.string().min(1).max(300) },
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      (args, extra) => {
        received('effect_by_key', args, extra._meta);
        const effect = state.effects[args.idempotencyKey];
        return structured(effect ? { applied: true, effect: effectView(effect) } : { applied: false });
      },
    ),
  );

  registered.set(
    'purge_all',
    server.registerTool(
      'purge_all',
      {
        description: 'Drop every stored effect record. Irreversible.',
        inputSchema: {},
        annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
      },
      (_args, extra) => {
        received('purge_all', {}, extra._meta);
        state.effects = {};
        persist();
        return json({ purged: true });
      },
    ),
  );

  registered.set(
    'arm_fault',
    server.registerTool(
      'arm_fault',
      {
        description: 'Test control: arm a fault (crash_after_commit: the next restart commits, then the server dies before answering).',
        inputSchema: { fault: Fault },
        annotations: { readOnlyHint: false, openWorldHint: false },
      },
      (args, extra) => {
        received('arm_fault', args, extra._meta);
        if (!state.armedFaults.includes(args.fault)) state.armedFaults.push(args.fault);
        state.firedFaults = state.firedFaults.filter((f) => f !== args.fault);
        persist();
        return json({ armed: state.armedFaults });
      },
    ),
  );

  registered.set(
    'reveal',
    server.registerTool(
      'reveal',
      {
        description: 'Test control: enable a tool registered hidden (the server announces the new tool list).',
        inputSchema: { tool: z.string() },
        annotations: { readOnlyHint: false, openWorldHint: false },
      },
      (args, extra) => {
        received('reveal', args, extra._meta);
        const tool = registered.get(args.tool);
        if (!tool) return refuse(`no tool ${args.tool}`);
        hidden.delete(args.tool);
        tool.enable();
        return json({ revealed: args.tool });
      },
    ),
  );

  for (const name of hidden) registered.get(name)?.disable();
  return server;
}

function effectView(e: StoredEffect) {
  return { effectId: e.effectId, service: e.service, appliedAt: e.appliedAt };
}

const httpFlag = process.argv.includes('--http');
if (httpFlag) {
  const portArg = process.argv[process.argv.indexOf('--port') + 1];
  const port = process.argv.includes('--port') && portArg ? Number(portArg) : 0;
  // Stateless streamable HTTP: a fresh server and transport per request, one shared state.
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || !req.url?.startsWith('/mcp')) {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    let body = '';
    for await (const chunk of req) body += String(chunk);
    const server = buildServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, JSON.parse(body || 'null'));
  };
  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      process.stderr.write(`incidents-mcp: ${err instanceof Error ? err.message : String(err)}\n`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  http.listen(port, '127.0.0.1', () => {
    const address = http.address();
    process.stdout.write(`MCP_READY http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}/mcp\n`);
  });
  process.on('SIGTERM', () => http.close(() => process.exit(0)));
} else {
  // stdout is the protocol: nothing else may be written to it.
  await buildServer().connect(new StdioServerTransport());
  process.stdin.once('end', () => process.exit(0));
}
