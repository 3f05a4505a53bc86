// Section "parked" (on demand: `npm run bench -- --sections parked [--parked N]`): what
// thousands of runs waiting for a person cost one worker. N synthetic runs each propose the
// gated effect and park on its approval, on one worker process of the engine's own making
// (bench/parked-worker.ts, with the engine's default sticky cache unless --parked-cache says
// otherwise). The worker's memory is sampled once a second before, while the runs park and
// after they all have, beside how full its cache is; then decisions are timed on runs parked
// first (evicted, replayed to decide) and last (cached), and the reads an approver makes.
//
// The engine has no long tool wait to park runs on as well: a tool call is an activity bounded
// by a 20 s (read) or 30 s (effect) start-to-close timeout with a 4 s heartbeat
// (workflows/agent.ts), so a run is only ever parked durably on a person (or its deadline).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { AGENT_WORKFLOW_TYPE } from '../workflows/agent-workflow-type.js';
import { stateQuery } from '../workflows/messages.js';
import { phaseKey, startSearchAttributes } from '../workflows/search-attributes.js';
import { TEST_DIRECTORY } from '../test/support/keys.js';
import { bundleWorkflows } from '../worker/bundle.js';
import { agentWorkflow } from './agent-workflows.js';
import { agentWorkflowsPath } from './harness.js';
import { mib } from './measure.js';
import { rssOfPid, startParkedWorker, type ReadyReport } from './parked-process.js';
import { timeDecisions, timeReads, type DecisionFigures, type Pending, type ReadFigures, type SampledRun } from './parked-probes.js';
import { formatParked, summarizeMemory, type MemorySummary } from './parked-report.js';
import type { Target } from './report.js';
import { target as targetOf } from './report.js';

export interface ParkedOptions {
  runs: number;
  /** Runs per group whose decision is timed (early and late, each way). */
  samples: number;
  /** How long memory is sampled after every run has parked. */
  holdSeconds: number;
  /** Overrides the worker's sticky cache size (default: the engine's, i.e. the SDK's default). */
  maxCached?: number;
  /** Starts in flight at once. */
  startConcurrency: number;
}

export type Stage = 'before' | 'filling' | 'parked' | 'after';

export interface MemoryPoint {
  stage: Stage;
  /** Seconds since the worker was ready. */
  t: number;
  started: number;
  /** Runs the visibility store shows awaiting approval on this queue (the last count taken). */
  parked: number;
  cacheSize: number;
  forcedEvictions: number;
  rssMiB: number;
  heapUsedMiB: number;
  serverRssMiB: number | null;
}

export interface ParkedResult extends ParkedOptions {
  worker: Omit<ReadyReport, 'memory' | 'pid'>;
  fillSeconds: number;
  series: MemoryPoint[];
  memory: MemorySummary;
  decisions: DecisionFigures[];
  reads: ReadFigures[];
  longToolWait: string;
  targets: Target[];
  seconds: number;
}

const LONG_TOOL_WAIT =
  'none: a tool call is an activity with a 20 s (read) or 30 s (effect) start-to-close timeout and a 4 s heartbeat, so nothing parks on a tool';

