// Section "context": how many tokens the model is sent per turn, by context strategy. Pure
// computation, no server: the controller is driven with the synthetic rules policy's
// decisions and the no-op tools' results (bench/shape.ts), and the `propose` command's
// compiled context is read at the chosen turns.
//
// What to expect: `window_pinned` sends the last N transcript entries plus one pinned value
// per fact key, so it stays flat. `full` sends the whole transcript and all evidence *held in
// state*, and retention (controller/retention.ts, KEEP) bounds those: 96 transcript entries and
// the 64 newest evidence records, plus older evidence still referenced by a kept settled effect
// (64 of them; the rules policy makes one every 10th turn). So `full` grows until about turn
// 640 and is flat after that, at roughly ten times `window_pinned`. Without retention it would
// grow linearly with the run.
import { synthetic } from '../domains/synthetic/domain.js';
import { KEEP } from '../workflows/controller/index.js';
import { domainDefaults, type ContextStrategy } from '../workflows/contract.js';
import { formatTargets, table, target, type Target } from './report.js';
import { simulateRun } from './shape.js';

export interface ContextTokensResult {
  turns: number[];
  /** strategy → tokens at each of `turns` (the context's own tokenEstimate). */
  tokens: Record<ContextStrategy, number[]>;
  /** strategy → characters of JSON at each of `turns`. */
  bytes: Record<ContextStrategy, number[]>;
  retentionCaps: { transcript: number; evidence: number; settledEffects: number };
  window: number;
  targets: Target[];
  seconds: number;
}

const STRATEGIES: ContextStrategy[] = ['full', 'window', 'window_pinned'];

export async function contextTokens(turns: number[] = [10, 100, 1_000]): Promise<ContextTokensResult> {
  const started = Date.now();
  const last = Math.max(...turns);
  const tokens = {} as Record<ContextStrategy, number[]>;
  const bytes = {} as Record<ContextStrategy, number[]>;
  for (const strategy of STRATEGIES) {
    // One run as long as the last turn asked for; the turn budget makes that turn the finish.
    const run = await simulateRun({ turns: last, strategy, runId: `context-${strategy}` });
    const at = (turn: number) => {
      const shape = run.find((t) => t.turn === turn);
      if (!shape) throw new Error(`context section: no turn ${turn} in a ${last}-turn run`);
      return shape;
    };
    tokens[strategy] = turns.map((t) => at(t).contextTokens);
    // The model input minus the fixed wrapper is close to the context; tokens are what matter.
    bytes[strategy] = turns.map((t) => at(t).model.inBytes);
  }

  const i100 = turns.indexOf(100);
  const iLast = turns.length - 1;
  const pinned = tokens.window_pinned;
  const growth = i100 >= 0 && pinned[i100] ? round2((pinned[iLast] ?? 0) / pinned[i100]) : null;
  return {
    turns,
    tokens,
    bytes,
    retentionCaps: { transcript: KEEP.transcript, evidence: KEEP.evidence, settledEffects: KEEP.settledEffects },
    window: domainDefaults(synthetic).window,
    targets: [target(`window_pinned tokens turn ${turns[iLast]} ÷ turn 100`, growth, 1.2)],
    seconds: (Date.now() - started) / 1_000,
  };
}

export function formatContextTokens(r: ContextTokensResult): string[] {
  return [
    `context tokens per turn (synthetic rules run, window ${r.window}; pure controller, no server)`,
    ...table(
      ['strategy', ...r.turns.map((t) => `turn ${t}`), `×(${r.turns.at(-1)}/${r.turns[0]})`],
      STRATEGIES.map((s) => [s, ...r.tokens[s], round2((r.tokens[s].at(-1) ?? 0) / (r.tokens[s][0] ?? 1))]),
    ),
    `  note: \`full\` is bounded only by retention: ${r.retentionCaps.transcript} transcript entries, the ${r.retentionCaps.evidence} newest evidence records`,
    `        and evidence behind the last ${r.retentionCaps.settledEffects} settled effects (one every 10th turn), so it grows until`,
    `        about turn ${r.retentionCaps.settledEffects * 10} and is flat after; without retention it would grow with every turn.`,
    ...formatTargets(r.targets),
  ];
}

const round2 = (n: number): number => Math.round(n * 100) / 100;
