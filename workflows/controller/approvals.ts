// Approvals: learning who may decide the pending request, taking signed decisions and
// amendments (whether a signature counts is controller/trust.ts), the quorum, and what happens
// once the request closes: the authoritative re-read and the re-check of the precondition just
// before the effect is dispatched. Every handler here runs in `awaiting_approval`; next.ts routes.
import type { Domain } from '../contract.js';
import type { ApprovalRule } from '../tool-contract.js';
import { eligibleApprovers, type Approver } from '../trust/directory.js';
import { canonical } from '../trust/statement.js';
import type { RunEvent } from './events.js';
import { admitCalls, admitForDispatch } from './admission.js';
import { raiseApproval, withApprovers } from './approval-request.js';
import { rereadFor } from './subject.js';
import { pendingRequest, type ApprovalRequest, type HeldDispatch, type In, type PlannedCall, type RunState } from './state.js';
import { checkAmend, checkDecision } from './trust.js';
import { contractOf, control, deadlineReached, onDeadline, proposeOrStop, startCalls, stop, withApprovalClosed } from './transitions.js';

type Awaiting = In<'awaiting_approval'>;

export function onApproversLoaded(state: Awaiting, event: Extract<RunEvent, { type: 'approversLoaded' }>, now: number): RunState {
  const request = state.phase.request;
  if (request.requestId !== event.requestId || request.eligible) return state;
  const eligible = eligibleApprovers({ approvers: event.approvers }, request.roles, state.approverScope);
  if (eligible.length < (request.quorum ?? 1)) {
    // Nobody (or too few) could ever approve: say so now rather than wait out the expiry.
    const closed = withApprovalClosed(
      state,
      'timed_out',
      'directory',
      `the approver directory has ${eligible.length} approver(s) with role ${request.roles.join(' or ')} for this run`,
      now,
    );
    const message = `${request.call.tool} needs ${request.quorum ?? 1} approver(s) with role ${request.roles.join(' or ')}; the directory has ${eligible.length}`;
    if (request.onTimeout === 'escalate') return stop(closed, 'escalated', 'no_approver', message, now);
    return proposeOrStop(control(closed, 'no_approver', message), now);
  }
  return { ...state, phase: { name: 'awaiting_approval', request: { ...request, eligible } } };
}

/**
 * The pending request judged against the directory as it is now: eligibility recomputed,
 * approvals already collected from keys no longer eligible dropped, and a request that can no
 * longer reach its quorum closed as onApproversLoaded would close it.
 */
function withDirectory(state: Awaiting, request: ApprovalRequest, directory: Approver[], now: number): RunState {
  const eligible = eligibleApprovers({ approvers: directory }, request.roles, state.approverScope);
  const stillEligible = (by: string, key: string | undefined) => eligible.some((a) => a.id === by && a.publicKey === key);
  const keyOf = (by: string) => request.eligible?.find((a) => a.id === by)?.publicKey;
  const collected = (request.collected ?? []).filter((c) => stillEligible(c.statement.by, keyOf(c.statement.by)));
  if (eligible.length < (request.quorum ?? 1)) {
    const closed = withApprovalClosed(
      state,
      'timed_out',
      'directory',
      `the approver directory now has ${eligible.length} approver(s) with role ${request.roles.join(' or ')} for this run`,
      now,
    );
    const message = `${request.call.tool} needs ${request.quorum ?? 1} approver(s) with role ${request.roles.join(' or ')}; the directory now has ${eligible.length}`;
    if (request.onTimeout === 'escalate') return stop(closed, 'escalated', 'no_approver', message, now);
    return proposeOrStop(control(closed, 'no_approver', message), now);
  }
  return { ...state, phase: { name: 'awaiting_approval', request: { ...request, eligible, collected } } };
}

