// Section "scale-out" (on demand: `npm run bench -- --sections scale-out`): how throughput and
// turn latency move with 1, 2 and 3 worker PROCESSES on one task queue, the way a team scales a
// fleet. Each level starts its own workers on a fresh queue, warms them with a small batch, then
// starts the same batch of agent runs at once; turns/s is the batch's turns over its wall time,
// turn latency the gaps between one run's consecutive `propose` calls (stamped in whichever
// worker ran them). The dev server's CPU is printed beside it: on two cores it, not the
// workers, is expected to be the limit, and the figures say so rather than hide it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { bundleWorkflows } from '../worker/bundle.js';
import type { RunResult } from '../workflows/messages.js';
import { startSearchAttributes } from '../workflows/search-attributes.js';
import { agentWorkflow } from './agent-workflows.js';
import { agentWorkflowsPath, round } from './harness.js';
import { cpuNow, mib } from './measure.js';
import { formatTargets, table, type Target } from './report.js';
import { startScaleOutWorker, type Report, type ScaleOutWorker } from './scale-out-process.js';

export interface ScaleOutOptions {
  /** Worker processes per level. */
  workers: number[];
  /** Runs started together in each level's measured batch, and turns per run. */
  runs: number;
  turns: number;
}

export interface ScaleOutLevel {
  workers: number;
  wallMs: number;
  turnsPerSecond: number;
  /** turns/s ÷ the one-worker level's. */
  speedup: number;
  turnMs: { p50: number; p95: number; max: number };
  /** CPU per turn, all workers together, and the server's; serverCores is its CPU ÷ wall time. */
  workerCpuMsPerTurn: number;
  serverCpuMsPerTurn: number | null;
  serverCores: number | null;
  /** How the turns were shared out: the fewest and most run by one worker process. */
  turnsPerWorker: { min: number; max: number };
  peakRssMiBPerWorker: number;
}

export interface ScaleOutResult extends ScaleOutOptions {
  levels: ScaleOutLevel[];
  targets: Target[];
  seconds: number;
}

