// The bench's shared machinery: one in-process worker (bench bundle, the agent's real
// activities plus the bare ones), a client, helpers to run batches of agent or bare runs, and
// readers over Temporal's own accounting of histories (events, bytes, payloads).
import { syntheticImplementation } from '../domains/synthetic/tools.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import type { ProposeInput } from '../activities/model/index.js';
import type { TemporalTarget } from '../temporal-dev/target.js';
import { bundleWorkflows, BUNDLER_OPTIONS, quietBundlerLogger } from '../worker/bundle.js';
import type { RunResult } from '../workflows/messages.js';
import type { RunInput } from '../workflows/run-input.js';
import { startSearchAttributes } from '../workflows/search-attributes.js';
import { bareActivities } from './bare-activities.js';
import { bareTurnsOf, simulateRun } from './shape.js';
import { agentWorkflow } from './agent-workflows.js';
import { bareWorkflow, type BareTurn } from './bare-workflows.js';

export const agentWorkflowsPath = fileURLToPath(new URL('./agent-workflows.ts', import.meta.url));
export const bareWorkflowsPath = fileURLToPath(new URL('./bare-workflows.ts', import.meta.url));

export const WORKER_OPTIONS = {
  // 200 runs at once must all stay cached (sticky): an evicted run replays its whole history
  // on its next task, which would measure replay instead of the engine.
  maxCachedWorkflows: 1_000,
  // Slots beyond what two cores can work through only move the queue into the worker, where
  // waiting counts against the workflow task timeout (10 s) and the agent activities' 5 s
  // heartbeat timeout. Measured with 200 runs: at 200/400 slots Core warned of workflow tasks
  // over 5 s; at 40/100 none, at the same throughput. The rest waits on the server's queues.
  maxConcurrentWorkflowTaskExecutions: 40,
  maxConcurrentActivityTaskExecutions: 100,
} as const;

export interface Bench {
  client: Client;
  taskQueue: string;
  /** Wall-clock time of every `propose` call, per case id (the id given to runAgent), for the ids being tracked. */
  proposeTimes: Map<string, number[]>;
  /** Agent run of the synthetic domain for case `id` (workflow id `synthetic-<id>`); resolves when it ends (all its executions). */
  runAgent(id: string, run: Omit<RunInput, 'domain' | 'caseId'>): Promise<Finished<RunResult>>;
  /** Bare baseline run replaying the given turn shapes. */
  runBare(workflowId: string, turns: BareTurn[]): Promise<Finished<{ turns: number }>>;
  /** The bare turn shapes matching an agent rules run of `turns` turns (cached per length). */
  bareShapeFor(turns: number): Promise<BareTurn[]>;
  close(): Promise<void>;
}

export interface Finished<T> {
  result: T;
  workflowId: string;
  firstRunId: string;
  ms: number;
}

export async function startBench(target: TemporalTarget): Promise<Bench> {
  // Warnings only: the bench prints its own table and a worker's info logs would drown it.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await Connection.connect(target.connectionOptions);
  const client = new Client({ connection, namespace: target.namespace });
  const workerConnection = await NativeConnection.connect(target.connectionOptions);
  const taskQueue = `bench-${process.pid}-${Date.now().toString(36)}`;

  const agent = createActivities({ implementations: [syntheticImplementation], blobDir: join(tmpdir(), 'agent-bench-blobs') });
  const proposeTimes = new Map<string, number[]>();
  // Agent and baseline each on a worker of their own, with the same options, in this one
  // process (so the process's CPU time covers both): the baseline's bundle holds nothing of the engine.
  const benchWorker = async (queue: string, workflowBundle: WorkflowBundleWithSourceMap, activities: object) =>
    Worker.create({
      connection: workerConnection,
      namespace: target.namespace,
      taskQueue: queue,
      workflowBundle,
      activities,
      ...WORKER_OPTIONS,
      shutdownGraceTime: '5 seconds',
    });
  const worker = await benchWorker(taskQueue, await bundleWorkflows(agentWorkflowsPath), {
    ...agent,
    // The same activity, stamped: the worker is in this process, so the stamps are the
    // run's turn clock without any query or history read.
    async propose(input: ProposeInput) {
      proposeTimes.get(input.caseId)?.push(Date.now());
      return agent.propose(input);
    },
  });
  const bareTaskQueue = `${taskQueue}-bare`;
  const bareWorker = await benchWorker(bareTaskQueue, await bareBundle(), bareActivities);
  const running = Promise.all([worker.run(), bareWorker.run()]);

  const shapes = new Map<number, Promise<BareTurn[]>>();
  const timed = async <T>(handle: WorkflowHandleWithFirstExecutionRunId, started: number): Promise<Finished<T>> => {
    const result = (await handle.result()) as T;
    return { result, workflowId: handle.workflowId, firstRunId: handle.firstExecutionRunId, ms: Date.now() - started };
  };

  return {
    client,
    taskQueue,
    proposeTimes,
    async runAgent(workflowId, run) {
      const started = Date.now();
      // The given id names the case; the workflow id must be the case's (workflows/run-identity.ts).
      const caseId = workflowId.slice(-80);
      const handle = await client.workflow.start(agentWorkflow, {
        taskQueue,
        workflowId: `synthetic-${caseId}`,
        args: [{ run: { domain: 'synthetic', caseId, ...run } }],
        // As AgentClient starts a run (client/start-run.ts): findable from the start.
        typedSearchAttributes: startSearchAttributes({ domain: 'synthetic', caseId }),
      });
      return timed<RunResult>(handle, started);
    },
    async runBare(workflowId, turns) {
      const started = Date.now();
      const handle = await client.workflow.start(bareWorkflow, { taskQueue: bareTaskQueue, workflowId, args: [{ turns }] });
      return timed<{ turns: number }>(handle, started);
    },
    bareShapeFor(turns) {
      let shape = shapes.get(turns);
      if (!shape) {
        shape = simulateRun({ turns }).then(bareTurnsOf);
        shapes.set(turns, shape);
      }
      return shape;
    },
    async close() {
      worker.shutdown();
      bareWorker.shutdown();
      await running;
      await workerConnection.close();
      await connection.close();
    },
  };
}

