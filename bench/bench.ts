// `npm run bench`: what the engine costs on top of Temporal, measured on a local dev server
// this script starts (or TEMPORAL_ADDRESS), with the synthetic domain's zero-latency rules
// model and no-op tools so that only the engine and Temporal are measured. Prints a table per
// section and writes the same figures, machine and parameters to bench/results/latest.json.
//
//   npm run bench                              the full set (must finish in under 10 minutes)
//   npm run bench -- --quick                   a smaller smoke version (bench/results/quick.json)
//   npm run bench -- --sections overhead,history
//   npm run bench -- --dev-defaults            keep the dev server's default transfer-queue rate
//   npm run bench -- --sections parked --parked 5000 [--parked-cache N]   on demand, not in the full set
//   npm run bench -- --sections scale-out      1, 2 and 3 worker processes on one queue; on demand too
//
// Targets are printed with the measured value and whether they were met; none fails the run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { useTemporal } from '../temporal-dev/target.js';
import { concurrency, formatConcurrency } from './concurrency.js';
import { contextTokens, formatContextTokens } from './context-tokens.js';
import { startBench, WORKER_OPTIONS } from './harness.js';
import { formatHistory, history } from './history.js';
import { formatLongRun, longRun } from './long-run.js';
import { findServerPid, mib } from './measure.js';
import { formatOverhead, overhead } from './overhead.js';
import { formatParked, parked } from './parked.js';
import { formatScaleOut, scaleOut } from './scale-out.js';
import type { Target } from './report.js';

const SECTIONS = ['context', 'overhead', 'history', 'long-run', 'concurrency'] as const;
// Run only when named in --sections: they would take the full set past its ten minutes.
const ON_DEMAND_SECTIONS = ['parked', 'scale-out'] as const;
type Section = (typeof SECTIONS)[number] | (typeof ON_DEMAND_SECTIONS)[number];

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    sections: { type: 'string' },
    out: { type: 'string' },
    'dev-defaults': { type: 'boolean', default: false },
    parked: { type: 'string' },
    'parked-cache': { type: 'string' },
  },
  strict: true,
});
const quick = values.quick ?? false;
const chosen = (values.sections ?? SECTIONS.join(','))
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
for (const s of chosen) {
  if (!([...SECTIONS, ...ON_DEMAND_SECTIONS] as readonly string[]).includes(s)) {
    process.stderr.write(`bench: unknown section ${s}; sections are ${SECTIONS.join(', ')}, and on demand ${ON_DEMAND_SECTIONS.join(', ')}\n`);
    process.exit(2);
  }
}
const wanted = (s: Section) => chosen.includes(s);
const outFile = values.out ?? fileURLToPath(new URL(`./results/${quick ? 'quick' : 'latest'}.json`, import.meta.url));

// Sizes. Concurrency (50 and 200 runs of 20 turns) and the 10,000-turn run are fixed by what
// they measure; on the 2-core machine they are bound by the worker's and the server's CPU and
// take about 2.5 and 5 minutes, most of the total. Overhead and history take about a minute and
// a half together; overhead alternates over eleven rounds because single batches on a shared
// 2-core machine vary by ±15% (with seven, the median of identical code moved by up to 0.07
// between back-to-back runs). More rounds would not fit the ten minutes the whole run has.
const params = {
  quick,
  context: { turns: [10, 100, 1_000] },
  overhead: quick ? { runs: 4, turns: 10, rounds: 1 } : { runs: 10, turns: 20, rounds: 11 },
  history: { turns: quick ? 5 : 20 },
  concurrency: { levels: quick ? [10, 40] : [50, 200], turns: quick ? 10 : 20 },
  longRun: quick ? { turns: 1_000, window: 100 } : { turns: 10_000, window: 1_000 },
  scaleOut: { workers: [1, 2, 3], runs: quick ? 10 : 50, turns: quick ? 5 : 20 },
  parked: {
    runs: Number(values.parked ?? (quick ? 300 : 5_000)),
    samples: 20,
    holdSeconds: quick ? 10 : 60,
    startConcurrency: 20,
    ...(values['parked-cache'] ? { maxCached: Number(values['parked-cache']) } : {}),
  },
};

// The dev server runs one history shard whose transfer queue (which hands every activity
// and workflow task to matching) is read at most 20 times a second by default. A single
// sequential run then waits for that reader on both hops of every turn and is pinned at
// ~100 ms/turn whatever the engine does (measured: turn starts land on a 100 ms grid). That
// is a dev-server throttle, not the engine, so the bench raises it; --dev-defaults keeps it.
const dynamicConfig: Record<string, number> = values['dev-defaults'] ? {} : { 'history.transferProcessorMaxPollRPS': 1_000 };

