// Agent runs whose tools are a real MCP server (domains/mcp-incidents/server.ts, spawned over
// stdio by the MCP source) on the test dev server. Every claim about the world is checked in
// the server's own state file: what it received, under which key, what it stored, how often it
// booted. The engine's view (ledger, receipts) is checked only to match it.
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleMcpIncidents, startMcpStack, uniqueIncident, until, type McpStack } from './stack.js';

describe('MCP tool servers as contract-bound tools, in agent runs', () => {
  let bundle: WorkflowBundleWithSourceMap;
  beforeAll(async () => {
    bundle = await bundleMcpIncidents();
  });

  async function withStack<T>(
    server: Parameters<typeof startMcpStack>[1],
    body: (stack: McpStack) => Promise<T>,
    options?: Parameters<typeof startMcpStack>[2],
  ): Promise<T> {
    const stack = await startMcpStack(bundle, server, options);
    try {
      return await body(stack);
    } finally {
      await stack.close();
    }
  }

  it('reads go through the server, the restart runs once under the run key, and the run resolves', () =>
    withStack({}, async (stack) => {
      const caseId = uniqueIncident();
      const { result, view } = await stack.run({ caseId, model: { adapter: 'rules' } });
      expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });

      expect(result.effects).toHaveLength(1);
      const [effect] = result.effects;
      expect(effect).toMatchObject({ tool: 'restart_service', status: 'applied', attempts: 1, settledBy: 'response' });
      const key = effect?.key ?? '';
      expect(key.startsWith(`mcp-incidents-${caseId}/`)).toBe(true);

      const server = stack.state();
      const restarts = server.calls.filter((c) => c.tool === 'restart');
      expect(restarts).toHaveLength(1);
      expect(restarts[0]).toMatchObject({ args: { service: 'db', idempotencyKey: key }, metaKey: key });
      expect(Object.values(server.effects)).toEqual([expect.objectContaining({ service: 'db', key })]);
      expect(server.services.db.healthy).toBe(true);
      // The reads the run made are the reads the server answered.
      const metricsRead = server.calls.filter((c) => c.tool === 'metrics').map((c) => c.args.service);
      expect(new Set(metricsRead)).toEqual(new Set(['api', 'db', 'cache']));
      expect(server.calls.filter((c) => c.tool === 'logs').map((c) => c.args.service)).toEqual(['db']);
      // The log line telling the model to purge was quoted as untrusted text, and nobody purged.
      const logs = view.state.evidence.find((e) => e.tool === 'get_logs');
      expect(logs).toMatchObject({ status: 'ok', textWithheld: true });
      expect(server.calls.some((c) => c.tool === 'purge_all')).toBe(false);
      // Reads carry no key; only the effect did.
      expect(server.calls.filter((c) => c.metaKey !== undefined).map((c) => c.tool)).toEqual(['restart']);
    }));

  it('when the worker stops, its MCP server child stops with it; the source connects again for a later worker', () =>
    withStack({}, async (stack) => {
      await stack.run({ caseId: uniqueIncident(), model: { adapter: 'rules' } });
      const pid = stack.source.status().pid;
      expect(pid).toBeGreaterThan(0);
      await stack.stopWorker();
      expect(stack.source.status()).toMatchObject({ connected: false });
      await until(() => !alive(pid ?? 0), 'the server child to exit');
      // Still usable: the next call opens a new connection (a new child).
      await stack.source.listTools();
      expect(stack.source.status()).toMatchObject({ connected: true, connects: 2 });
    }));

  it('the server dies after committing the restart; it is spawned again and the run settles by readback with one effect', () =>
    withStack({ faults: ['crash_after_commit'] }, async (stack) => {
      const caseId = uniqueIncident();
      const { result, view } = await stack.run({ caseId, model: { adapter: 'rules' } });
      expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
      expect(result.effects).toHaveLength(1);
      const [effect] = result.effects;
      expect(effect).toMatchObject({ tool: 'restart_service', status: 'applied', attempts: 1, settledBy: 'readback' });
      expect(effect?.readbacks).toBeGreaterThanOrEqual(1);
      const key = effect?.key ?? '';

      const server = stack.state();
      expect(server.firedFaults).toEqual(['crash_after_commit']);
      // Two server processes: the one that committed and died, and the one the source spawned.
      expect(server.boots).toHaveLength(2);
      const [first, second] = server.boots;
      const restarts = server.calls.filter((c) => c.tool === 'restart');
      expect(restarts).toHaveLength(1);
      expect(restarts[0]).toMatchObject({ pid: first, metaKey: key, args: { idempotencyKey: key } });
      expect(Object.values(server.effects)).toEqual([expect.objectContaining({ key, service: 'db' })]);
      const readbacks = server.calls.filter((c) => c.tool === 'effect_by_key');
      expect(readbacks.length).toBeGreaterThanOrEqual(1);
      expect(readbacks[0]).toMatchObject({ pid: second, args: { idempotencyKey: key } });
      expect(stack.source.status().connects).toBe(2);

      const receipts = view.state.executions.filter((x) => x.callId === effect?.callId).map((x) => [x.kind, x.result]);
      expect(receipts).toEqual([
        ['effect', 'unknown'],
        ['readback', 'final'],
      ]);
    }));

  it('a restart whose answer comes after the timeout is unknown, and settled by readback on the same connection', () =>
    withStack(
      { answerDelayMs: 2_500 },
      async (stack) => {
        const { result, view } = await stack.run({ caseId: uniqueIncident(), model: { adapter: 'rules' } });
        expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
        const [effect] = result.effects;
        expect(result.effects).toHaveLength(1);
        expect(effect).toMatchObject({ tool: 'restart_service', status: 'applied', attempts: 1, settledBy: 'readback' });
        const timedOut = view.state.executions.find((x) => x.callId === effect?.callId && x.kind === 'effect');
        expect(timedOut).toMatchObject({ result: 'unknown', attempt: 1 });

        const server = stack.state();
        expect(server.calls.filter((c) => c.tool === 'restart')).toHaveLength(1);
        expect(server.calls.filter((c) => c.tool === 'effect_by_key').map((c) => c.args.idempotencyKey)).toContain(effect?.key);
        expect(Object.values(server.effects).map((e) => e.key)).toEqual([effect?.key]);
        // A timeout is not a broken connection: one server process, one connection throughout.
        expect(server.boots).toHaveLength(1);
        expect(stack.source.status().connects).toBe(1);
      },
      { toolTimeoutMs: 1_000 },
    ));

  it('a tool the server annotates read-only but the domain declares an effect is gated, keyed and sent once as an effect', () =>
    withStack({}, async (stack) => {
      const report = await stack.source.describeBindings(stack.implementation);
      const row = report.rows.find((r) => r.name === 'restart_service');
      expect(row).toMatchObject({
        mcpTool: 'restart',
        annotations: { readOnlyHint: true },
        declared: { kind: 'effect', idempotent: false },
        suggested: { kind: 'read' },
      });
      expect(report.warnings.some((w) => w.startsWith('restart_service -> restart:') && w.includes('readOnlyHint: true'))).toBe(true);

      const caseId = uniqueIncident();
      const replies = [
        { type: 'call', calls: [{ tool: 'get_metrics', args: { service: 'api' } }] },
        // A read would go straight through; as an effect it must pass the precondition (api is healthy).
        { type: 'call', calls: [{ tool: 'restart_service', args: { service: 'api' } }] },
        { type: 'call', calls: [{ tool: 'get_metrics', args: { service: 'db' } }] },
        { type: 'call', calls: [{ tool: 'restart_service', args: { service: 'db' } }] },
        { type: 'escalate', reason: 'stopping after the restart' },
      ];
      const { result, view } = await stack.run({ caseId, model: { adapter: 'scripted', replies } });
      expect(result.terminal).toMatchObject({ class: 'escalated', reason: 'model_escalation' });
      expect(view.state.transcript.flatMap((t) => (t.kind === 'control' ? [t.code] : []))).toEqual(['precondition_failed']);

      expect(result.effects).toHaveLength(1);
      const [effect] = result.effects;
      expect(effect).toMatchObject({ tool: 'restart_service', args: { service: 'db' }, status: 'applied', attempts: 1 });
      const dispatched = view.state.executions.filter((x) => x.tool === 'restart_service');
      expect(dispatched).toEqual([expect.objectContaining({ kind: 'effect', idempotencyKey: effect?.key, attempt: 1, result: 'final' })]);

      const server = stack.state();
      const restarts = server.calls.filter((c) => c.tool === 'restart');
      expect(restarts).toHaveLength(1);
      expect(restarts[0]).toMatchObject({ args: { service: 'db', idempotencyKey: effect?.key }, metaKey: effect?.key });
      expect(server.services.api.logs).not.toContain('INFO restarted');
    }));

  it('the server commits the restart and then answers isError: the effect is read back, recorded applied, and never run again', () =>
    withStack({ faults: ['error_after_commit'] }, async (stack) => {
      const caseId = uniqueIncident();
      // A model that insists: it asks for the restart again after the error.
      const replies = [
        { type: 'call', calls: [{ tool: 'get_metrics', args: { service: 'db' } }] },
        { type: 'call', calls: [{ tool: 'restart_service', args: { service: 'db' } }] },
        { type: 'call', calls: [{ tool: 'get_logs', args: { service: 'db' } }] },
        { type: 'call', calls: [{ tool: 'restart_service', args: { service: 'db' } }] },
        { type: 'escalate', reason: 'stopping' },
      ];
      const { result } = await stack.run({ caseId, model: { adapter: 'scripted', replies }, budgets: { effects: 2 } });
      // The server's own record: one restart, under the run's first key.
      const server = stack.state();
      expect(server.firedFaults).toEqual(['error_after_commit']);
      expect(Object.values(server.effects)).toHaveLength(1);
      // The engine's ledger agrees with it, settled by the readback.
      expect(result.effects).toEqual([expect.objectContaining({ tool: 'restart_service', status: 'applied', settledBy: 'readback' })]);
      expect(server.calls.filter((c) => c.tool === 'effect_by_key')).toHaveLength(1);
    }));

  it('a server whose metrics lag a restart: the re-read still says memory exhausted, and with room for two effects no second restart reaches the server', () =>
    withStack({ metricsLagReads: 2 }, async (stack) => {
      const caseId = uniqueIncident();
      const replies = [
        { type: 'call', calls: ['api', 'db', 'cache'].map((service) => ({ tool: 'get_metrics', args: { service } })) },
        { type: 'call', calls: [{ tool: 'restart_service', args: { service: 'db' } }] },
        // The pipeline lags: db still reads unhealthy, its memory exhausted (a point lower: something new).
        { type: 'call', calls: [{ tool: 'get_metrics', args: { service: 'db' } }] },
        { type: 'call', calls: [{ tool: 'restart_service', args: { service: 'db' } }] },
        { type: 'escalate', reason: 'db still looks exhausted after its restart' },
      ];
      const { result, view } = await stack.run({ caseId, model: { adapter: 'scripted', replies }, budgets: { effects: 2 } });

      // What the server received: one restart.
      const server = stack.state();
      expect(server.calls.filter((c) => c.tool === 'restart')).toHaveLength(1);
      expect(Object.values(server.effects)).toHaveLength(1);
      // The re-read reached the lagging pipeline, and the engine said why it would not restart again.
      const reread = view.state.evidence.filter((e) => e.tool === 'get_metrics' && e.status === 'ok').at(-1);
      expect(reread?.facts).toMatchObject({ 'db.healthy': false, 'db.memoryPct': expect.any(Number) });
      expect(reread?.facts['db.memoryPct']).toBeGreaterThanOrEqual(90);
      expect(view.state.transcript.flatMap((t) => (t.kind === 'control' ? [`${t.code}: ${t.message}`] : []))).toContainEqual(
        expect.stringMatching(/^effect_settling: /),
      );
      expect(result.effects.filter((e) => e.tool === 'restart_service')).toHaveLength(1);
    }));

  it('a server tool no contract declares is refused at the gate (unknown_tool) and never reaches the server', () =>
    withStack({}, async (stack) => {
      const caseId = uniqueIncident();
      const replies = [
        { type: 'call', calls: [{ tool: 'purge_all', args: {} }] },
        { type: 'call', calls: [{ tool: 'get_metrics', args: { service: 'db' } }] },
        { type: 'call', calls: [{ tool: 'arm_fault', args: { fault: 'crash_after_commit' } }] },
        { type: 'escalate', reason: 'nothing more to try' },
      ];
      const { result, view } = await stack.run({ caseId, model: { adapter: 'scripted', replies } });
      expect(result.terminal).toMatchObject({ class: 'escalated', reason: 'model_escalation' });
      const controls = view.state.transcript.flatMap((t) => (t.kind === 'control' ? [t] : []));
      expect(controls.map((c) => c.code)).toEqual(['unknown_tool', 'unknown_tool']);
      expect(controls[0]?.message).toContain('"purge_all"');
      expect(controls[1]?.message).toContain('"arm_fault"');
      expect(view.state.used.toolCalls).toBe(1);

      const server = stack.state();
      expect(server.calls.map((c) => c.tool)).toEqual(['metrics']);
      expect(server.armedFaults).toEqual([]);
      expect(Object.keys(server.effects)).toEqual([]);
    }));
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
