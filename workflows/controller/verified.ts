// The probe's verdict on a finish the gate accepted: only a model-independent probe that holds
// ends a run `resolved` (and, with the domain's soak, holds again after the window). A probe that
// fails or cannot decide hands the turn back to the model with what it said.
import type { Domain, SoakRule } from '../contract.js';
import type { ProbeVerdict } from './events.js';
import type { Evidence, HeldClaim, In, RunState } from './state.js';
import { control, proposeOrStop, stop } from './transitions.js';

export function onVerified(state: In<'verifying'>, domain: Domain, verdict: ProbeVerdict, now: number): RunState {
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
  const claim = state.phase.claim;
  const soaked = claim.soak;
  if (verdict.decided && verdict.holds) {
    // Done by an earlier run: say so, with its effect, rather than claim this run's work.
    const earlier = claim.doneEarlier;
    if (earlier) return stop(withProbe, 'resolved', 'already_done', `${earlier}; the probe confirms: ${verdict.detail}`.slice(0, 500), now);
    // Fixed now is not fixed: the domain's soak asks that it stay so for the whole window.
    if (domain.soak && !soaked) return startSoak(withProbe, claim, domain.soak, now);
    // The engine knows the window and that the probe, handed it, held; what the probe checked is its own words.
    const detail = soaked ? `${verdict.detail}; held again after a soak of ${seconds(soaked.until - soaked.from)}` : verdict.detail;
    return stop(withProbe, 'resolved', 'probe_confirmed', detail.slice(0, 500), now);
  }
  if (verdict.conflict) return stop(withProbe, 'escalated', 'conflict', verdict.detail, now);
  if (soaked && verdict.decided && domain.soak) {
    // It came back during the window: not resolved, whatever the first probe said.
    const message = `the condition came back during the soak window: ${verdict.detail}`.slice(0, 500);
    if (domain.soak.onRefire === 'escalate') return stop(withProbe, 'escalated', 'refired_during_soak', message, now);
    return proposeOrStop(control(withProbe, 'refired_during_soak', message), now);
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
function startSoak(state: RunState, claim: HeldClaim, soak: SoakRule, now: number): RunState {
  const until = now + soak.windowMs;
  const waiting: RunState = {
    ...state,
    deadlineAt: state.deadlineAt + soak.windowMs,
    phase: { name: 'verifying', claim: { ...claim, soak: { from: now, until } } },
  };
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
