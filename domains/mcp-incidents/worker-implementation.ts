// The activity side of the MCP incidents example: every contract is implemented by a tool of
// the MCP server, bound by name, and the readback by key goes through the server's
// `effect_by_key`. The server's other tools (purge_all, arm_fault, reveal) are bound to no
// contract, so the model is never offered them. Also how to start the example server: over
// stdio (spawned, and spawned again if it dies) or at a URL.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { implement, type McpSource, type StdioServer } from '../../worker/public.js';
import { mcpIncidents, Service } from './domain.js';
import { mcpIncidentsPolicy } from './policy.js';
import type { Fault, Scenario } from './state.js';

const SERVER = fileURLToPath(new URL('./server.ts', import.meta.url));
// `--import tsx` resolves from the child's working directory: the project root.
const PROJECT_ROOT = join(dirname(SERVER), '..', '..');

export interface ExampleServerOptions {
  /** The server's state file; created from the scenario if it does not exist. */
  stateFile: string;
  scenario?: Scenario;
  /** Armed at the server's first boot on this state file; each fires once. */
  faults?: Fault[];
  /** Tools registered disabled until `reveal` enables them. */
  hidden?: string[];
  /** `restart` commits at once but answers this much later. */
  answerDelayMs?: number;
  /** After a restart, this many metrics reads of the service still answer with what it measured before (a lagging pipeline). */
  metricsLagReads?: number;
}

/** How a worker spawns the example server over stdio. */
export function exampleServerStdio(options: ExampleServerOptions): StdioServer {
  return {
    command: process.execPath,
    args: ['--import', 'tsx', SERVER],
    cwd: PROJECT_ROOT,
    env: {
      MCP_INCIDENTS_STATE: options.stateFile,
      ...(options.scenario ? { MCP_INCIDENTS_SCENARIO: JSON.stringify(options.scenario) } : {}),
      ...(options.faults?.length ? { MCP_INCIDENTS_FAULT: options.faults.join(',') } : {}),
      ...(options.hidden?.length ? { MCP_INCIDENTS_HIDDEN: options.hidden.join(',') } : {}),
      ...(options.answerDelayMs ? { MCP_INCIDENTS_ANSWER_DELAY_MS: String(options.answerDelayMs) } : {}),
      ...(options.metricsLagReads ? { MCP_INCIDENTS_METRICS_LAG_READS: String(options.metricsLagReads) } : {}),
    },
  };
}

/** The example server's command line for HTTP (`--http`), for a process you start yourself. */
export const exampleServerHttpArgs = (port = 0) => ['--import', 'tsx', SERVER, '--http', '--port', String(port)];
export { PROJECT_ROOT as exampleServerCwd };

/** The domain's implementation on the given MCP source: one source (one connection) per worker process. */
export function mcpIncidentsImplementation(source: McpSource) {
  return implement(mcpIncidents).with({
    tools: {
      get_metrics: source.tool('metrics'),
      get_logs: source.tool('logs'),
      // An effect because the contract says so; the server's readOnlyHint: true is reported, not believed.
      restart_service: source.tool('restart'),
    },
    readbacks: {
      effect_by_key: source.readback('effect_by_key', { keyArg: 'idempotencyKey' }),
    },
    // Model-independent: every service's metrics, read from the server now.
    async probe(_claim, ctx) {
      const readings = await Promise.all(
        Service.options.map(async (service) => {
          const m = (await source.call('metrics', { service }, { timeoutMs: ctx.timeoutMs, ...(ctx.signal ? { signal: ctx.signal } : {}) })) as {
            healthy?: unknown;
          };
          return { service, healthy: m.healthy === true };
        }),
      );
      const degraded = readings.filter((r) => !r.healthy).map((r) => r.service);
      return {
        holds: degraded.length === 0,
        conflict: false,
        decided: true,
        detail: degraded.length ? `degraded: ${degraded.join(', ')}` : 'all services healthy',
        facts: { 'verify.healthy': degraded.length === 0, 'verify.degraded': degraded.join(',') },
      };
    },
    policy: mcpIncidentsPolicy,
  });
}
