// One MCP incidents stack per test: a fresh server state file, an MCP source that spawns the
// example server over stdio, and an in-process worker for the example's own workflows module
// (bundled once per file) on a unique task queue of the shared test dev server. What the tests
// assert on is the server's own state file, read with readServerState.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { inject } from 'vitest';
import { readServerState, type ServerState } from '../../domains/mcp-incidents/state.js';
import {
  exampleServerCwd,
  exampleServerStdio,
  mcpIncidentsImplementation,
  type ExampleServerOptions,
} from '../../domains/mcp-incidents/worker-implementation.js';
import type { CommonConfig } from '../../activities/mcp/config.js';
import { bundleWorkflows } from '../../worker/bundle.js';
import { createAgentWorker, mcpSource, type McpSource } from '../../worker/public.js';
import { stateQuery, type RunView } from '../../workflows/messages.js';
import type { AgentWorkflow, RunInput, RunResult } from '../../workflows/public.js';
import { waitUntil } from '../support/wait.js';

export const mcpWorkflowsPath = fileURLToPath(new URL('../../domains/mcp-incidents/workflows.ts', import.meta.url));

export function bundleMcpIncidents(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflows(mcpWorkflowsPath);
}

/** Resolves with what the promise threw; fails the test if it did not throw. */
export async function thrown(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

/**
 * One of the tests' own MCP servers (test/fixtures/mcp-*.ts) over stdio, writing what it did to
 * a fresh file, and the source that spawns it; `lines()` reads that file, `close()` ends both.
 */
export function fixtureServerSource<T>(
  name: string,
  serverFile: string,
  env: (stateFile: string) => Record<string, string>,
  config: Omit<CommonConfig, 'name'> = {},
) {
  const dir = mkdtempSync(join(tmpdir(), `mcp-${name}-`));
  const stateFile = join(dir, 'served.jsonl');
  const source = mcpSource({
    name: `${name}-${randomUUID().slice(0, 8)}`,
    stdio: { command: process.execPath, args: ['--import', 'tsx', serverFile], cwd: exampleServerCwd, env: env(stateFile) },
    ...config,
  });
  const lines = (): T[] =>
    existsSync(stateFile)
      ? readFileSync(stateFile, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as T)
      : [];
  const close = async () => {
    await source.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { dir, source, lines, close };
}

/** A fresh state file and a source for the example server, without Temporal. */
export function startServerSource(server: Omit<ExampleServerOptions, 'stateFile'> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-test-'));
  const stateFile = join(dir, 'state.json');
  const logLines: string[] = [];
  const source = mcpSource({
    name: `incidents-mcp-${randomUUID().slice(0, 8)}`,
    stdio: exampleServerStdio({ stateFile, ...server }),
    log: (l) => logLines.push(l),
  });
  return {
    dir,
    stateFile,
    source,
    logLines,
    implementation: mcpIncidentsImplementation(source),
    /** What the server itself stored and received. */
    state: (): ServerState => readServerState(stateFile),
    async close() {
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface McpStack {
  client: Client;
  source: McpSource;
  implementation: ReturnType<typeof mcpIncidentsImplementation>;
  stateFile: string;
  state(): ServerState;
  run(run: Omit<RunInput, 'domain'>): Promise<{ result: RunResult; view: RunView; handle: WorkflowHandle<AgentWorkflow> }>;
  /** Stops the worker and waits for it, leaving the source as it is. */
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

export async function startMcpStack(
  bundle: WorkflowBundleWithSourceMap,
  server: Omit<ExampleServerOptions, 'stateFile'> = {},
  options: { toolTimeoutMs?: number } = {},
): Promise<McpStack> {
  const served = startServerSource(server);
  const taskQueue = `mcp-${randomUUID().slice(0, 8)}`;
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  const client = new Client({ connection, namespace: inject('temporalNamespace') });
  const workerConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const worker = await createAgentWorker({
    connection: workerConnection,
    namespace: inject('temporalNamespace'),
    taskQueue,
    workflowBundle: { code: bundle.code },
    implementations: [served.implementation],
    blobDir: join(served.dir, 'blobs'),
    toolTimeoutMs: options.toolTimeoutMs ?? 3_000,
  });
  const running = worker.run();
  return {
    client,
    source: served.source,
    implementation: served.implementation,
    stateFile: served.stateFile,
    state: served.state,
    async run(run) {
      const handle = await client.workflow.start<AgentWorkflow>('agentWorkflow', {
        taskQueue,
        workflowId: `mcp-incidents-${run.caseId}`,
        args: [{ run: { domain: 'mcp-incidents', ...run } }],
      });
      const result = await handle.result();
      const view = await handle.query(stateQuery);
      return { result, view, handle };
    },
    async stopWorker() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
    async close() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await served.close();
      await workerConnection.close();
      await connection.close();
    },
  };
}

export function uniqueIncident(): string {
  return `INC-${randomUUID().slice(0, 8)}`;
}

/** Polls until `check` is true. */
export async function until(check: () => boolean, what: string): Promise<void> {
  await waitUntil(check, what, { everyMs: 20 });
}
