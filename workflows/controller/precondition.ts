// Effect preconditions, as the controller applies them: only evidence about the call's own
// subject is shown to the contract's check, none of it older than an earlier effect on that
// subject (subject.ts groundsFor), and a check that throws is a refusal, never a failed
// workflow task.
import type { PreconditionVerdict, ToolContract } from '../contract.js';
import type { PlannedCall, RunState } from './state.js';
import { groundsFor, subjectOfCall } from './subject.js';

export function checkPrecondition(state: RunState, contract: ToolContract, call: Pick<PlannedCall, 'args' | 'subject'>, now: number): PreconditionVerdict {
  const precondition = contract.precondition;
  if (!precondition) return { ok: true };
  const subject = call.subject ?? subjectOfCall(contract, call.args, state.caseId);
  try {
    const verdict = precondition.check(call.args as never, groundsFor(state, subject, now), { caseId: state.caseId });
    if (verdict.ok) return { ok: true };
    return { ok: false, reason: String(verdict.reason).slice(0, 300) };
  } catch (err) {
    return { ok: false, reason: `the precondition of ${contract.name} could not be evaluated: ${err instanceof Error ? err.message.slice(0, 200) : 'error'}` };
  }
}

/** The read to repeat before dispatching an effect that waited for a person, if the contract names one. */
export function rereadFor(contract: ToolContract, args: unknown): { ok: true; call?: { tool: string; args: unknown } } | { ok: false; reason: string } {
  const reread = contract.precondition?.reread;
  if (!reread) return { ok: true };
  try {
    return { ok: true, call: { tool: reread.tool, args: reread.args(args as never) } };
  } catch (err) {
    return { ok: false, reason: `its re-read could not be built: ${err instanceof Error ? err.message.slice(0, 200) : 'error'}` };
  }
}
