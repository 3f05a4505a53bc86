// Runs the MCP incidents example end to end in one process: a Temporal server (a headless dev
// server started here, unless TEMPORAL_ADDRESS or a profile names one), a worker whose tools
// are the example MCP server's (spawned over stdio by the MCP source), and one run with the
// `rules` model. Prints how the contracts are bound to the server's tools, every turn, the
// run's terminal and what the server itself stored. Exits 0 only when the run is `resolved`.
//
//   npx tsx domains/mcp-incidents/run.ts            # the db's memory is exhausted: restart, verify, resolved
//   npx tsx domains/mcp-incidents/run.ts --crash    # the server dies after committing the restart: read back by key, resolved
//   npx tsx domains/mcp-incidents/run.ts --json     # one JSON line instead
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { renderRun } from '../../demo/render.js';
import { stderrLog } from '../../temporal-dev/log.js';
import { useTemporal } from '../../temporal-dev/target.js';
import { createAgentWorker, formatBindings, mcpSource } from '../../worker/public.js';
import type { AgentWorkflow } from '../../workflows/public.js';
// The run's whole state, for printing it as the demo does: internal, not the package's interface.
import { stateQuery } from '../../workflows/messages.js';
import { readServerState } from './state.js';
import { exampleServerStdio, mcpIncidentsImplementation } from './worker-implementation.js';

const { values } = parseArgs({
  options: { crash: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, state: { type: 'string' } },
  strict: true,
});
Runtime.install({ logger: new DefaultLogger('WARN') });
const out = (line: string) => process.stdout.write(`${line}\n`);

const scratch = mkdtempSync(join(tmpdir(), 'mcp-incidents-'));
const stateFile = values.state ?? join(scratch, 'server-state.json');
const target = await useTemporal({ headless: true, log: stderrLog });
const source = mcpSource({
  name: 'incidents-mcp',
  stdio: exampleServerStdio({ stateFile, ...(values.crash ? { faults: ['crash_after_commit' as const] } : {}) }),
  log: (line) => process.stderr.write(`${line}\n`),
});
const implementation = mcpIncidentsImplementation(source);
const connection = await Connection.connect(target.connectionOptions);
const client = new Client({ connection, namespace: target.namespace });
const workerConnection = await NativeConnection.connect(target.connectionOptions);
const taskQueue = `mcp-incidents-${Date.now().toString(36)}`;

let exitCode = 1;
try {
  const worker = await createAgentWorker({
    connection: workerConnection,
    namespace: target.namespace,
    taskQueue,
    workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
    implementations: [implementation],
    blobDir: join(scratch, 'blobs'),
    toolTimeoutMs: 3_000,
  });
  const report = await source.describeBindings(implementation);
  if (!values.json) for (const line of formatBindings(report)) out(line);

  const caseId = `INC-${Date.now().toString(36)}`;
  await worker.runUntil(async () => {
    const handle = await client.workflow.start<AgentWorkflow>('agentWorkflow', {
      taskQueue,
      workflowId: `mcp-incidents-${caseId}`,
      args: [{ run: { domain: 'mcp-incidents', caseId, model: { adapter: 'rules' } } }],
    });
    const result = await handle.result();
    const view = await handle.query(stateQuery);
    const server = readServerState(stateFile);
    const restarts = server.calls.filter((c) => c.tool === 'restart');
    if (values.json) {
      out(
        JSON.stringify({
          run: handle.workflowId,
          terminal: result.terminal.class,
          reason: result.terminal.reason,
          effects: result.effects.map((e) => ({ tool: e.tool, key: e.key, status: e.status, attempts: e.attempts, settledBy: e.settledBy })),
          server: { effects: Object.values(server.effects), restartCalls: restarts.length, boots: server.boots.length },
          bindingWarnings: report.warnings,
        }),
      );
    } else {
      out('');
      out(`run ${handle.workflowId} (model: rules${values.crash ? '; the server crashes after committing the restart' : ''})`);
      for (const line of renderRun(view.state)) out(line);
      out('');
      out(
        `the server (${stateFile}) stored ${Object.keys(server.effects).length} effect(s): ${
          Object.values(server.effects)
            .map((e) => `${e.service} under ${e.key}`)
            .join('; ') || 'none'
        }`,
      );
      out(`it received ${restarts.length} restart call(s) and booted ${server.boots.length} time(s)`);
      out(`terminal: ${result.terminal.class} (${result.terminal.reason})`);
    }
    exitCode = result.terminal.class === 'resolved' ? 0 : 1;
  });
} finally {
  await source.close();
  await workerConnection.close();
  await connection.close();
  await target.stop();
  if (!values.state) rmSync(scratch, { recursive: true, force: true });
}
process.exit(exitCode);