export async function parked(
  client: Client,
  server: { address: string; namespace: string; pid: number | undefined },
  options: ParkedOptions,
  log: (m: string) => void,
): Promise<ParkedResult> {
  const began = Date.now();
  const { runs } = options;
  if (!Number.isSafeInteger(runs) || runs < 4) throw new Error(`parked: --parked takes a number of runs, at least 4 (got ${runs})`);
  if (options.maxCached !== undefined && (!Number.isSafeInteger(options.maxCached) || options.maxCached < 2)) {
    throw new Error(`parked: --parked-cache takes a cache size, at least 2 (got ${options.maxCached})`);
  }
  const samples = Math.max(1, Math.min(options.samples, Math.floor(runs / 4)));
  const stamp = Date.now().toString(36);
  const taskQueue = `bench-parked-${process.pid}-${stamp}`;
  const dir = mkdtempSync(join(tmpdir(), 'bench-parked-'));
  const approversFile = join(dir, 'approvers.json');
  writeFileSync(approversFile, JSON.stringify(TEST_DIRECTORY));
  const bundleFile = join(dir, 'workflows.js');
  writeFileSync(bundleFile, (await bundleWorkflows(agentWorkflowsPath)).code);
  const countQuery = `WorkflowType = '${AGENT_WORKFLOW_TYPE}' AND TaskQueue = '${taskQueue}' AND ${phaseKey.name} = 'awaiting_approval' AND ExecutionStatus = 'Running'`;
  const workflowId = (i: number) => `synthetic-parked-${stamp}-${i}`;

  const worker = await startParkedWorker({
    address: server.address,
    namespace: server.namespace,
    taskQueue,
    approversFile,
    bundleFile,
    ...(options.maxCached ? { maxCached: options.maxCached } : {}),
  });
  const ready = Date.now();
  log(
    `parked: worker pid ${worker.ready.pid}, maxCachedWorkflows ${worker.ready.maxCachedWorkflows}${worker.ready.cacheOverridden ? ' (overridden)' : ' (engine default)'}`,
  );
  const series: MemoryPoint[] = [];
  let started = 0;
  let next = 0;
  let parkedNow = 0;
  const sample = async (stage: Stage, count: boolean) => {
    if (count) parkedNow = (await client.workflow.count(countQuery)).count;
    const cache = await worker.cache();
    const m = worker.memory();
    const serverRss = rssOfPid(server.pid);
    series.push({
      stage,
      t: Math.round((Date.now() - ready) / 100) / 10,
      started,
      parked: parkedNow,
      cacheSize: cache.size,
      forcedEvictions: cache.forcedEvictions,
      rssMiB: mib(m.rss),
      heapUsedMiB: mib(m.heapUsed),
      serverRssMiB: serverRss === undefined ? null : mib(serverRss),
    });
  };
  const hold = async (stage: Stage, seconds: number) => {
    for (let s = 0; s < seconds; s++) {
      await sleep(1_000);
      await sample(stage, s % 5 === 4);
    }
  };
  const cleanup = async () => {
    next = runs; // a fill cut short starts nothing more
    await terminateAll(client, runs, workflowId, started);
    await worker.stop();
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await hold('before', 5);

    // Fill: starts with a bounded number in flight; the worker parks them as fast as it can.
    const fillBegan = Date.now();
    const starter = async () => {
      while (next < runs) {
        const i = next++;
        const caseId = `parked-${stamp}-${i}`;
        await client.workflow.start(agentWorkflow, {
          taskQueue,
          workflowId: workflowId(i),
          args: [{ run: { domain: 'synthetic', caseId, model: { adapter: 'scripted', replies: REPLIES }, approvalTimeoutMs: 6 * 3_600_000 } }],
          typedSearchAttributes: startSearchAttributes({ domain: 'synthetic', caseId }),
        });
        started++;
      }
    };
    let startFailure: unknown;
    const starting = Promise.all(Array.from({ length: options.startConcurrency }, starter)).catch((err: unknown) => {
      startFailure = err;
    });
    // The early groups' requests are read as soon as they park, while still cached.
    const early = pendingOf(
      client,
      Array.from({ length: 2 * samples }, (_, i) => i),
      workflowId,
    );
    early.catch(() => undefined); // awaited below; a fill that fails first must not leave it unhandled
    const fillDeadline = Date.now() + Math.max(10 * 60_000, runs * 300);
    for (let tick = 0; ; tick++) {
      await sleep(1_000);
      await sample('filling', tick % 2 === 1);
      if (startFailure) throw startFailure;
      if (started === runs && parkedNow >= runs) break;
      if (Date.now() > fillDeadline) throw new Error(`parked: ${parkedNow} of ${runs} runs parked after ${Math.round((Date.now() - fillBegan) / 1_000)} s`);
      if (tick % 15 === 14) log(`parked: ${started} started, ${parkedNow} parked, cache ${series.at(-1)?.cacheSize}, worker RSS ${series.at(-1)?.rssMiB} MiB`);
    }
    await starting;
    const fillSeconds = (Date.now() - fillBegan) / 1_000;
    log(`parked: all ${runs} parked in ${Math.round(fillSeconds)} s`);
    const late = await pendingOf(
      client,
      Array.from({ length: 2 * samples }, (_, i) => runs - 2 * samples + i),
      workflowId,
    );
    const earlyRuns = await early;

    await hold('parked', options.holdSeconds);
    log('parked: timing decisions');
    const decisions = await timeDecisions(
      client,
      worker,
      [
        { way: 'update', early: earlyRuns.slice(0, samples), late: late.slice(0, samples) },
        { way: 'client', early: earlyRuns.slice(samples), late: late.slice(samples) },
      ],
      taskQueue,
    );
    const reads = await timeReads(client, worker, countQuery, taskQueue);
    await hold('after', 5);

    const decided = decisions.reduce((n, d) => n + d.runs, 0);
    const applied = decisions.reduce((n, d) => n + d.applied, 0);
    const { pid: _pid, memory: _memory, ...workerFacts } = worker.ready;
    return {
      ...options,
      samples,
      worker: workerFacts,
      fillSeconds: Math.round(fillSeconds * 10) / 10,
      series,
      memory: summarizeMemory(series, worker.ready.maxCachedWorkflows),
      decisions,
      reads,
      longToolWait: LONG_TOOL_WAIT,
      // Not timed: that every decision was accepted and its effect applied once.
      targets: [targetOf('decided runs whose effect then applied once, of ' + decided, applied, decided, 'min')],
      seconds: (Date.now() - began) / 1_000,
    };
  } finally {
    await cleanup();
  }
}

/** Each run proposes the gated effect, parks on its approval, and once decided escalates (so it ends). */
const REPLIES = [
  { type: 'call', calls: [{ tool: 'gated_touch', args: { n: 1 } }] },
  { type: 'escalate', reason: 'bench: parked run decided' },
];

/** The pending request of each run, once it shows one its approvers can decide (the directory loaded). */
async function pendingOf(client: Client, indexes: number[], workflowId: (i: number) => string): Promise<SampledRun[]> {
  return Promise.all(
    indexes.map(async (index) => {
      const id = workflowId(index);
      const giveUpAt = Date.now() + 10 * 60_000;
      for (;;) {
        const view = await client.workflow
          .getHandle(id)
          .query(stateQuery)
          .catch(() => undefined);
        const pending: Pending | undefined = view?.awaiting;
        if (pending && pending.eligible.length > 0) return { workflowId: id, index, pending };
        if (view?.state.terminal) throw new Error(`parked: run ${id} ended (${view.state.terminal.class}) instead of parking`);
        if (Date.now() > giveUpAt) throw new Error(`parked: run ${id} showed no decidable request within 10 minutes`);
        await sleep(500);
      }
    }),
  );
}

/** Ends what the section started (decided runs have ended already); the server may be someone else's. */
async function terminateAll(client: Client, runs: number, workflowId: (i: number) => string, started: number): Promise<void> {
  let next = 0;
  const one = async () => {
    while (next < Math.min(runs, started)) {
      const id = workflowId(next++);
      await client.workflow
        .getHandle(id)
        .terminate('bench: parked section done')
        .catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: 20 }, one));
}

export { formatParked };
