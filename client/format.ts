// Human output helpers: short, aligned, one fact per line.
import type { BudgetLeft } from '../workflows/controller/state.js';

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

export function budgetLine(left: BudgetLeft): string {
  return [
    `turns ${left.turns}`,
    `tool calls ${left.toolCalls}`,
    `effects ${left.effects}`,
    `duplicates ${left.duplicates}`,
    `tokens ${left.tokens}`,
    `time ${duration(left.msLeft)}`,
  ].join(', ');
}

/** Aligned `label  value` lines. */
export function table(rows: Array<[string, string]>): string[] {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
}