/**
 * The baseline as a workflow written directly on Temporal would be bundled: compiled to the same
 * JavaScript (ES2022, see worker/bundle.ts), without the engine's preloaded modules (zod, the
 * Ed25519 code, the schema cache). Until 2026-12-01 (evening) it was bundled with them.
 */
function bareBundle(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: bareWorkflowsPath, webpackConfigHook: BUNDLER_OPTIONS.webpackConfigHook, logger: quietBundlerLogger });
}

/** Starts `count` runs at once and waits for all of them; wall time covers starts and ends. */
export async function batch<T>(count: number, start: (i: number) => Promise<Finished<T>>): Promise<{ ms: number; runs: Finished<T>[] }> {
  const began = Date.now();
  const runs = await Promise.all(Array.from({ length: count }, (_, i) => start(i)));
  return { ms: Date.now() - began, runs };
}

// ---------------------------------------------------------------- histories

export interface ExecutionFigures {
  runId: string;
  /** Events in this execution's history (Temporal's own count). */
  events: number;
  /** History size in bytes as the server accounts it (DescribeWorkflowExecution). */
  bytes: number;
  largestPayload: { bytes: number; eventType: string };
  eventTypes: Record<string, number>;
}

/** Every execution of a workflow id, following continue-as-new from the first run. */
export async function executionsOf(client: Client, workflowId: string, firstRunId: string): Promise<ExecutionFigures[]> {
  const out: ExecutionFigures[] = [];
  let runId: string | undefined = firstRunId;
  while (runId) {
    const handle: WorkflowHandle = client.workflow.getHandle(workflowId, runId);
    const [history, description] = await Promise.all([handle.fetchHistory(), handle.describe()]);
    const events = history.events ?? [];
    const eventTypes: Record<string, number> = {};
    let largestPayload = { bytes: 0, eventType: '' };
    for (const event of events) {
      const type = eventTypeOf(event as unknown as Record<string, unknown>);
      eventTypes[type] = (eventTypes[type] ?? 0) + 1;
      const biggest = largestPayloadIn(event);
      if (biggest > largestPayload.bytes) largestPayload = { bytes: biggest, eventType: type };
    }
    out.push({ runId, events: events.length, bytes: description.historySize ?? 0, largestPayload, eventTypes });
    const next: string | null | undefined = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    runId = next ?? undefined;
  }
  return out;
}

/** The event's type, from whichever `...EventAttributes` field is set (avoids the proto enums). */
function eventTypeOf(event: Record<string, unknown>): string {
  const key = Object.keys(event).find((k) => k.endsWith('EventAttributes') && event[k] != null);
  return key ? key.replace(/EventAttributes$/, '').replace(/^./, (c) => c.toUpperCase()) : 'Unknown';
}

/** Largest single payload (data plus metadata bytes) anywhere inside an event. */
function largestPayloadIn(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  if (value instanceof Uint8Array) return 0;
  const record = value as Record<string, unknown>;
  if (record.data instanceof Uint8Array) {
    const metadata = (record.metadata ?? {}) as Record<string, Uint8Array>;
    return record.data.length + Object.entries(metadata).reduce((n, [k, v]) => n + k.length + (v?.length ?? 0), 0);
  }
  let max = 0;
  for (const child of Object.values(record)) max = Math.max(max, largestPayloadIn(child));
  return max;
}

// ---------------------------------------------------------------- small statistics

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The lower and upper quartiles (medians of the lower and upper halves): where the middle half of the values lies. */
export function quartiles(values: number[]): [number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return [median(sorted.slice(0, half)), median(sorted.slice(sorted.length - half))];
}

export const round = (n: number, digits = 2): number => Number(n.toFixed(digits));
