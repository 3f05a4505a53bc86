// The chaos loop, against any Temporal server: many concurrent runs with effects on one task queue
// served by several worker processes, any of which is SIGKILLed and restarted at random moments,
// optionally with a caller's own disruption (the cluster run restarts history and matching with
// it). Every run must end, none may be lost, and the systems of record must hold no duplicate
// effect. `npm run chaos` (chaos.ts) calls it on a dev server; the cluster run on a real cluster.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { examplesWorkflowsPath } from '../../demo/local-stack.js';
import { WorldClient } from '../../domains/world/client.js';
import { startWorld } from '../../domains/world/process.js';
import { bundleWorkflows } from '../../worker/bundle.js';
import { TEST_DIRECTORY } from '../support/keys.js';
import { EXAMPLES_WORKER, startWorkerProcess } from '../support/worker-process.js';
import { approveWhenAsked, finished, startCase, type CaseContext, type ChaosCase } from './cases.js';
import { groundTruth } from './ground-truth.js';
import { startWorkerPool } from './worker-pool.js';

export interface ChaosOptions {
  temporal: { address: string; namespace: string };
  /** Worker processes on the one task queue. */
  workers: number;
  runs: number;
  /** Worker SIGKILLs to reach; the run goes on until they are reached and every run has ended. */
  kills: number;
  /** Seeds every random choice (cases, faults, pauses, victims), so a failure can be replayed. */
  seed: number;
  /** The whole loop's budget; runs still going then count as lost. */
  timeoutS: number;
  /**
   * Awaited at a random moment between worker kills, every other round while kills remain: the
   * caller's own disruption (say, restart a server process). It gets the run's random source and log.
   */
  disrupt?: (random: () => number, log: (m: string) => void) => Promise<void>;
  /** The systems of record; when absent a fresh world is started and stopped here. */
  worldUrl?: string;
  log?: (m: string) => void;
}

export interface ChaosFigures {
  workers: number;
  kills: number;
  disruptions: number;
  runs: number;
  terminal: number;
  effects: number;
  duplicates: number;
  lost: number;
  /** Runs per terminal class (resolved, refused, ...), from the runs' own results. */
  classes: Record<string, number>;
  seconds: number;
  /** duplicates and lost are 0, every run ended and the kills were reached. */
  passed: boolean;
}

/** The line CI checks: the last line of `npm run chaos`. */
export function chaosLine(f: ChaosFigures): string {
  return `workers=${f.workers} kills=${f.kills} runs=${f.runs} terminal=${f.terminal} effects=${f.effects} duplicates=${f.duplicates} lost=${f.lost}`;
}

/** Pauses between kills: long enough for runs to make progress, short enough to catch them mid-flight. */
const KILL_PAUSE_MS = { min: 1_200, spread: 2_000 };

