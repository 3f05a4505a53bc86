// Finishing: a claim is judged on evidence about its subject and against what the run did; an
// accepted one waits in `verifying` for a live probe (verified.ts). The model's word alone never
// ends a run `resolved`.
import type { Domain } from '../contract.js';
import { caseSubject } from '../contract.js';
import type { Decision } from './decision.js';
import type { RunState } from './state.js';
import { effectsDoneTo, evidenceAbout } from './subject.js';
import { reject, stop, withDecisionReceipt, type ReceiptBase } from './transitions.js';

export function onFinish(state: RunState, domain: Domain, decision: Extract<Decision, { type: 'finish' }>, now: number, receipt: ReceiptBase): RunState {
  const claim = domain.claim.safeParse(decision.claim);
  if (!claim.success) {
    return reject(state, now, { ...receipt, code: 'invalid_claim', message: "the claim does not match this domain's claim shape" });
  }
  const missing = decision.evidence.filter((id) => !state.evidence.some((e) => e.id === id));
  if (missing.length) {
    return reject(state, now, { ...receipt, code: 'unknown_evidence', message: `no evidence with id ${missing.join(', ')}` });
  }
  // Only evidence about what the claim names is judged.
  const subject = claimSubjectOf(domain, claim.data, state.caseId);
  const views = evidenceAbout(state, subject, now);
  const cited = views.filter((v) => decision.evidence.includes(v.id));
  if (cited.length < decision.evidence.length) {
    const elsewhere = decision.evidence.filter((id) => !cited.some((v) => v.id === id));
    return reject(state, now, {
      ...receipt,
      code: 'unsupported_finish',
      message: `evidence ${elsewhere.join(', ')} is not about ${subject}`,
      evidenceIds: decision.evidence,
    });
  }
  let doneEarlier: string | undefined;
  if (domain.judgeDone) {
    const effects = effectsDoneTo(state, subject);
    const done = guardedCall(() => domain.judgeDone?.(claim.data, effects, { caseId: state.caseId, evidence: views, done: effects }) ?? { ok: true as const });
    // Work an earlier run of the case did (a reset, a delete and start again) is accepted as
    // done, for the probe to confirm.
    const earlier = done.ok ? undefined : earlierWork(done);
    if (earlier) doneEarlier = earlier;
    else if (!done.ok) return reject(state, now, { ...receipt, code: 'unsupported_finish', message: done.reason, evidenceIds: decision.evidence });
  }
  const judged = guardedCall(() => {
    const v = domain.judgeEvidence(claim.data, cited, views);
    return { ok: true as const, v };
  });
  if (!judged.ok) return reject(state, now, { ...receipt, code: 'unsupported_finish', message: judged.reason, evidenceIds: decision.evidence });
  const verdict = judged.v;
  if (verdict.kind === 'conflict') {
    const receipted = withDecisionReceipt(state, now, { ...receipt, accepted: false, reason: 'conflict', evidenceIds: decision.evidence });
    return stop(receipted, 'escalated', 'conflict', verdict.reason, now);
  }
  if (verdict.kind === 'unsupported') {
    return reject(state, now, { ...receipt, code: 'unsupported_finish', message: verdict.reason, evidenceIds: decision.evidence });
  }
  const receipted = withDecisionReceipt(state, now, {
    ...receipt,
    accepted: true,
    reason: doneEarlier ? 'verifying:already_done' : 'verifying',
    evidenceIds: decision.evidence,
  });
  return { ...receipted, phase: { name: 'verifying', claim: { claim: claim.data, evidenceIds: decision.evidence, ...(doneEarlier ? { doneEarlier } : {}) } } };
}

/** The earlier run's effect a refusal names, if it names one (a short, single-line detail). */
function earlierWork(verdict: { ok: false; reason: string; doneEarlier?: unknown }): string | undefined {
  const detail = verdict.doneEarlier;
  return typeof detail === 'string' && detail.trim() ? detail.replace(/\s+/g, ' ').trim().slice(0, 300) : undefined;
}

/** What a claim is about (Domain.claimSubject), or the case itself. */
export function claimSubjectOf(domain: Domain, claim: unknown, caseId: string): string {
  const named = guardedCall(() => ({ ok: true as const, v: domain.claimSubject?.(claim, caseId) }));
  return named.ok && typeof named.v === 'string' && named.v ? named.v : caseSubject(caseId);
}

/** A domain callback that throws becomes a refusal with its reason, never a failed workflow task. */
export function guardedCall<T extends { ok: true }>(fn: () => T | { ok: false; reason: string }): T | { ok: false; reason: string } {
  try {
    return fn();
  } catch (err) {
    return { ok: false, reason: `the domain's check failed: ${err instanceof Error ? err.message.slice(0, 200) : 'error'}` };
  }
}
