// Plain-text tables and target lines. The bench never fails on a target: it prints each
// target, the measured value and whether it was met, and stores the same in the JSON.

export interface Target {
  what: string;
  /** Human-readable bound, e.g. "≤ 1.15". */
  target: string;
  value: number | null;
  met: boolean;
}

export function target(what: string, value: number | null, limit: number, direction: 'max' | 'min' = 'max'): Target {
  const met = value !== null && Number.isFinite(value) && (direction === 'max' ? value <= limit : value >= limit);
  return { what, target: `${direction === 'max' ? '≤' : '≥'} ${limit}`, value, met };
}

export function formatTargets(targets: Target[]): string[] {
  return targets.map((t) => `  target ${t.what} ${t.target}: ${t.value ?? 'n/a'} → ${t.met ? 'met' : 'NOT met'}`);
}

export type Cell = string | number | null | undefined;

/** A left-aligned first column and right-aligned figures. */
export function table(header: Cell[], rows: Cell[][]): string[] {
  const text = (c: Cell): string => (c === null || c === undefined ? '—' : typeof c === 'number' ? formatNumber(c) : c);
  const all = [header, ...rows].map((r) => r.map(text));
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r, rowIndex) => {
    const line = r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('   ');
    return rowIndex === 0 ? `  ${line}\n  ${'-'.repeat(line.length)}` : `  ${line}`;
  });
}

function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2);
}
