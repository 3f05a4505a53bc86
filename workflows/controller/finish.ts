// Finishing: a claim is judged on evidence about its subject and against what the run did,
// then a live probe must confirm it. The model's word alone never ends a run `resolved`.
import type { Domain, SoakRule } from '../contract.js';
import { caseSubject } from '../contract.js';
import type { Decision } from './decision.js';
import type { ProbeVerdict } from './events.js';
import type { Evidence, RunState } from './state.js';
import { effectsDoneTo, evidenceAbout } from './subject.js';
import { control, proposeOrStop, reject, stop, withDecisionReceipt, type ReceiptBase } from './transitions.js';

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
  return { ...receipted, phase: 'verifying', pendingClaim: { claim: claim.data, evidenceIds: decision.evidence, ...(doneEarlier ? { doneEarlier } : {}) } };
}

/** The earlier run's effect a refusal names, if it names one (a short, single-line detail). */
function earlierWork(verdict: { ok: false; reason: string; doneEarlier?: unknown }): string | undefined {
  const detail = verdict.doneEarlier;
  return typeof detail === 'string' && detail.trim() ? detail.replace(/\s+/g, ' ').trim().slice(0, 300) : undefined;
}

export function onVerified(state: RunState, domain: Domain, verdict: ProbeVerdict, now: number): RunState {
  const probe = probeEvidence(state, verdict);
  const withProbe: RunState = {
    ...state,
    seq: state.seq + 1,
    evidence: [...state.evidence, probe],
    transcript: [...state.transcript, { kind: 'observation', turn: state.turn, evidenceId: probe.id }],
    executions: [
      ...state.executions,
      {
        callId: probe.callId,
        turn: state.turn,
        tool: 'probe',
        kind: 'probe',
        accepted: true,
        result: verdict.decided ? 'final' : 'unknown',
        attempt: 1,
        durationMs: 0,
        evidenceId: probe.id,
      },
    ],
  };
  const claim = state.pendingClaim;
  const soaked = claim?.soak;
  if (verdict.decided && verdict.holds) {
    // Done by an earlier run: say so, with its effect, rather than claim this run's work.
    const earlier = claim?.doneEarlier;
    if (earlier) return stop(withProbe, 'resolved', 'already_done', `${earlier}; the probe confirms: ${verdict.detail}`.slice(0, 500), now);
    // Fixed now is not fixed: the domain's soak asks that it stay so for the whole window.
    if (domain.soak && claim && !soaked) return startSoak(withProbe, claim, domain.soak, now);
    // The engine knows the window and that the probe, handed it, held; what the probe checked is its own words.
    const detail = soaked ? `${verdict.detail}; held again after a soak of ${seconds(soaked.until - soaked.from)}` : verdict.detail;
    return stop(withProbe, 'resolved', 'probe_confirmed', detail.slice(0, 500), now);
  }
  if (verdict.conflict) return stop(withProbe, 'escalated', 'conflict', verdict.detail, now);
  if (soaked && verdict.decided && domain.soak) {
    // It came back during the window: not resolved, whatever the first probe said.
    const message = `the condition came back during the soak window: ${verdict.detail}`.slice(0, 500);
    if (domain.soak.onRefire === 'escalate') return stop({ ...withProbe, pendingClaim: undefined }, 'escalated', 'refired_during_soak', message, now);
    return proposeOrStop(control({ ...withProbe, pendingClaim: undefined }, 'refired_during_soak', message), now);
  }
  const code = verdict.decided ? 'probe_failed' : 'probe_undecided';
  const fedBack = control(withProbe, code, `finish rejected: ${verdict.detail}`);
  return proposeOrStop(fedBack, now);
}

/**
 * The probe held: the run now waits out the domain's window on a durable timer (the workflow's
 * verify command sleeps until `until`), with the run's clock paused as for an approval, and asks
 * the probe again over the window.
 */
function startSoak(state: RunState, claim: NonNullable<RunState['pendingClaim']>, soak: SoakRule, now: number): RunState {
  const until = now + soak.windowMs;
  const waiting: RunState = { ...state, deadlineAt: state.deadlineAt + soak.windowMs, pendingClaim: { ...claim, soak: { from: now, until } } };
  return control(waiting, 'soaking', `the probe holds; resolved only if it still holds, quiet throughout, after ${seconds(soak.windowMs)}`);
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1_000)} s`;
}

function probeEvidence(state: RunState, verdict: ProbeVerdict): Evidence {
  const id = `e${state.seq + 1}`;
  return {
    id,
    callId: `probe-${id}`,
    tool: 'probe',
    source: 'probe',
    authority: 'authoritative',
    observedAt: verdict.checkedAt,
    effectiveAt: verdict.checkedAt,
    maxAgeMs: 60_000,
    fresh: verdict.decided,
    status: verdict.decided ? 'ok' : 'unknown',
    facts: verdict.facts,
    quoted: [],
    textWithheld: false,
  };
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