export async function scaleOut(
  client: Client,
  temporal: { address: string; namespace: string },
  options: ScaleOutOptions,
  serverPid: number | undefined,
  log: (m: string) => void,
): Promise<ScaleOutResult> {
  const started = Date.now();
  const scratch = mkdtempSync(join(tmpdir(), 'bench-scale-out-'));
  const bundlePath = join(scratch, 'bundle.js');
  writeFileSync(bundlePath, (await bundleWorkflows(agentWorkflowsPath)).code);
  const stamp = Date.now().toString(36);
  const levels: ScaleOutLevel[] = [];
  try {
    for (const count of options.workers) {
      const taskQueue = `bench-scale-out-${stamp}-${count}`;
      const workers = await Promise.all(Array.from({ length: count }, () => startScaleOutWorker({ ...temporal, taskQueue, bundlePath })));
      try {
        // First runs on a fresh worker pay for its isolates and caches: not what is measured.
        await runBatch(client, taskQueue, `so-warm-${stamp}-${count}`, Math.max(4, count * 4), 5);
        const before = await reports(workers);
        const serverBefore = cpuNow(serverPid).serverMs;
        const began = Date.now();
        await runBatch(client, taskQueue, `so-${stamp}-${count}`, options.runs, options.turns);
        const wallMs = Date.now() - began;
        const serverAfter = cpuNow(serverPid).serverMs;
        const after = await reports(workers);
        const level = figures(
          count,
          wallMs,
          options,
          before,
          after,
          serverBefore === undefined || serverAfter === undefined ? null : serverAfter - serverBefore,
        );
        level.speedup = round(level.turnsPerSecond / (levels[0]?.turnsPerSecond ?? level.turnsPerSecond));
        levels.push(level);
        log(`scale-out ${count} worker(s): ${level.turnsPerSecond} turns/s, p95 turn ${level.turnMs.p95} ms, server ${level.serverCores ?? 'n/a'} cores`);
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { ...options, levels, targets: [], seconds: (Date.now() - started) / 1_000 };
}

/** Starts `runs` agent runs of `turns` turns together and waits for all; each must resolve in exactly `turns`. */
async function runBatch(client: Client, taskQueue: string, prefix: string, runs: number, turns: number): Promise<void> {
  const results = await Promise.all(
    Array.from({ length: runs }, async (_, i) => {
      const caseId = `${prefix}-${i}`;
      const handle = await client.workflow.start(agentWorkflow, {
        taskQueue,
        workflowId: `synthetic-${caseId}`,
        args: [{ run: { domain: 'synthetic', caseId, model: { adapter: 'rules' }, budgets: { turns } } }],
        typedSearchAttributes: startSearchAttributes({ domain: 'synthetic', caseId }),
      });
      return (await handle.result()) as RunResult;
    }),
  );
  const failed = results.filter((r) => r.turns !== turns || r.terminal.class !== 'resolved');
  if (failed.length) throw new Error(`scale-out: ${failed.length} of ${runs} runs did not resolve after ${turns} turns`);
}

const reports = (workers: ScaleOutWorker[]) => Promise.all(workers.map((w) => w.report()));

function figures(count: number, wallMs: number, options: ScaleOutOptions, before: Report[], after: Report[], serverMs: number | null): ScaleOutLevel {
  const totalTurns = options.runs * options.turns;
  // A run's activities may land on any worker of the queue: merge its stamps before taking gaps.
  const byCase = new Map<string, number[]>();
  for (const r of after) for (const [caseId, times] of Object.entries(r.stamps)) byCase.set(caseId, [...(byCase.get(caseId) ?? []), ...times]);
  const gaps: number[] = [];
  for (const times of byCase.values()) {
    times.sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) gaps.push((times[i] as number) - (times[i - 1] as number));
  }
  gaps.sort((a, b) => a - b);
  const workerCpuMs = after.reduce((n, r, i) => n + r.cpuMs - (before[i]?.cpuMs ?? 0), 0);
  const turnsEach = after.map((r) => Object.values(r.stamps).reduce((n, t) => n + t.length, 0));
  return {
    workers: count,
    wallMs,
    turnsPerSecond: round((totalTurns / wallMs) * 1_000),
    speedup: 1,
    turnMs: { p50: percentile(gaps, 0.5), p95: percentile(gaps, 0.95), max: gaps.at(-1) ?? 0 },
    workerCpuMsPerTurn: round(workerCpuMs / totalTurns),
    serverCpuMsPerTurn: serverMs === null ? null : round(serverMs / totalTurns),
    serverCores: serverMs === null ? null : round(serverMs / wallMs),
    turnsPerWorker: { min: Math.min(...turnsEach), max: Math.max(...turnsEach) },
    peakRssMiBPerWorker: mib(Math.max(...after.map((r) => r.peakRssBytes))),
  };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number;
}

export function formatScaleOut(r: ScaleOutResult): string[] {
  return [
    `scale-out: ${r.runs} runs of ${r.turns} turns started together on one queue served by N worker processes (server CPU beside it)`,
    ...table(
      [
        'workers',
        'turns/s',
        'speedup',
        'p50 turn ms',
        'p95 turn ms',
        'worker CPU ms/turn',
        'server CPU ms/turn',
        'server cores busy',
        'turns per worker',
        'peak RSS MiB/worker',
      ],
      r.levels.map((l) => [
        l.workers,
        l.turnsPerSecond,
        l.speedup,
        l.turnMs.p50,
        l.turnMs.p95,
        l.workerCpuMsPerTurn,
        l.serverCpuMsPerTurn,
        l.serverCores,
        `${l.turnsPerWorker.min}-${l.turnsPerWorker.max}`,
        l.peakRssMiBPerWorker,
      ]),
    ),
    ...formatTargets(r.targets),
  ];
}
