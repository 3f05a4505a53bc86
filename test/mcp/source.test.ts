// The MCP source on its own, against the real example server (stdio and streamable HTTP): one
// connection per process and one tool listing per connection, the key in `_meta` and in the
// arguments, isError as a definite refusal, unlisted tools refused by name, the list refreshed
// on list_changed, a dead server spawned again, a timeout left open for the readback, and the
// report that puts the domain's declarations beside the server's annotations. What the server
// received and stored is read from its own state file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { getLogs, getMetrics, restartService } from '../../domains/mcp-incidents/domain.js';
import { readServerState } from '../../domains/mcp-incidents/state.js';
import { exampleServerCwd, exampleServerHttpArgs, mcpIncidentsImplementation } from '../../domains/mcp-incidents/worker-implementation.js';
import { McpConfigError } from '../../activities/mcp/index.js';
import { formatBindings, mcpSource, ToolRefused, ToolUnavailable } from '../../worker/public.js';
import { startServerSource, thrown, until } from './stack.js';

const ctx = (extra: { idempotencyKey?: string; timeoutMs?: number } = {}) => ({ caseId: 'INC-1', deps: undefined, timeoutMs: 60_000, ...extra });

describe('the MCP source over stdio', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });
  const served = (options?: Parameters<typeof startServerSource>[0]) => {
    const s = startServerSource(options);
    cleanups.push(s.close);
    return s;
  };

  it('serves concurrent reads over one connection and one tool listing, in shapes the contracts accept', async () => {
    const s = served();
    const { tools } = s.implementation;
    const answers = await Promise.all([
      ...(['api', 'db', 'cache'] as const).flatMap((service) => [tools.get_metrics({ service }, ctx()), tools.get_metrics({ service }, ctx())]),
      tools.get_logs({ service: 'db', limit: 2 }, ctx()),
    ]);
    // Structured content (metrics) and JSON text (logs) both parse under the contracts.
    expect(answers.slice(0, 6).map((a) => getMetrics.output.parse(a).service)).toEqual(['api', 'api', 'db', 'db', 'cache', 'cache']);
    expect(getLogs.output.parse(answers[6]).lines).toHaveLength(2);
    expect(getMetrics.output.parse(answers[2])).toMatchObject({ healthy: false, memoryPct: 96 });

    await tools.get_metrics({ service: 'db' }, ctx());
    expect(s.source.status()).toMatchObject({ connects: 1, listings: 1, calls: 8 });
    const server = s.state();
    expect(server.boots).toHaveLength(1);
    expect(server.calls).toHaveLength(8);
  });

  it('sends the key in _meta and as the argument; the server applies one effect per key; isError is a definite refusal', async () => {
    const s = served();
    const restart = s.implementation.tools.restart_service;
    const first = restartService.output.parse(await restart({ service: 'db' }, ctx({ idempotencyKey: 'run-1/c3/restart_service' })));
    const again = restartService.output.parse(await restart({ service: 'db' }, ctx({ idempotencyKey: 'run-1/c3/restart_service' })));
    expect(again.effectId).toBe(first.effectId);

    // Without a key (as for a read) the server says no before its handler runs: a refusal with its own words.
    const refused = await thrown(restart({ service: 'cache' }, ctx()));
    expect(refused).toBeInstanceOf(ToolRefused);
    expect((refused as ToolRefused).code).toBe('mcp_tool_error');
    expect(refused.message).toContain('idempotencyKey');

    const noSuchTool = await thrown(s.source.call('reveal', { tool: 'nope' }, { timeoutMs: 60_000 }));
    expect(noSuchTool).toBeInstanceOf(ToolRefused);
    expect(noSuchTool.message).toContain('no tool nope');
    // For a server whose errors may come after a commit, the author can make them unknown instead.
    expect(await thrown(s.source.tool('reveal', { isError: 'unknown' })({ tool: 'nope' }, ctx({ idempotencyKey: 'k-x' })))).toBeInstanceOf(ToolUnavailable);

    const server = s.state();
    const restarts = server.calls.filter((c) => c.tool === 'restart');
    expect(restarts.map((c) => [c.metaKey, c.args.idempotencyKey])).toEqual([
      ['run-1/c3/restart_service', 'run-1/c3/restart_service'],
      ['run-1/c3/restart_service', 'run-1/c3/restart_service'],
    ]);
    expect(Object.keys(server.effects)).toEqual(['run-1/c3/restart_service']);
    expect(server.services.cache.logs).not.toContain('INFO restarted');
  });

  it('refuses a tool the server does not list, by name, and picks up a new list on list_changed', async () => {
    const s = served({ hidden: ['restart'] });
    const restart = s.implementation.tools.restart_service;
    const refused = await thrown(restart({ service: 'db' }, ctx({ idempotencyKey: 'k-hidden' })));
    expect(refused).toBeInstanceOf(ToolRefused);
    expect((refused as ToolRefused).code).toBe('mcp_tool_not_listed');
    expect(refused.message).toContain('named restart');
    expect(s.state().calls.map((c) => c.tool)).toEqual([]);

    await s.source.call('reveal', { tool: 'restart' }, { timeoutMs: 60_000 });
    await until(() => s.source.status().listings === 2, 'the refreshed tool list');
    expect(s.source.status().listChangedNotifications).toBe(1);
    expect(restartService.output.parse(await restart({ service: 'db' }, ctx({ idempotencyKey: 'k-hidden' }))).service).toBe('db');
    await s.implementation.tools.get_metrics({ service: 'db' }, ctx());
    // Still the two listings: one at connect, one on the notification; none per call.
    expect(s.source.status()).toMatchObject({ connects: 1, listings: 2 });
    expect(Object.keys(s.state().effects)).toEqual(['k-hidden']);
  });

  it('makes a crash after commit unavailable (never refused), spawns the server again, and the readback finds the effect', async () => {
    const s = served({ faults: ['crash_after_commit'] });
    const { tools, readbacks } = s.implementation;
    const lost = await thrown(tools.restart_service({ service: 'db' }, ctx({ idempotencyKey: 'k-crash' })));
    expect(lost).toBeInstanceOf(ToolUnavailable);
    expect(lost.message).toContain('closed before it answered');

    const found = await readbacks.effect_by_key('k-crash', ctx());
    expect(found.applied).toBe(true);
    expect(restartService.output.parse(found.output)).toMatchObject({ service: 'db' });
    expect(await readbacks.effect_by_key('k-other', ctx())).toEqual({ applied: false });

    const server = s.state();
    expect(server.boots).toHaveLength(2);
    expect(server.calls.filter((c) => c.tool === 'restart').map((c) => c.pid)).toEqual([server.boots[0]]);
    expect(s.source.status().connects).toBe(2);

    // A server killed from outside is spawned again by the next call, too.
    const pid = s.source.status().pid ?? 0;
    expect(pid).toBe(server.boots[1]);
    process.kill(pid, 'SIGKILL');
    await until(() => !s.source.status().connected, 'the source to notice');
    expect(getMetrics.output.parse(await tools.get_metrics({ service: 'db' }, ctx())).healthy).toBe(true);
    expect(s.state().boots).toHaveLength(3);
    expect(s.logLines.some((l) => l.includes('connection closed'))).toBe(true);
  });

  it('leaves an effect whose answer is late unavailable (timed out) on a connection that stays up', async () => {
    const s = served({ answerDelayMs: 1_500 });
    const late = await thrown(s.implementation.tools.restart_service({ service: 'db' }, ctx({ idempotencyKey: 'k-late', timeoutMs: 300 })));
    expect(late).toBeInstanceOf(ToolUnavailable);
    expect((late as ToolUnavailable).timedOut).toBe(true);
    expect((await s.implementation.readbacks.effect_by_key('k-late', ctx())).applied).toBe(true);
    expect(s.source.status()).toMatchObject({ connects: 1, connected: true });
  });

  it('reports the declarations beside the annotations, warns where they disagree, and lists what the model is never offered', async () => {
    const s = served();
    const report = await s.source.describeBindings(s.implementation);
    expect(report.rows.map((r) => [r.name, r.mcpTool, r.role])).toEqual([
      ['get_metrics', 'metrics', 'tool'],
      ['get_logs', 'logs', 'tool'],
      ['restart_service', 'restart', 'tool'],
      ['effect_by_key', 'effect_by_key', 'readback'],
    ]);
    expect(report.undeclared).toEqual(['arm_fault', 'purge_all', 'reveal']);
    expect(report.warnings).toHaveLength(1);
    expect(report.warnings[0]).toMatch(
      /^restart_service -> restart: the server annotates it read-only \(readOnlyHint: true\) but the domain declares an effect/,
    );
    expect(report.rows.find((r) => r.name === 'restart_service')).toMatchObject({ keyArgument: true, suggested: { kind: 'read', idempotent: true } });

    // Bound to a tool the server does not have: said so, before any run calls it.
    const miswired = { ...s.implementation, tools: { ...s.implementation.tools, get_logs: s.source.tool('log_lines') } };
    const second = await s.source.describeBindings(miswired);
    expect(second.rows.find((r) => r.name === 'get_logs')).toMatchObject({ listed: false });
    expect(second.undeclared).toContain('logs');
    const lines = formatBindings(second);
    expect(lines.filter((l) => l.includes('WARNING'))).toHaveLength(2);
    expect(lines.at(-1)).toBe('  never offered to the model (no contract): arm_fault, logs, purge_all, reveal');
  });

  it('keeps one source per name and configuration, refuses a muddled configuration, and is unavailable once closed', async () => {
    expect(() => mcpSource({ name: 'nothing' } as never)).toThrow(McpConfigError);
    expect(() => mcpSource({ name: 'both', url: 'http://127.0.0.1:1/mcp', stdio: { command: 'x' } } as never)).toThrow(McpConfigError);
    const a = mcpSource({ name: 'twice', url: 'http://127.0.0.1:1/mcp' });
    expect(mcpSource({ name: 'twice', url: 'http://127.0.0.1:1/mcp' })).toBe(a);
    expect(() => mcpSource({ name: 'twice', url: 'http://127.0.0.1:2/mcp' })).toThrow(McpConfigError);
    await a.close();
    expect(await thrown(a.call('metrics', {}, { timeoutMs: 100 }))).toBeInstanceOf(ToolUnavailable);
    // Closing frees the name.
    const b = mcpSource({ name: 'twice', url: 'http://127.0.0.1:2/mcp' });
    expect(b).not.toBe(a);
    await b.close();
  });
});

