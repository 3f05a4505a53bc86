// Keeps RunState bounded however long a run lasts. A run of ten thousand turns carries no more
// across continue-as-new than one of a thousand (about 140 KB at these limits, far below
// Temporal's 2 MB payload limit): old receipts, evidence and
// transcript entries are dropped from state (they stay in Temporal's history of the execution
// that made them) and only counted. Anything still referenced is kept: evidence behind a
// pinned fact, an effect or a pending approval, every effect that is not yet settled, and the
// approval record of every effect kept.
import { isInDoubt, type RunState } from './state.js';

export const KEEP = {
  evidence: 64,
  transcript: 96,
  decisions: 128,
  executions: 128,
  settledEffects: 64,
  approvals: 32,
  seen: 256,
  notes: 32,
} as const;

export function fold(state: RunState): RunState {
  const seenKeys = Object.keys(state.seen);
  const over =
    state.evidence.length > KEEP.evidence ||
    state.transcript.length > KEEP.transcript ||
    state.decisions.length > KEEP.decisions ||
    state.executions.length > KEEP.executions ||
    state.effects.length > KEEP.settledEffects ||
    state.approvals.length > KEEP.approvals ||
    seenKeys.length > KEEP.seen;
  if (!over) return state;

  const referenced = new Set<string>([
    ...Object.values(state.pinned).map((p) => p.evidenceId),
    ...state.effects.flatMap((e) => (e.evidenceId ? [e.evidenceId] : [])),
    ...(state.phase.name === 'awaiting_approval' ? state.phase.request.evidenceIds : []),
    ...(state.phase.name === 'verifying' ? state.phase.claim.evidenceIds : []),
  ]);
  const firstRecent = state.evidence.length - KEEP.evidence;
  const evidence = firstRecent <= 0 ? state.evidence : state.evidence.filter((e, i) => i >= firstRecent || referenced.has(e.id));

  const notes = state.transcript.filter((t) => t.kind === 'note').slice(-KEEP.notes);
  const recent = state.transcript.slice(-KEEP.transcript).filter((t) => t.kind !== 'note');
  const transcript = [...notes, ...recent].sort((a, b) => a.turn - b.turn);

  const settled = new Set(state.effects.filter((e) => !isInDoubt(e)).slice(-KEEP.settledEffects));
  const effects = state.effects.filter((e) => isInDoubt(e) || settled.has(e));

  // An effect kept in state keeps the approval it ran under: an auditor checks every effect
  // against its signed record (client/verify.ts), so one must never outlive the other.
  const approvedCalls = new Set(effects.map((e) => e.callId));
  const firstApproval = state.approvals.length - KEEP.approvals;
  const approvals = firstApproval <= 0 ? state.approvals : state.approvals.filter((a, i) => i >= firstApproval || approvedCalls.has(a.callId));

  const decisions = state.decisions.slice(-KEEP.decisions);
  const executions = state.executions.slice(-KEEP.executions);
  // Signatures are re-inserted when used again, so the last keys are the most recently used.
  const seen =
    seenKeys.length <= KEEP.seen ? state.seen : Object.fromEntries(seenKeys.slice(-KEEP.seen).map((k) => [k, state.seen[k] as RunState['seen'][string]]));

  return {
    ...state,
    evidence,
    transcript,
    decisions,
    executions,
    effects,
    approvals,
    seen,
    dropped: {
      evidence: state.dropped.evidence + (state.evidence.length - evidence.length),
      transcript: state.dropped.transcript + (state.transcript.length - transcript.length),
      decisions: state.dropped.decisions + (state.decisions.length - decisions.length),
      executions: state.dropped.executions + (state.executions.length - executions.length),
      effects: state.dropped.effects + (state.effects.length - effects.length),
    },
  };
}