export function onApprovalTimedOut(state: Awaiting, event: Extract<RunEvent, { type: 'approvalTimedOut' }>): RunState {
  const request = state.phase.request;
  if (request.requestId !== event.requestId) return state; // a stray or late timer changes nothing
  const closed = withApprovalClosed(state, 'timed_out', 'timer', 'no decision before the approval deadline', event.now);
  if (request.onTimeout === 'escalate') return stop(closed, 'escalated', 'approval_timeout', `no decision on ${request.call.tool} in time`, event.now);
  return proposeOrStop(control(closed, 'approval_timeout', `no one approved ${request.call.tool} in time`), event.now);
}

/**
 * A signed decision. Who may decide is the directory as it is now: a key removed since the
 * request was raised decides nothing, and an approval it gave earlier no longer counts. Only a
 * decision that still checks out counts, whoever put the event here.
 */
export function onDecided(state: Awaiting, domain: Domain, event: Extract<RunEvent, { type: 'decided' }>): RunState {
  const { signed, now } = event;
  const s = signed.statement;
  const pending = state.phase.request;
  if (pending.requestId !== s.requestId) return state; // a stray or late decision changes nothing
  const refreshed = withDirectory(state, pending, event.directory, now);
  const request = pendingRequest(refreshed);
  if (request?.requestId !== pending.requestId) return refreshed;
  const check = checkDecision(refreshed, signed, s.decision, now);
  if (!check.ok) return control(refreshed, 'decision_refused', `${s.by}'s decision was refused: ${check.reason}`);
  if (s.decision === 'approve') {
    const collected = [...(request.collected ?? []), signed];
    if (collected.length < (request.quorum ?? 1)) return { ...refreshed, phase: { name: 'awaiting_approval', request: { ...request, collected } } };
    const by = collected.map((c) => c.statement.by).join(', ');
    return afterApproval(withApprovalClosed(refreshed, 'approved', by, s.comment, now, collected), domain, request, now);
  }
  const closed = withApprovalClosed(refreshed, 'denied', s.by, s.comment, now, [signed]);
  return proposeOrStop(control(closed, 'approval_denied', `${s.by} denied ${request.call.tool}${s.comment ? `: ${s.comment}` : ''}`), now);
}

/** Re-check at execution time: hours may have passed since the request. */
function afterApproval(closed: RunState, domain: Domain, request: ApprovalRequest, now: number): RunState {
  if (deadlineReached(closed, now)) return onDeadline(closed, now);
  // Before the re-read: what no read can change (the budget, an effect in doubt, ...).
  const early = admitForDispatch(closed, domain, request.call, now, { beforeReread: true });
  if (early.kind !== 'admit') return proposeOrStop(control(closed, early.code, `${request.call.tool} was approved, but ${early.message}`), now);

  const accepted = request.precondition?.ok === false ? request.precondition.reason : undefined;
  const pending: HeldDispatch = { call: request.call, requestId: request.requestId, ...(accepted ? { acceptedViolation: accepted } : {}) };
  const contract = contractOf(domain, request.call.tool);
  const reread = rereadFor(contract, request.call.args);
  if (!reread.ok) return proposeOrStop(control(closed, 'precondition_failed', `${request.call.tool} was approved, but ${reread.reason}`), now);
  const wanted = reread.call;
  if (!wanted) return dispatchIfStillValid(closed, pending, domain, now);
  // First the authoritative source again, then the precondition on what it says now.
  const readContract = domain.tools.find((t) => t.name === wanted.tool && t.kind === 'read');
  const args = readContract?.input.safeParse(wanted.args);
  if (!readContract || !args?.success) {
    return proposeOrStop(
      control(closed, 'precondition_failed', `${request.call.tool} was approved, but its re-read ${wanted.tool} is not a valid read of ${domain.name}`),
      now,
    );
  }
  const callId = `c${closed.seq + 1}`;
  const read: PlannedCall = {
    callId,
    turn: closed.turn,
    tool: readContract.name,
    args: args.data,
    kind: 'read',
    idempotent: readContract.idempotent,
    ...(request.call.subject ? { subject: request.call.subject } : {}),
  };
  return startCalls({ ...closed, seq: closed.seq + 1 }, [read], now, { dispatch: pending });
}

