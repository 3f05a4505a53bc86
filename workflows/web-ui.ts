// What the Temporal Web UI shows of a run while it runs: its current details (no command, no
// history: only the latest word) and the short labels tool summaries use. Words for people
// scanning a list of workflows, kept apart from the loop that decides what to do.
import type { Step } from './controller/next.js';

/** `transfer:PX-1042` -> `PX-1042`: what an operator scanning the Web UI needs. */
export function subjectLabel(subject: string): string {
  const colon = subject.indexOf(':');
  return colon < 0 ? subject : subject.slice(colon + 1);
}

/** The run in one line: its phase, its turn against the budget, and what it waits on. */
export function currentDetails(step: Step): string {
  const s = step.state;
  const waiting =
    step.command.type === 'awaitApproval' || step.command.type === 'loadApprovers'
      ? `waiting for approval of ${step.command.request.call.tool} until ${new Date(step.command.request.expiresAt).toISOString()}`
      : step.command.type === 'invoke'
        ? `running ${step.command.calls.map((c) => c.tool).join(', ')}`
        : step.command.type === 'readback'
          ? `${s.cancelling ? `cancelled by ${s.cancelling.by}; ` : ''}reading back ${step.command.effect.tool} (key ${step.command.effect.key})`
          : step.command.type;
  return `**${s.phase}** · turn ${s.turn}/${s.budgets.turns} · ${waiting}`;
}