export async function runChaos(options: ChaosOptions): Promise<ChaosFigures> {
  const log = options.log ?? ((m: string) => process.stderr.write(`[chaos] ${m}\n`));
  let seed = options.seed;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const began = Date.now();
  const deadline = began + options.timeoutS * 1_000;
  const scratch = mkdtempSync(join(tmpdir(), 'chaos-'));
  const cleanups: (() => Promise<unknown>)[] = [async () => rmSync(scratch, { recursive: true, force: true })];
  try {
    // The world's process and the bundle are independent: make them side by side.
    const bundlePath = join(scratch, 'bundle.js');
    const worldStarting = options.worldUrl ? undefined : startWorld({ dbPath: join(scratch, 'world.sqlite') });
    // Registered before anything can fail, so a failed bundle still stops the world.
    cleanups.unshift(async () => (await worldStarting?.catch(() => undefined))?.stop());
    const [world] = await Promise.all([worldStarting, bundleWorkflows(examplesWorkflowsPath).then((bundle) => writeFileSync(bundlePath, bundle.code))]);
    const worldUrl = options.worldUrl ?? world?.url ?? '';
    const worldClient = new WorldClient(worldUrl);
    const approversFile = join(scratch, 'approvers.json');
    writeFileSync(approversFile, JSON.stringify(TEST_DIRECTORY));
    const connection = await Connection.connect({ address: options.temporal.address });
    cleanups.unshift(() => connection.close());
    const client = new Client({ connection, namespace: options.temporal.namespace });
    const stamp = `${Date.now().toString(36)}${process.pid.toString(36)}`;
    const taskQueue = `chaos-${stamp}`;

    log(
      `seed=${options.seed} workers=${options.workers} runs=${options.runs} kills=${options.kills}${options.disrupt ? ' with disruptions' : ''} on ${options.temporal.address}`,
    );
    const spawn = () =>
      startWorkerProcess({
        script: EXAMPLES_WORKER,
        temporalAddress: options.temporal.address,
        namespace: options.temporal.namespace,
        taskQueue,
        worldUrl,
        workflowBundlePath: bundlePath,
        toolTimeoutMs: 1_000,
        approversFile,
      });
    const pool = await startWorkerPool(options.workers, spawn, log);
    let poolStopped = false;
    cleanups.unshift(async () => {
      if (!poolStopped) await pool.stop().catch(() => {});
    });
    log(`${options.workers} workers up in ${Math.round((Date.now() - began) / 1_000)} s`);

    const cases: ChaosCase[] = [];
    const ctx: CaseContext = { client, world: worldClient, taskQueue, stamp, random, log, givenUp: () => Date.now() >= deadline };
    // Runs start over the first seconds, so kills land at every stage of their lives.
    let startFailure: unknown;
    const starting = (async () => {
      for (let i = 0; i < options.runs && Date.now() < deadline; i++) {
        cases.push(await startCase(i, ctx));
        await sleep(150 + random() * 250);
      }
    })().catch((err: unknown) => (startFailure = err));
    const approver = approveWhenAsked(cases);

    let kills = 0;
    let disruptions = 0;
    const ended = () => cases.filter(finished).length;
    while (Date.now() < deadline && startFailure === undefined && (kills < options.kills || cases.length < options.runs || ended() < options.runs)) {
      await sleep(KILL_PAUSE_MS.min + random() * KILL_PAUSE_MS.spread);
      if (kills >= options.kills) continue;
      const { slot, pid } = await pool.killOne(random);
      kills++;
      log(`kill ${kills} at ${Math.round((Date.now() - began) / 1_000)} s: worker ${slot} (pid ${pid}); ${ended()}/${cases.length} runs ended`);
      if (options.disrupt && kills % 2 === 0) {
        // Somewhere inside the next pause, so it lands with the restarted worker at any stage.
        await sleep(random() * KILL_PAUSE_MS.spread);
        disruptions++;
        log(`disruption ${disruptions}`);
        await options.disrupt(random, log);
      }
    }
    await starting;
    await approver.stop();
    // The world or the client failed outside any retry: no verdict can be given.
    if (startFailure !== undefined) throw startFailure;
    poolStopped = true;
    await pool.stop();

    const truth = await groundTruth(worldClient, cases, log);
    log(`requests deduplicated by key: ${truth.deduplicated} (non-idempotent: ${truth.blindRetries})`);
    const classes: Record<string, number> = {};
    for (const c of cases) if (c.result) classes[c.result.terminal.class] = (classes[c.result.terminal.class] ?? 0) + 1;
    log(
      `terminal classes: ${Object.entries(classes)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    );
    for (const c of cases.filter((x) => x.error)) log(`run ${c.caseId} did not end: ${c.error}`);
    for (const c of cases.filter((x) => !finished(x))) log(`run ${c.caseId} still going at the deadline`);

    const terminal = cases.filter((c) => c.result).length;
    const lost = options.runs - terminal;
    const figures = {
      workers: options.workers,
      kills,
      disruptions,
      runs: options.runs,
      terminal,
      effects: truth.effects,
      duplicates: truth.duplicates,
      lost,
      classes,
      seconds: Math.round((Date.now() - began) / 1_000),
    };
    return { ...figures, passed: truth.duplicates === 0 && lost === 0 && terminal === options.runs && kills >= options.kills };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((err: unknown) => log(`cleanup: ${err instanceof Error ? err.message : String(err)}`));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
