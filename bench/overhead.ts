// Section "overhead": the agent workflow against the bare baseline, same activity calls and
// payload sizes, on the same worker. Batches of R concurrent runs × T turns alternate between
// the variants (the order rotates every round, so drift in machine load hits all alike) and
// the medians are compared. Besides wall time the section reports CPU time per turn of the
// worker process and of the dev server: on a shared machine those are steadier than wall time,
// and they show *where* the extra cost is spent.
//
// The ratio that counts is paired: agent ÷ bare within each round, whose batches run back to
// back, and the median of those. A slow spell on a shared machine then hits both sides of a
// ratio instead of one variant's median.
import { batch, median, quartiles, round, type Bench } from './harness.js';
import { cpuNow, cpuSince } from './measure.js';
import { formatTargets, table, target, type Target } from './report.js';

export interface CompareOptions {
  runs: number;
  turns: number;
  rounds: number;
}

export interface BatchFigures {
  wallMs: number;
  turnsPerSecond: number;
  workerCpuMsPerTurn: number;
  serverCpuMsPerTurn: number | null;
}

export type Variant = 'agent' | 'bare';

export interface Comparison extends CompareOptions {
  variants: Variant[];
  batches: Partial<Record<Variant, BatchFigures[]>>;
  median: Partial<Record<Variant, BatchFigures>>;
  seconds: number;
}

export async function compare(
  bench: Bench,
  variants: Variant[],
  options: CompareOptions,
  serverPid: number | undefined,
  log: (m: string) => void,
  label: string,
): Promise<Comparison> {
  const started = Date.now();
  const { runs, turns, rounds } = options;
  const shape = await bench.bareShapeFor(turns);
  const stamp = Date.now().toString(36);
  let serial = 0;

  const runBatch = async (variant: Variant): Promise<BatchFigures> => {
    const id = `${variant}-${label}-${stamp}-${serial++}`;
    const cpu = cpuNow(serverPid);
    const done = await batch(runs, (i) =>
      variant === 'agent' ? bench.runAgent(`${id}-${i}`, { model: { adapter: 'rules' }, budgets: { turns } }) : bench.runBare(`${id}-${i}`, shape),
    );
    const used = cpuSince(cpu, serverPid);
    for (const run of done.runs) {
      const result = run.result as { turns: number; terminal?: { class: string } };
      if (result.turns !== turns || (variant === 'agent' && result.terminal?.class !== 'resolved')) {
        throw new Error(`${label}: ${run.workflowId} ended after ${result.turns} turns (${result.terminal?.class ?? 'bare'}), expected ${turns}`);
      }
    }
    const total = runs * turns;
    return {
      wallMs: done.ms,
      turnsPerSecond: round((total / done.ms) * 1_000),
      workerCpuMsPerTurn: round(used.workerMs / total),
      serverCpuMsPerTurn: used.serverMs === undefined ? null : round(used.serverMs / total),
    };
  };

  // Warm-up, not measured: JIT, the worker's caches, the server's task queues.
  log(`${label}: warm-up`);
  for (const variant of variants) await runBatch(variant);

  const batches: Partial<Record<Variant, BatchFigures[]>> = {};
  for (let r = 0; r < rounds; r++) {
    const order = variants.map((_, i) => variants[(i + r) % variants.length] as Variant);
    for (const variant of order) {
      const figures = await runBatch(variant);
      (batches[variant] ??= []).push(figures);
      log(`${label}: round ${r + 1}/${rounds} ${variant}: ${figures.wallMs} ms, ${figures.turnsPerSecond} turns/s`);
    }
  }

  const medianOf = (list: BatchFigures[]): BatchFigures => ({
    wallMs: median(list.map((b) => b.wallMs)),
    turnsPerSecond: median(list.map((b) => b.turnsPerSecond)),
    workerCpuMsPerTurn: median(list.map((b) => b.workerCpuMsPerTurn)),
    serverCpuMsPerTurn: list.some((b) => b.serverCpuMsPerTurn === null) ? null : median(list.map((b) => b.serverCpuMsPerTurn ?? 0)),
  });
  const medians: Partial<Record<Variant, BatchFigures>> = {};
  for (const variant of variants) medians[variant] = medianOf(batches[variant] ?? []);
  return { ...options, variants, batches, median: medians, seconds: (Date.now() - started) / 1_000 };
}

const ratioOf = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a === null || a === undefined || b === null || b === undefined || b === 0 ? null : round(a / b);

// ---------------------------------------------------------------- overhead

export interface OverheadResult extends Comparison {
  /** agent ÷ bare of the medians (turns/s: below 1 means the agent is slower). */
  ratio: { wallTime: number | null; turnsPerSecond: number | null; workerCpu: number | null; serverCpu: number | null };
  /**
   * Wall time agent ÷ bare within each round, and their median: the target. The quartiles say how
   * far one round strays from another on this machine, so a median near the target reads as one
   * (none for fewer than four rounds).
   */
  paired: { perRound: number[]; median: number; quartiles: [number, number] | null };
  targets: Target[];
}

export async function overhead(bench: Bench, options: CompareOptions, serverPid: number | undefined, log: (m: string) => void): Promise<OverheadResult> {
  const c = await compare(bench, ['agent', 'bare'], options, serverPid, log, 'overhead');
  const a = c.median.agent;
  const b = c.median.bare;
  const ratio = {
    wallTime: ratioOf(a?.wallMs, b?.wallMs),
    turnsPerSecond: ratioOf(a?.turnsPerSecond, b?.turnsPerSecond),
    workerCpu: ratioOf(a?.workerCpuMsPerTurn, b?.workerCpuMsPerTurn),
    serverCpu: ratioOf(a?.serverCpuMsPerTurn, b?.serverCpuMsPerTurn),
  };
  const perRound = (c.batches.agent ?? []).map((agent, i) => round(agent.wallMs / (c.batches.bare?.[i]?.wallMs ?? Number.NaN)));
  const paired = {
    perRound,
    median: median(perRound),
    quartiles: perRound.length >= 4 ? (quartiles(perRound).map((q) => round(q)) as [number, number]) : null,
  };
  return { ...c, ratio, paired, targets: [target('wall time agent ÷ bare (median of rounds)', paired.median, 1.15)] };
}

export function formatOverhead(r: OverheadResult): string[] {
  const a = r.median.agent;
  const b = r.median.bare;
  const row = (label: string, pick: (f: BatchFigures) => number | null, ratio: number | null) => [label, a && pick(a), b && pick(b), ratio];
  return [
    `overhead: ${r.runs} concurrent runs × ${r.turns} turns per batch, ${r.rounds} rounds alternating agent/bare (medians)`,
    ...table(
      ['', 'agent', 'bare', 'agent ÷ bare'],
      [
        row('wall time (ms)', (f) => f.wallMs, r.ratio.wallTime),
        row('turns/s', (f) => f.turnsPerSecond, r.ratio.turnsPerSecond),
        row('worker CPU ms/turn', (f) => f.workerCpuMsPerTurn, r.ratio.workerCpu),
        row('server CPU ms/turn', (f) => f.serverCpuMsPerTurn, r.ratio.serverCpu),
      ],
    ),
    `  per round (ms): agent ${(r.batches.agent ?? []).map((f) => f.wallMs).join(', ')}; bare ${(r.batches.bare ?? []).map((f) => f.wallMs).join(', ')}`,
    `  agent ÷ bare per round: ${r.paired.perRound.join(', ')}; median ${r.paired.median}${r.paired.quartiles ? ` (middle half of the rounds ${r.paired.quartiles.join(' to ')})` : ''}`,
    ...formatTargets(r.targets),
  ];
}