const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const print = (lines: string[]) => process.stdout.write(`${lines.join('\n')}\n\n`);
const began = Date.now();

const machine = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? 'unknown',
  memoryGiB: Math.round(totalmem() / 1024 ** 3),
  freeMemoryGiB: Math.round(freemem() / 1024 ** 3),
  // Other processes compete for the same cores; the load average says how much.
  loadAverageAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
};
print([
  `bench: ${machine.date}, node ${machine.node}, ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, load ${machine.loadAverageAtStart.join(' ')}`,
  `sections: ${chosen.join(', ')}${quick ? ' (quick)' : ''}`,
]);

const results: Record<string, unknown> = {};
const targets: (Target & { section: string })[] = [];
const timings: Record<string, number> = {};
let serverInfo: Record<string, unknown> = {};
const load = () => loadavg().map((n) => Math.round(n * 100) / 100);

/** Written after every section, so a run cut short still leaves what it measured. */
const save = (complete: boolean) => {
  mkdirSync(dirname(outFile), { recursive: true });
  const parameters = { ...params, sections: chosen, server: serverInfo, worker: WORKER_OPTIONS };
  const totalSeconds = Math.round((Date.now() - began) / 1_000);
  writeFileSync(outFile, `${JSON.stringify({ complete, machine, parameters, results, targets, totalSeconds, loadAverageAtEnd: load() }, null, 2)}\n`);
};
const record = (section: Section, data: { targets: Target[]; seconds: number }, lines: string[]) => {
  results[section] = { ...data, loadAverageAfter: load() };
  targets.push(...data.targets.map((t) => ({ ...t, section })));
  timings[section] = Math.round(data.seconds);
  print([`== ${section} (${Math.round(data.seconds)} s) ==`, ...lines]);
  save(false);
};

// Pure computation first: it needs no server.
if (wanted('context')) {
  const r = await contextTokens(params.context.turns);
  record('context', r, formatContextTokens(r));
}

if (chosen.some((s) => s !== 'context')) {
  const target = await useTemporal({ headless: true, dynamicConfig, log: (m) => log(`temporal-dev: ${m}`) });
  const serverPid = target.startedHere ? findServerPid() : undefined;
  serverInfo = { address: target.address, startedHere: target.startedHere, dynamicConfig: target.startedHere ? dynamicConfig : 'n/a (existing server)' };
  const setup = Date.now();
  const bench = await startBench(target);
  log(`worker ready in ${Date.now() - setup} ms (bundle and connect)`);
  try {
    if (wanted('overhead')) {
      const r = await overhead(bench, params.overhead, serverPid, log);
      record('overhead', r, formatOverhead(r));
    }
    if (wanted('history')) {
      const r = await history(bench, params.history.turns);
      record('history', r, formatHistory(r));
    }
    // The long run goes before the concurrency batches, on a server not still busy with
    // the aftermath of 500 finished runs: its first window would otherwise pay for them.
    if (wanted('long-run')) {
      const r = await longRun(bench, params.longRun, log);
      record('long-run', r, formatLongRun(r));
    }
    if (wanted('parked')) {
      const r = await parked(bench.client, { address: target.address, namespace: target.namespace, pid: serverPid }, params.parked, log);
      record('parked', r, formatParked(r));
    }
    if (wanted('scale-out')) {
      const r = await scaleOut(bench.client, { address: target.address, namespace: target.namespace }, params.scaleOut, serverPid, log);
      record('scale-out', r, formatScaleOut(r));
    }
    if (wanted('concurrency')) {
      const r = await concurrency(bench, params.concurrency, log);
      const during = `${r.levels.at(-1)} concurrent agent runs of ${r.turns} turns`;
      results.memory = { rssBeforeMiB: r.rssBeforeMiB, peakRssMiB: r.peakRssMiB, during, sampleEveryMs: 100 };
      record('concurrency', r, formatConcurrency(r));
      print([
        `== memory ==`,
        `  worker RSS (sampled every 100 ms): ${r.rssBeforeMiB} MiB before the concurrency section, peak ${r.peakRssMiB} MiB during ${during}`,
      ]);
    }
  } finally {
    await bench.close();
    await target.stop();
  }
}

const totalSeconds = Math.round((Date.now() - began) / 1_000);
print([
  `== targets ==`,
  ...targets.map((t) => `  ${t.met ? 'met    ' : 'NOT met'}  ${t.section}: ${t.what} ${t.target} (measured ${t.value ?? 'n/a'})`),
  `total wall time: ${totalSeconds} s (${Object.entries(timings)
    .map(([k, v]) => `${k} ${v} s`)
    .join(', ')}); peak worker RSS ${mib(process.resourceUsage().maxRSS * 1024)} MiB`,
]);
save(true);
log(`figures written to ${outFile}`);
