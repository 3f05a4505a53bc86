// Section "long run": one synthetic rules run of 10,000 turns across continue-as-new.
// Per-turn timing comes from the activity side: the bench worker is in this process and
// stamps every `propose` call, so turn k starts at stamp k, with no query or history read in
// the way. Histories are read afterwards by following continue-as-new from the first run.
import { startInputOf } from '../client/start-input.js';
import { executionsOf, median, round, type Bench } from './harness.js';
import { formatTargets, table, target, type Target } from './report.js';

export interface LongRunOptions {
  turns: number;
  /** Turns in the first and the last timing window (1,000 by default). */
  window: number;
  /** Unset: roll over when the server suggests it (the engine's default). */
  continueAsNewAfterEvents?: number;
}

export interface LongRunResult extends LongRunOptions {
  terminal: string;
  turnsDone: number;
  wallMs: number;
  /** Mean ms per turn over the first and the last window, and last ÷ first. */
  msPerTurn: { first: number; last: number; ratio: number };
  /** Median turn-to-turn gap in each window: less sensitive to other load on the machine. */
  medianGapMs: { first: number; last: number; ratio: number };
  executions: number;
  maxEventsPerExecution: number;
  eventsPerExecution: number[];
  totalEvents: number;
  maxHistoryBytes: number;
  largestPayload: { bytes: number; eventType: string; execution: number };
  /** The state the last execution was handed by continue-as-new: JSON size, and its biggest parts. */
  carriedState: { bytes: number; largestFields: { field: string; bytes: number; entries: number | null }[] } | null;
  targets: Target[];
  seconds: number;
}

export async function longRun(bench: Bench, options: LongRunOptions, log: (m: string) => void): Promise<LongRunResult> {
  const started = Date.now();
  const { turns, window } = options;
  const id = `long-run-${turns}-${Date.now().toString(36)}`;
  const stamps: number[] = [];
  bench.proposeTimes.set(id, stamps);
  const progress = setInterval(() => log(`long run: ${stamps.length}/${turns} turns after ${Math.round((Date.now() - started) / 1_000)} s`), 30_000);
  progress.unref();
  let run;
  try {
    run = await bench.runAgent(id, {
      model: { adapter: 'rules' },
      budgets: { turns },
      ...(options.continueAsNewAfterEvents ? { continueAsNewAfterEvents: options.continueAsNewAfterEvents } : {}),
    });
  } finally {
    clearInterval(progress);
    bench.proposeTimes.delete(id);
  }
  // A retried propose would stamp twice; the synthetic model never fails, so check instead of guessing.
  if (stamps.length !== turns || run.result.turns !== turns) {
    throw new Error(`long run: ${stamps.length} propose calls and ${run.result.turns} turns, expected ${turns}`);
  }

  log('long run: reading the histories of every execution');
  const executions = await executionsOf(bench.client, run.workflowId, run.firstRunId);
  let largestPayload = { bytes: 0, eventType: '', execution: 0 };
  executions.forEach((e, i) => {
    if (e.largestPayload.bytes > largestPayload.bytes) largestPayload = { ...e.largestPayload, execution: i + 1 };
  });

  const lastExecution = executions.at(-1);
  const input =
    executions.length > 1 && lastExecution
      ? ((await startInputOf(bench.client, run.workflowId, lastExecution.runId)) as { carried?: Record<string, unknown> })
      : undefined;
  const carriedState = input?.carried ? describeState(input.carried) : null;

  const meanPerTurn = (from: number) => ((stamps[from + window - 1] as number) - (stamps[from] as number)) / (window - 1);
  const gaps = (from: number) => stamps.slice(from + 1, from + window).map((t, i) => t - (stamps[from + i] as number));
  const first = meanPerTurn(0);
  const last = meanPerTurn(turns - window);
  const firstGap = median(gaps(0));
  const lastGap = median(gaps(turns - window));
  const eventsPerExecution = executions.map((e) => e.events);
  const maxEvents = Math.max(...eventsPerExecution);
  const ratio = round(last / first);
  return {
    ...options,
    terminal: `${run.result.terminal.class}/${run.result.terminal.reason}`,
    turnsDone: run.result.turns,
    wallMs: run.ms,
    msPerTurn: { first: round(first), last: round(last), ratio },
    medianGapMs: { first: firstGap, last: lastGap, ratio: round(lastGap / firstGap) },
    executions: executions.length,
    maxEventsPerExecution: maxEvents,
    eventsPerExecution,
    totalEvents: eventsPerExecution.reduce((a, b) => a + b, 0),
    maxHistoryBytes: Math.max(...executions.map((e) => e.bytes)),
    largestPayload,
    carriedState,
    targets: [target(`ms/turn last ${window} ÷ first ${window}`, ratio, 1.2), target('max events in one execution', maxEvents, 10_000)],
    seconds: (Date.now() - started) / 1_000,
  };
}

export function formatLongRun(r: LongRunResult): string[] {
  return [
    `long run: ${r.turns.toLocaleString('en-US')} turns, synthetic rules, continue-as-new ${r.continueAsNewAfterEvents ? `after ${r.continueAsNewAfterEvents} events` : 'when the server suggests it'}`,
    ...table(
      ['', 'value'],
      [
        ['ended', r.terminal],
        ['wall time (s)', round(r.wallMs / 1_000, 1)],
        [`ms/turn, first ${r.window} turns (mean)`, r.msPerTurn.first],
        [`ms/turn, last ${r.window} turns (mean)`, r.msPerTurn.last],
        ['  last ÷ first', r.msPerTurn.ratio],
        ['turn gap, first window (median ms)', r.medianGapMs.first],
        ['turn gap, last window (median ms)', r.medianGapMs.last],
        ['executions', r.executions],
        ['events per execution (max)', r.maxEventsPerExecution],
        ['events, all executions', r.totalEvents],
        ['history bytes per execution (max)', r.maxHistoryBytes],
        ['largest payload in any history (bytes)', r.largestPayload.bytes],
        ['  in event', `${r.largestPayload.eventType} (execution ${r.largestPayload.execution})`],
        ['state carried by continue-as-new (JSON bytes)', r.carriedState?.bytes ?? null],
        ...(r.carriedState?.largestFields ?? []).map((f) => [`  ${f.field}${f.entries === null ? '' : ` (${f.entries} entries)`}`, f.bytes]),
      ],
    ),
    ...formatTargets(r.targets),
  ];
}

function describeState(state: Record<string, unknown>): NonNullable<LongRunResult['carriedState']> {
  const largestFields = Object.entries(state)
    .map(([field, value]) => ({
      field,
      bytes: JSON.stringify(value ?? null).length,
      entries: Array.isArray(value) ? value.length : value && typeof value === 'object' ? Object.keys(value).length : null,
    }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 6);
  return { bytes: JSON.stringify(state).length, largestFields };
}
