// Subjects: what a call, a fact or a claim is about (this transfer, this service). Evidence
// about one subject never supports a decision about another: preconditions, finishes and
// approval requests look only at evidence about the subject they name.
import { caseSubject, type DoneEffect, type EvidenceView, type ToolContract } from '../contract.js';
import { viewOf } from './observation.js';
import type { RunState } from './state.js';

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
