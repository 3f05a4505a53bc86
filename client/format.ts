// Human output helpers: short, aligned, one fact per line. The CLI, the console and the demo
// format times, budgets and a run's headline here, so they say the same thing the same way.
import { headline, type BudgetLeft } from '../workflows/controller/index.js';
import type { RunView } from '../workflows/messages.js';

export function compact(value: unknown, max = 160): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function duration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const sign = ms < 0 ? '-' : '';
  let s = Math.round(Math.abs(ms) / 1000);
  if (s < 60) return `${sign}${s}s`;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return h ? `${sign}${h}h${String(m).padStart(2, '0')}m` : `${sign}${m}m${String(s).padStart(2, '0')}s`;
}

export function timestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/** ISO 8601 to the second (`2026-12-01T21:03:47Z`): what a person reads for any time. */
export function isoTime(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The run's time left, the one way every tool shows it: whole seconds, rounded down (the
 * run's query already says what is left, see operatorMsLeft; this never rounds it up).
 */
export function timeLeft(msLeft: number): string {
  return duration(Math.max(0, Math.floor(msLeft / 1_000) * 1_000));
}

export function budgetLine(left: BudgetLeft, options: { paused?: boolean } = {}): string {
  return [
    `turns ${left.turns}`,
    `tool calls ${left.toolCalls}`,
    `effects ${left.effects}`,
    `duplicates ${left.duplicates}`,
    `tokens ${left.tokens}`,
    options.paused ? `time paused while awaiting approval (${timeLeft(left.msLeft)} left)` : `time ${timeLeft(left.msLeft)}`,
  ].join(', ');
}

/**
 * What a finished run did and how it ended, in one line: the run's own headline (its domain's
 * words), or, from a worker that predates it, the engine's summary of the effects ledger.
 */
export function runHeadline(view: Pick<RunView, 'state' | 'headline'>): string | undefined {
  return view.headline ?? headline(view.state);
}

/** Aligned `label  value` lines. */
export function table(rows: Array<[string, string]>): string[] {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
}
