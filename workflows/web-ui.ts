// What the Temporal Web UI shows of a run while it runs: its current details (no command, no
// history: only the latest word; a tool call's summary is perform.ts's). Words for people
// scanning a list of workflows, kept apart from the loop that decides what to do. A request a
// person denied is said with who denied it and why, while the run goes on and once it ends.
import { shownPhase, type Step, type RunState } from './controller/index.js';

/** The run in one line: its phase, its turn against the budget, and what it waits on. */
export function currentDetails(step: Step): string {
  const s = step.state;
  const waiting =
    step.command.type === 'awaitApproval' || step.command.type === 'loadApprovers'
      ? `waiting for approval of ${step.command.request.call.tool} until ${new Date(step.command.request.expiresAt).toISOString()}`
      : step.command.type === 'invoke'
        ? `running ${step.command.calls.map((c) => c.tool).join(', ')}`
        : step.command.type === 'readback'
          ? `${s.phase.name === 'cancelling' ? `cancelled by ${s.phase.by}; ` : ''}reading back ${step.command.effect.tool} (key ${step.command.effect.key})`
          : step.command.type;
  const denied = denialWords(s);
  return `**${shownPhase(s.phase)}** · turn ${s.turn}/${s.budgets.turns} · ${waiting}${denied ? `\n\n${denied}` : ''}`;
}

/** The ended run's details: its headline first (what the Web UI's summary line shows), then the denial that led there, if one did. */
export function finalDetails(state: RunState, headline: string | undefined): string {
  const first = headline ?? state.terminal?.class ?? shownPhase(state.phase);
  const denied = denialWords(state);
  return denied ? `${first}\n\n${denied}` : first;
}

/** The latest closed request, when a person denied it: `reissue_transfer denied by alice@ops: wrong beneficiary`. */
export function denialWords(state: Pick<RunState, 'approvals'>): string | undefined {
  const last = state.approvals.at(-1);
  if (last?.decision !== 'denied') return undefined;
  const comment = oneLine(last.comment, 200);
  return `request ${last.requestId} denied by ${oneLine(last.by, 200)}${comment ? `: ${comment}` : ''}`;
}

/** An approver's words on one line of the details (they are rendered as markdown), cut to `max`. */
function oneLine(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