describe('the MCP source over streamable HTTP', () => {
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
  });

  /** Starts the example server with --http; resolves with its URL. */
  function startHttpServer(stateFile: string, port = 0): Promise<{ url: string; child: ChildProcess }> {
    const child = spawn(process.execPath, exampleServerHttpArgs(port), {
      cwd: exampleServerCwd,
      env: { ...process.env, MCP_INCIDENTS_STATE: stateFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let err = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-2_000)));
    return new Promise((resolve, reject) => {
      let out = '';
      child.stdout?.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const match = /MCP_READY (\S+)/.exec(out);
        if (match?.[1]) resolve({ url: match[1], child });
      });
      child.once('exit', (code) => reject(new Error(`the HTTP server exited ${code}: ${err}`)));
    });
  }

  it('reads, keys an effect, reads it back, and reconnects to a server that came back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-http-'));
    const stateFile = join(dir, 'state.json');
    const { url, child } = await startHttpServer(stateFile);
    const logLines: string[] = [];
    const source = mcpSource({ name: `incidents-http-${process.pid}`, url, log: (l) => logLines.push(l) });
    try {
      const { tools, readbacks } = mcpIncidentsImplementation(source);
      expect(getMetrics.output.parse(await tools.get_metrics({ service: 'db' }, ctx())).memoryPct).toBe(96);
      await tools.restart_service({ service: 'db' }, ctx({ idempotencyKey: 'k-http' }));

      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      const down = await thrown(tools.get_metrics({ service: 'db' }, ctx()));
      expect(down).toBeInstanceOf(ToolUnavailable);

      // Back on the same port and state file: the next call connects again.
      await startHttpServer(stateFile, Number(new URL(url).port));
      expect((await readbacks.effect_by_key('k-http', ctx())).applied).toBe(true);
      expect(source.status().connects).toBe(2);

      const server = readServerState(stateFile);
      expect(server.calls.filter((c) => c.tool === 'restart').map((c) => [c.metaKey, c.args.idempotencyKey])).toEqual([['k-http', 'k-http']]);
      expect(Object.keys(server.effects)).toEqual(['k-http']);
    } finally {
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
