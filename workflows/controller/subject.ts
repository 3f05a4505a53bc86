// Evidence as judged now, and what it is about. Freshness is re-checked against the clock
// whenever evidence is relied on (viewOf). Subjects: what a call, a fact or a claim is about
// (this transfer, this service). Evidence about one subject never supports a decision about
// another: preconditions, finishes and approval requests look only at evidence about the subject
// they name. An effect's precondition is applied here: only evidence about the call's own subject
// is shown to the contract's check, none of it older than an earlier effect on that subject
// (groundsFor), and a check that throws is a refusal, never a failed workflow task.
import { caseSubject, type DoneEffect } from '../contract.js';
import { type EvidenceView, type PreconditionVerdict, type ToolContract } from '../tool-contract.js';
import type { Evidence, PlannedCall, RunState } from './state.js';

/** Evidence as judged now: freshness is re-checked against the clock whenever it is relied on. */
export function viewOf(evidence: Evidence, now: number): EvidenceView {
  return {
    id: evidence.id,
    tool: evidence.tool,
    source: evidence.source,
    authority: evidence.authority,
    fresh: evidence.status === 'ok' && evidence.fresh && now - evidence.effectiveAt <= evidence.maxAgeMs,
    status: evidence.status,
    facts: evidence.facts,
    ...(evidence.subject ? { subject: evidence.subject } : {}),
  };
}

/** The subject of a call with these (already validated) arguments. */
export function subjectOfCall(contract: ToolContract, args: unknown, caseId: string): string {
  const named = contract.subject?.(args as never);
  // No whitespace: pinned facts are keyed `<subject> <fact>`.
  return typeof named === 'string' && named.length > 0 ? named.replace(/\s+/g, '_').slice(0, 200) : caseSubject(caseId);
}

/** Evidence about one subject, judged against the clock now. */
export function evidenceAbout(state: RunState, subject: string, now: number): EvidenceView[] {
  return state.evidence.filter((e) => (e.subject ?? caseSubject(state.caseId)) === subject).map((e) => viewOf(e, now));
}

/**
 * Evidence about one subject as grounds for a new effect on it. An effect on the subject that
 * was applied (or may have been) changed what earlier observations describe: evidence observed
 * before it is no longer fresh, however young, so "memory exhausted" read before a restart can
 * never justify a second restart.
 */
export function groundsFor(state: RunState, subject: string, now: number): EvidenceView[] {
  const about = state.evidence.filter((e) => (e.subject ?? caseSubject(state.caseId)) === subject);
  const changing = effectsThatMayHaveChanged(state, subject);
  const since = changing.length ? Math.max(...changing.map((e) => sequenceOf(e.callId))) : undefined;
  const settled = settlesAt(changing);
  // An effect's own output and its readbacks come after its call, and speak for it: they stay as they are.
  const own = new Set(state.effects.map((e) => e.callId));
  return about.map((e) => {
    const view = viewOf(e, now);
    if (since !== undefined && view.fresh && sequenceOf(e.id) < since) return { ...view, fresh: false };
    // Read after it, but before it settled: the reading may still show the state before it.
    const unsettled = settled !== undefined && view.fresh && !own.has(e.callId) && e.observedAt < settled;
    return unsettled ? { ...view, fresh: false } : view;
  });
}

/** When the last of the effects on `subject` that may have changed it settles, if any declares a settle time (ToolContract.settleMs). */
export function settledAt(state: RunState, subject: string): number | undefined {
  return settlesAt(effectsThatMayHaveChanged(state, subject));
}

/** The effects on `subject` that were applied, or may have been: all but the failed and the not applied. */
function effectsThatMayHaveChanged(state: RunState, subject: string): RunState['effects'] {
  return state.effects.filter((e) => (e.subject ?? caseSubject(state.caseId)) === subject && e.status !== 'failed' && e.status !== 'not_applied');
}

/** Until then the subject's own readings may still show the state before these effects: each one's sentAt + settleMs. */
function settlesAt(effects: RunState['effects']): number | undefined {
  const until = effects.flatMap((e) => (e.settleMs && e.sentAt !== undefined ? [e.sentAt + e.settleMs] : []));
  return until.length ? Math.max(...until) : undefined;
}

/** `e12` -> 12, `c11` -> 11: ids share one counter, so they order what the run saw and did. */
export function sequenceOf(id: string): number {
  const n = Number.parseInt(id.slice(1), 10);
  return Number.isFinite(n) ? n : 0;
}

/** Effects the run has applied, to anything. */
export function effectsDone(state: RunState): DoneEffect[] {
  return state.effects.filter((e) => e.status === 'applied').map((e) => ({ tool: e.tool, args: e.args, ...(e.subject ? { subject: e.subject } : {}) }));
}

/** Effects the run has applied to one subject. */
export function effectsDoneTo(state: RunState, subject: string): DoneEffect[] {
  return effectsDone(state).filter((d) => (d.subject ?? caseSubject(state.caseId)) === subject);
}

/** `service:db` -> `db`: the part of a subject that names the thing itself. */
export function subjectId(subject: string): string {
  const colon = subject.indexOf(':');
  return colon < 0 ? subject : subject.slice(colon + 1);
}

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
