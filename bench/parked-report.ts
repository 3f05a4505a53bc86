// The parked section's figures in words and tables: memory at the moments that matter (before,
// when the sticky cache first filled, when every run had parked, after the hold and after the
// decisions and reads), how much it grew per 1,000 runs before and after the cache filled, and
// the decision and read timings with the replays each caused.
import type { MemoryPoint, ParkedResult } from './parked.js';
import { formatTargets, table } from './report.js';

export interface MemorySummary {
  moments: { moment: string; point: MemoryPoint }[];
  /** Worker RSS growth per 1,000 cached runs while the cache filled, and per 1,000 more parked runs after it was full. */
  rssPerThousandFilling: number | null;
  rssPerThousandAfterFull: number | null;
  /** Worker RSS range from the moment the cache was full to the end of the hold. */
  rssRangeAfterFull: { min: number; max: number } | null;
  heapRangeAfterFull: { min: number; max: number } | null;
  /** Worker RSS at the end of the hold minus at the moment the cache was first full. */
  rssChangeAfterFull: number | null;
  cacheFilled: boolean;
}

/** MiB of worker RSS per 1,000 more of `count` between two points. */
const perThousand = (from: MemoryPoint | undefined, to: MemoryPoint | undefined, count: (p: MemoryPoint) => number): number | null => {
  if (!from || !to || count(to) <= count(from)) return null;
  return Math.round(((to.rssMiB - from.rssMiB) / (count(to) - count(from))) * 1_000 * 10) / 10;
};

export function summarizeMemory(series: MemoryPoint[], maxCached: number): MemorySummary {
  const last = (stage: MemoryPoint['stage']) => series.filter((p) => p.stage === stage).at(-1);
  const before = last('before');
  const full = series.find((p) => p.cacheSize >= maxCached);
  const endOfFill = last('filling');
  const moments = [
    { moment: 'before (idle worker)', point: before },
    { moment: 'sticky cache first full', point: full },
    { moment: 'every run parked', point: endOfFill },
    { moment: 'after the hold', point: last('parked') },
    { moment: 'after decisions and reads', point: last('after') },
  ].filter((m): m is { moment: string; point: MemoryPoint } => m.point !== undefined);
  const window = full ? series.filter((p) => p.t >= full.t && p.stage !== 'after') : [];
  const range = (f: (p: MemoryPoint) => number) => (window.length ? { min: Math.min(...window.map(f)), max: Math.max(...window.map(f)) } : null);
  return {
    moments,
    // While the cache fills, what grows is the cached runs; after, only the parked ones (visibility's count).
    rssPerThousandFilling: perThousand(before, full ?? endOfFill, (p) => p.cacheSize),
    rssPerThousandAfterFull: full ? perThousand(full, endOfFill, (p) => p.parked) : null,
    rssRangeAfterFull: range((p) => p.rssMiB),
    heapRangeAfterFull: range((p) => p.heapUsedMiB),
    rssChangeAfterFull: full && window.length ? Math.round(((window.at(-1) as MemoryPoint).rssMiB - full.rssMiB) * 10) / 10 : null,
    cacheFilled: full !== undefined,
  };
}

const signed = (n: number | null): string => (n === null ? '—' : n > 0 ? `+${n}` : String(n));

export function formatParked(r: ParkedResult & { memory: MemorySummary }): string[] {
  const m = r.memory;
  const w = r.worker;
  return [
    `parked: ${r.runs.toLocaleString('en-US')} runs parked on an approval on one worker process; started ${r.startConcurrency} at a time, all parked in ${r.fillSeconds} s`,
    `  worker: maxCachedWorkflows ${w.maxCachedWorkflows}${w.cacheOverridden ? ' (overridden with --parked-cache)' : ' (the engine sets none: the SDK default, sized from the heap limit)'}, heap limit ${w.heapSizeLimitMiB} MiB`,
    `  long tool wait: ${r.longToolWait}`,
    `  memory (sampled every second; heap is the worker's main thread only, workflow threads count in RSS):`,
    ...table(
      ['moment', 't s', 'started', 'parked', 'cached', 'evicted', 'worker RSS MiB', 'main heap MiB', 'server RSS MiB'],
      m.moments.map(({ moment, point: p }) => [moment, p.t, p.started, p.parked, p.cacheSize, p.forcedEvictions, p.rssMiB, p.heapUsedMiB, p.serverRssMiB]),
    ),
    `  worker RSS: ${m.rssPerThousandFilling ?? '—'} MiB per 1,000 runs in the cache while it filled; ${m.cacheFilled ? `${m.rssPerThousandAfterFull ?? '—'} MiB per 1,000 more runs parked after it was full` : 'the cache never filled (fewer runs than it holds)'}`,
    ...(m.rssRangeAfterFull && m.heapRangeAfterFull
      ? [
          `  from cache full to the end of the hold: worker RSS ${m.rssRangeAfterFull.min}–${m.rssRangeAfterFull.max} MiB (${signed(m.rssChangeAfterFull)} MiB end to start), main heap ${m.heapRangeAfterFull.min}–${m.heapRangeAfterFull.max} MiB`,
        ]
      : []),
    `  decisions (one at a time; misses: workflow tasks that found their run evicted and replayed it):`,
    ...table(
      ['way', 'parked', 'runs', 'p50 ms', 'p95 ms', 'max ms', 'cache misses', 'approved', 'applied'],
      r.decisions.map((d) => [
        d.way === 'update' ? 'signed approve Update' : 'AgentClient.approve (query + Update)',
        d.parked,
        d.runs,
        d.p50Ms,
        d.p95Ms,
        d.maxMs,
        d.cacheMisses,
        d.approved,
        d.applied,
      ]),
    ),
    `  reads:`,
    ...table(
      ['read', 'rows', 'ms', 'cache misses', 'answered', 'unanswered'],
      r.reads.map((x) => [x.what, x.rows, x.ms, x.cacheMisses, x.answered, x.unanswered]),
    ),
    ...formatTargets(r.targets),
  ];
}
