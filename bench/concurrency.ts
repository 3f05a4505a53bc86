// Section "concurrency" (with "memory"): many runs at once. For each level, all runs of
// 20 turns start together, first agent then bare (same payload shapes), and turns per second
// is the batch's total turns over its wall time. The worker's resident memory is sampled every
// 100 ms throughout; the peak while 200 agent runs are in flight is the figure asked for, and
// the other peaks are there to compare with.
import { batch, round, type Bench } from './harness.js';
import { mib, rssSampler } from './measure.js';
import { formatTargets, table, type Target } from './report.js';

export interface ConcurrencyOptions {
  levels: number[];
  turns: number;
}

export interface LevelFigures {
  runs: number;
  agent: { wallMs: number; turnsPerSecond: number; peakRssMiB: number };
  bare: { wallMs: number; turnsPerSecond: number; peakRssMiB: number };
  /** agent ÷ bare turns per second. */
  ratio: number;
}

export interface ConcurrencyResult extends ConcurrencyOptions {
  levels: number[];
  results: LevelFigures[];
  rssBeforeMiB: number;
  /** Peak RSS during the largest level's agent batch. */
  peakRssMiB: number;
  targets: Target[];
  seconds: number;
}

export async function concurrency(bench: Bench, options: ConcurrencyOptions, log: (m: string) => void): Promise<ConcurrencyResult> {
  const started = Date.now();
  const { turns } = options;
  const shape = await bench.bareShapeFor(turns);
  const stamp = Date.now().toString(36);
  const rss = rssSampler(100);
  const rssBeforeMiB = mib(process.memoryUsage().rss);
  const results: LevelFigures[] = [];
  try {
    for (const runs of options.levels) {
      rss.reset();
      const agent = await batch(runs, (i) => bench.runAgent(`agent-c${runs}-${stamp}-${i}`, { model: { adapter: 'rules' }, budgets: { turns } }));
      const agentPeak = mib(rss.peak());
      const agentTps = round(((runs * turns) / agent.ms) * 1_000);
      log(`concurrency ${runs}: agent ${agent.ms} ms, ${agentTps} turns/s`);
      rss.reset();
      const bare = await batch(runs, (i) => bench.runBare(`bare-c${runs}-${stamp}-${i}`, shape));
      const barePeak = mib(rss.peak());
      const bareTps = round(((runs * turns) / bare.ms) * 1_000);
      log(`concurrency ${runs}: bare ${bare.ms} ms, ${bareTps} turns/s`);
      const failed = agent.runs.filter((r) => r.result.turns !== turns || r.result.terminal.class !== 'resolved');
      if (failed.length) throw new Error(`concurrency: ${failed.length} agent runs did not resolve after ${turns} turns`);
      results.push({
        runs,
        agent: { wallMs: agent.ms, turnsPerSecond: agentTps, peakRssMiB: agentPeak },
        bare: { wallMs: bare.ms, turnsPerSecond: bareTps, peakRssMiB: barePeak },
        ratio: round(agentTps / bareTps),
      });
    }
  } finally {
    rss.stop();
  }
  const largest = results.at(-1);
  return {
    ...options,
    results,
    rssBeforeMiB,
    peakRssMiB: largest?.agent.peakRssMiB ?? 0,
    targets: [],
    seconds: (Date.now() - started) / 1_000,
  };
}

export function formatConcurrency(r: ConcurrencyResult): string[] {
  return [
    `concurrency: N runs of ${r.turns} turns started together; worker memory sampled every 100 ms`,
    ...table(
      ['runs', 'agent turns/s', 'bare turns/s', 'agent ÷ bare', 'agent wall ms', 'bare wall ms', 'agent peak RSS MiB', 'bare peak RSS MiB'],
      r.results.map((l) => [
        l.runs,
        l.agent.turnsPerSecond,
        l.bare.turnsPerSecond,
        l.ratio,
        l.agent.wallMs,
        l.bare.wallMs,
        l.agent.peakRssMiB,
        l.bare.peakRssMiB,
      ]),
    ),
    ...formatTargets(r.targets),
  ];
}
