// Turns a finished run into the lines the demo prints: per turn the decision and its reason
// code, then what came back, then the terminal class.
import { runHeadline } from '../client/format.js';
import type { RunState } from '../workflows/controller/index.js';

/** `said`: the run's own headline (RunView.headline); without it, the engine's from the effects ledger. */
export function renderRun(state: RunState, said?: string): string[] {
  const lines: string[] = [];
  for (let turn = 1; turn <= state.turn; turn++) {
    for (const d of state.decisions.filter((x) => x.turn === turn)) {
      lines.push(`  t${turn}  ${d.proposal}`);
      lines.push(`        ${verdict(d)}`);
    }
    for (const t of state.transcript.filter((x) => x.turn === turn)) {
      if (t.kind === 'observation') {
        const e = state.evidence.find((x) => x.id === t.evidenceId);
        if (e)
          lines.push(
            `        <- ${e.id} ${e.tool} [${e.source}, ${e.authority}, ${e.fresh ? 'fresh' : 'stale'}] ${e.status} ${summarizeFacts(e.facts)}${e.textWithheld ? ' (untrusted text withheld)' : ''}`,
          );
      } else if (t.kind === 'control') {
        lines.push(`        !! ${t.code}: ${t.message}`);
      }
    }
    for (const a of state.approvals.filter((x) => x.turn === turn)) {
      lines.push(`        approval ${a.decision} by ${a.by}${a.comment ? `: ${a.comment}` : ''}`);
    }
  }
  for (const e of state.effects) lines.push(`  effect ${e.tool} key=${e.key} status=${e.status} attempts=${e.attempts}`);
  if (state.terminal) {
    lines.push(`  => ${state.terminal.class} (${state.terminal.reason}): ${state.terminal.detail}`);
    lines.push(`  headline: ${runHeadline({ state, ...(said ? { headline: said } : {}) }) ?? '-'}`);
  }
  return lines;
}

/** `admitted`, `admitted (awaiting approval)`, `refused: unknown_tool`: never "admitted: admitted". */
export function verdict(d: { accepted: boolean; reason: string }): string {
  if (!d.accepted) return `refused: ${d.reason}`;
  return d.reason === 'admitted' ? 'admitted' : `admitted (${d.reason.replace(/_/g, ' ')})`;
}

function summarizeFacts(facts: Record<string, unknown>): string {
  return Object.entries(facts)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
}