/** After the re-read (or without one): every dispatch-time check of admission.ts once more, then the effect or a refusal. */
export function dispatchIfStillValid(state: RunState, pending: HeldDispatch, domain: Domain, now: number): RunState {
  // The re-read can answer after the deadline (the timer and its result in one activation, the
  // result first): the approval then lapses with the run, and nothing is sent.
  if (deadlineReached(state, now)) return onDeadline(state, now);
  // The re-read spent a call of its own, and the evidence is what it says now.
  const admission = admitForDispatch(state, domain, pending.call, now, { acceptedViolation: pending.acceptedViolation });
  if (admission.kind !== 'admit') {
    return proposeOrStop(control(state, admission.code, `${pending.call.tool} was approved, but just before dispatch: ${admission.message}`), now);
  }
  return startCalls(state, [withApprovers(state, pending.call, pending.requestId)], now);
}

/**
 * Edit, then approve. The amended call is a new proposal, by an authenticated operator: it
 * passes the same gate (arguments, budgets, provenance, precondition) as a model's would, gets
 * its own request and digest, and needs its full quorum of fresh decisions (the editor's own
 * approval counts once, like anyone's). The editor's arguments are their signed word, so they
 * are a trusted source for provenance; the old request is closed `amended`, and the records keep
 * what was proposed, what it was amended to, and (in the effects ledger) what ran.
 */
export function onAmended(state: Awaiting, domain: Domain, event: Extract<RunEvent, { type: 'amended' }>): RunState {
  const now = event.now;
  const original = state.phase.request;
  const refreshed = withDirectory(state, original, event.directory, now);
  if (pendingRequest(refreshed)?.requestId !== original.requestId) return refreshed;
  const check = checkAmend(refreshed, event.signed, now);
  const s = event.signed.statement;
  if (!check.ok) return control(refreshed, 'amend_refused', `${s.by}'s amendment was refused: ${check.reason}`);
  // The editor's word, as a signed operator note: what provenance accepts values from, for this
  // call. Once it is judged, the note is marked an amendment, and vouches for nothing after it.
  const note: Extract<RunState['transcript'][number], { kind: 'note' }> = {
    kind: 'note',
    turn: refreshed.turn,
    by: s.by,
    text: `amended ${original.call.tool} to ${canonical(s.args)}`.slice(0, 2_000),
    trusted: true,
  };
  const said: RunState = { ...refreshed, transcript: [...refreshed.transcript, note] };
  const admission = admitCalls(said, domain, { type: 'call', calls: [{ tool: original.call.tool, args: s.args }] }, now);
  if (admission.kind !== 'admit' || !admission.calls[0]) {
    const why = admission.kind === 'admit' ? 'nothing to run' : admission.message;
    return control(refreshed, 'amend_refused', `${s.by}'s amendment of ${original.call.tool} was refused: ${why}`);
  }
  const closed = withApprovalClosed(said, 'amended', s.by, s.comment, now, undefined, event.signed);
  const numbered = { ...closed, seq: closed.seq + admission.calls.length };
  // Asked under its own rule, or (a call asked about only for values nothing vouched for) the one the original was asked under.
  const ask = admission.ask ?? (contractOf(domain, original.call.tool).approval ? undefined : { rule: ruleOf(original), unvouched: [] });
  const judged = raiseApproval(numbered, domain, admission.calls[0], admission.precondition, now, ask);
  const raised = { ...judged, transcript: judged.transcript.map((t) => (t === note ? { ...note, amends: original.requestId } : t)) };
  const amended = pendingRequest(raised);
  if (!amended) return raised;
  return {
    ...raised,
    phase: { name: 'awaiting_approval', request: { ...amended, amendedFrom: { requestId: original.requestId, args: original.call.args, by: s.by } } },
  };
}

/** The rule a request was raised under, as the request records it. */
function ruleOf(request: ApprovalRequest): ApprovalRule {
  return {
    roles: request.roles,
    timeoutMs: request.expiresAt - request.requestedAt,
    onTimeout: request.onTimeout,
    quorum: request.quorum,
    notStarter: request.notStarter,
  };
}
