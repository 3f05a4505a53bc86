// Section "history": what one turn adds to Temporal's history, by kind of turn.
//
// Method: for each kind, a scripted agent run of N turns all of that kind and one of a single
// turn; per turn = (events or bytes of the N-turn run − those of the 1-turn run) / (N − 1).
// Both runs get the same N-reply script (the 1-turn run just has a 1-turn budget), so they pay
// the same fixed costs (start and its input, deadline timer, first search attributes, the end
// of the run) and the difference is N − 1 turns of that kind and nothing else. Counts are
// Temporal's own: events from the fetched history, bytes from DescribeWorkflowExecution's
// history size.
//
// One artefact is removed: the scripted adapter's config (the whole script) rides along in
// every propose input, which a rules or LLM run does not pay. `bytes` subtracts exactly that
// difference (script JSON − `{"adapter":"rules"}` JSON) per turn; `rawBytes` keeps it.
//
// Runs go one at a time: parallel reads whose replies arrive apart cost an extra (empty)
// workflow task, and running alone keeps that as rare as in a quiet system. The bare baseline
// replays the read run's exact payload sizes (bench/shape.ts) and is measured the same way.
import { executionsOf, round, type Bench, type Finished } from './harness.js';
import { formatTargets, table, type Target } from './report.js';
import { bareTurnsOf, simulateRun } from './shape.js';

export type TurnKind = 'read' | 'parallel-read' | 'effect' | 'bare read';

export interface PerTurn {
  kind: TurnKind;
  events: number;
  /** History bytes per turn as a rules or LLM-model run would pay them (see above). */
  bytes: number;
  /** Measured, including the scripted model's config in every propose input. */
  rawBytes: number;
  /** Events per turn by type, e.g. ActivityTaskScheduled: 1. */
  eventTypes: Record<string, number>;
}

export interface HistoryResult {
  turns: number;
  perTurn: PerTurn[];
  targets: Target[];
  seconds: number;
}

const reply = (kind: TurnKind, n: number): unknown => {
  switch (kind) {
    case 'parallel-read':
      return {
        type: 'call',
        calls: [
          { tool: 'read_counter', args: { n, lane: 1 } },
          { tool: 'read_counter', args: { n, lane: 2 } },
        ],
      };
    case 'effect':
      return { type: 'call', calls: [{ tool: 'touch', args: { n } }] };
    default:
      return { type: 'call', calls: [{ tool: 'read_counter', args: { n } }] };
  }
};

export async function history(bench: Bench, turns: number): Promise<HistoryResult> {
  const started = Date.now();
  const stamp = Date.now().toString(36);
  const scriptFor = (kind: TurnKind) => Array.from({ length: turns }, (_, i) => reply(kind === 'bare read' ? 'read' : kind, i + 1));
  const measure = async (kind: TurnKind, n: number): Promise<{ events: number; bytes: number; types: Record<string, number> }> => {
    const id = `history-${kind.replace(' ', '-')}-${n}-${stamp}`;
    const replies = scriptFor(kind);
    let run: Finished<unknown>;
    if (kind === 'bare read') {
      // The same scripted read run, replayed as sizes: identical calls and payload sizes.
      run = await bench.runBare(id, bareTurnsOf(await simulateRun({ turns: n, model: { adapter: 'scripted', replies } })));
    } else {
      run = await bench.runAgent(id, { model: { adapter: 'scripted', replies }, budgets: { turns: n } });
    }
    const [execution, more] = await executionsOf(bench.client, run.workflowId, run.firstRunId);
    if (!execution || more) throw new Error(`history: ${id} should have exactly one execution`);
    return { events: execution.events, bytes: execution.bytes, types: execution.eventTypes };
  };

  const perTurn: PerTurn[] = [];
  for (const kind of ['read', 'parallel-read', 'effect', 'bare read'] as TurnKind[]) {
    const one = await measure(kind, 1);
    const many = await measure(kind, turns);
    const eventTypes: Record<string, number> = {};
    for (const type of new Set([...Object.keys(one.types), ...Object.keys(many.types)])) {
      const delta = ((many.types[type] ?? 0) - (one.types[type] ?? 0)) / (turns - 1);
      if (delta !== 0) eventTypes[type] = round(delta);
    }
    const rawBytes = Math.round((many.bytes - one.bytes) / (turns - 1));
    const scriptOverhead = JSON.stringify({ adapter: 'scripted', replies: scriptFor(kind) }).length - JSON.stringify({ adapter: 'rules' }).length;
    perTurn.push({ kind, events: round((many.events - one.events) / (turns - 1)), bytes: rawBytes - scriptOverhead, rawBytes, eventTypes });
  }
  return { turns, perTurn, targets: [], seconds: (Date.now() - started) / 1_000 };
}

// Short column names for the event types a turn produces.
const COLUMNS: [string, string][] = [
  ['WorkflowTaskScheduled', 'WFT sched'],
  ['WorkflowTaskStarted', 'WFT start'],
  ['WorkflowTaskCompleted', 'WFT done'],
  ['ActivityTaskScheduled', 'act sched'],
  ['ActivityTaskStarted', 'act start'],
  ['ActivityTaskCompleted', 'act done'],
  ['UpsertWorkflowSearchAttributes', 'search attr'],
];

export function formatHistory(r: HistoryResult): string[] {
  const known = new Set(COLUMNS.map(([type]) => type));
  const other = (p: PerTurn) =>
    Object.entries(p.eventTypes)
      .filter(([type]) => !known.has(type))
      .reduce((n, [, v]) => n + v, 0);
  return [
    `history per turn: (run of ${r.turns} turns − run of 1 turn) / ${r.turns - 1}, one kind of turn per run, scripted model`,
    `  (bytes: without the scripted model's config, which rides in every propose input; raw bytes: with it)`,
    ...table(
      ['turn kind', 'events', 'bytes', 'raw bytes', ...COLUMNS.map(([, short]) => short), 'other'],
      r.perTurn.map((p) => [p.kind, p.events, p.bytes, p.rawBytes, ...COLUMNS.map(([type]) => p.eventTypes[type] ?? 0), other(p)]),
    ),
    ...formatTargets(r.targets),
  ];
}
