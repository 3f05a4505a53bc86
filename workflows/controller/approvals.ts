// Approvals: raising a request for an effect, learning who may decide it, judging signed
// decisions (the Update validator asks the same question before anything is accepted), the
// quorum, and what happens once the request closes: the authoritative re-read and the
// re-check of the precondition just before the effect is dispatched.
import { isGuarded, isBound } from './generations.js';
import type { Domain, PreconditionVerdict } from '../contract.js';
import { eligibleApprovers, type Approver } from '../trust/directory.js';
import { canonical, digestOf, MAX_STATEMENT_LIFETIME_MS, verifyStatement, type SignedAmend, type SignedDecision } from '../trust/statement.js';
import type { RunEvent } from './events.js';
import { displayFacts } from './display.js';
import { admitCalls } from './gate.js';
import { checkPrecondition, rereadFor } from './precondition.js';
import type { ApprovalRequest, PlannedCall, RunState } from './state.js';
import { evidenceAbout } from './subject.js';
import {
  contractOf,
  control,
  deadlineReached,
  inDoubt,
  latestEvidenceIds,
  onDeadline,
  proposeOrStop,
  startCalls,
  stop,
  withApprovalClosed,
} from './transitions.js';

/** The request for one effect; the run waits in `awaiting_approval` until it closes. */
export function raiseApproval(state: RunState, domain: Domain, call: PlannedCall, verdict: PreconditionVerdict | undefined, now: number): RunState {
  const rule = contractOf(domain, call.tool).approval;
  if (!rule) throw new Error(`bug: ${call.tool} has no approval rule`);
  const requestId = `${state.runId}/approval/${call.callId}`;
  const base: ApprovalRequest = {
    requestId,
    call,
    evidenceIds: latestEvidenceIds(state),
    roles: rule.roles,
    requestedAt: now,
    expiresAt: now + (state.approvalTimeoutMs ?? rule.timeoutMs),
    onTimeout: rule.onTimeout,
  };
  if (!isGuarded(state)) return { ...state, phase: 'awaiting_approval', pendingApproval: base };
  const subject = call.subject ?? '';
  const request: ApprovalRequest = {
    ...base,
    // What the approver is shown rests on evidence about the call's subject only.
    evidenceIds: evidenceAbout(state, subject, now)
      .map((e) => e.id)
      .slice(-10),
    subject,
    digest: approvalDigest(state.runId, requestId, call, state.chain),
    quorum: rule.quorum ?? 1,
    notStarter: rule.notStarter ?? false,
    precondition: verdict && !verdict.ok ? { ok: false, reason: verdict.reason } : { ok: true },
    collected: [],
  };
  const display = displayFacts(state, contractOf(domain, call.tool), call, now);
  return { ...state, phase: 'awaiting_approval', pendingApproval: display ? { ...request, display } : request };
}

/**
 * What a signature binds to: this run, this request, this exact call and its subject, and (for
 * runs that know it) the chain's first execution. A new execution under the same workflow id
 * raises the same request id for the same call, but never the same digest.
 */
export function approvalDigest(runId: string, requestId: string, call: PlannedCall, chain?: string): string {
  return digestOf({ runId, requestId, tool: call.tool, args: call.args, subject: call.subject ?? null, ...(chain ? { chain } : {}) });
}

/**
 * How long after a run's start its start statement may still be valid. A statement that
 * outlives this was not made for this start, or was made long ago: it could be a copy of
 * someone's earlier start, replayed to name them as the starter of a run they never began.
 */
export const START_STATEMENT_WINDOW_MS = 15 * 60_000;

export function onApproversLoaded(state: RunState, event: Extract<RunEvent, { type: 'approversLoaded' }>, now: number): RunState {
  const request = state.pendingApproval;
  if (!request || request.requestId !== event.requestId || request.eligible) return state;
  const eligible = eligibleApprovers({ approvers: event.approvers }, request.roles, state.approverScope);
  state = { ...state, ...verifiedStarter(state, event.approvers) };
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
  return { ...state, pendingApproval: { ...request, eligible } };
}

/**
 * The pending request judged against the directory as it is now: eligibility recomputed,
 * approvals already collected from keys no longer eligible dropped, and a request that can no
 * longer reach its quorum closed as onApproversLoaded would close it.
 */
function withDirectory(state: RunState, request: ApprovalRequest, directory: Approver[], now: number): RunState {
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
  return { ...state, pendingApproval: { ...request, eligible, collected } };
}

/** Who started the run, if the start statement verifies under the directory's key for its signer. */
function verifiedStarter(state: RunState, directory: Approver[]): { starter?: string } {
  const claim = state.starterClaim;
  if (!claim || state.starter) return {};
  const s = claim.statement;
  const key = directory.filter((a) => a.id === s.by);
  if (key.length !== 1 || s.runId !== state.runId || s.expiresAt < state.startedAt) return {};
  if (state.chain && s.expiresAt > state.startedAt + START_STATEMENT_WINDOW_MS) return {};
  return verifyStatement(claim, (key[0] as Approver).publicKey) ? { starter: s.by } : {};
}

export type DecisionCheck = { ok: true; approver: Approver } | { ok: false; reason: string };

/**
 * Would this signed decision count? Asked by the Update validator (a refusal costs no history)
 * and again by the controller when the decision arrives. Pure.
 */
export function checkDecision(state: RunState, signed: SignedDecision, decision: 'approve' | 'deny', now: number): DecisionCheck {
  const request = state.pendingApproval;
  const s = signed.statement;
  if (state.terminal) return { ok: false, reason: `run already ended (${state.terminal.class})` };
  if (!request || request.requestId !== s.requestId) return { ok: false, reason: `request ${s.requestId} is not pending` };
  if (!request.eligible) return { ok: false, reason: 'the approver directory for this request is still loading; try again in a moment' };
  if (s.runId !== state.runId) return { ok: false, reason: `the statement is for run ${s.runId}, not ${state.runId}` };
  if (s.decision !== decision) return { ok: false, reason: `the statement says ${s.decision}, not ${decision}` };
  if (s.digest !== request.digest) return { ok: false, reason: 'the call you signed is not the one that would run; fetch the request again' };
  if (s.expiresAt <= now) return { ok: false, reason: 'the signed statement has expired' };
  if (s.expiresAt > now + MAX_STATEMENT_LIFETIME_MS) return { ok: false, reason: 'the signed statement is valid for too long (at most 24 h)' };
  const approver = request.eligible.find((a) => a.id === s.by);
  if (!approver)
    return { ok: false, reason: `${s.by} may not decide ${request.call.tool} (needs ${request.roles.join(' or ')} in the worker's approver directory)` };
  if (!verifyStatement(signed, approver.publicKey)) return { ok: false, reason: `the signature does not verify under ${s.by}'s key` };
  if (request.notStarter) {
    if (!state.starter)
      return { ok: false, reason: `${request.call.tool} needs an approver other than the run's starter, and this run's start was not signed` };
    if (state.starter === s.by) return { ok: false, reason: `${s.by} started this run and may not approve its ${request.call.tool}` };
  }
  if ((request.collected ?? []).some((c) => c.statement.by === s.by)) return { ok: false, reason: `${s.by} has already approved request ${s.requestId}` };
  // A quorum counts people, and a person is a key: never two approvals under one key.
  const sameKey = (request.collected ?? []).find((c) => request.eligible?.find((a) => a.id === c.statement.by)?.publicKey === approver.publicKey);
  if (sameKey) return { ok: false, reason: `${s.by} signs with the same key as ${sameKey.statement.by}, who has already approved` };
  return { ok: true, approver };
}

export function onApprovalOutcome(state: RunState, domain: Domain, event: Extract<RunEvent, { type: 'approved' | 'denied' | 'approvalTimedOut' }>): RunState {
  let request = state.pendingApproval;
  if (!request || request.requestId !== event.requestId) {
    if (isGuarded(state)) return state; // a stray or late event changes nothing
    throw new Error(`bug: approval event for ${event.requestId}, which is not pending`);
  }
  const now = event.now;
  if (event.type === 'approvalTimedOut') {
    const closed = withApprovalClosed(state, 'timed_out', 'timer', 'no decision before the approval deadline', now);
    if (request.onTimeout === 'escalate') return stop(closed, 'escalated', 'approval_timeout', `no decision on ${request.call.tool} in time`, now);
    return proposeOrStop(control(closed, 'approval_timeout', `no one approved ${request.call.tool} in time`), now);
  }
  if (isGuarded(state)) {
    if (event.directory) {
      // Who may decide is the directory as it is now: a key removed since the request was
      // raised decides nothing, and an approval it gave earlier no longer counts.
      const refreshed = withDirectory(state, request, event.directory, now);
      if (refreshed.pendingApproval?.requestId !== request.requestId) return refreshed;
      state = refreshed;
    }
    // Only a signed decision that still checks out counts, whoever put the event here.
    const check = event.signed ? checkDecision(state, event.signed, event.type === 'approved' ? 'approve' : 'deny', now) : undefined;
    if (event.directory && event.signed && check && !check.ok)
      return control(state, 'decision_refused', `${event.signed.statement.by}'s decision was refused: ${check.reason}`);
    if (!check?.ok || !event.signed) return state;
    request = state.pendingApproval ?? request;
    if (event.type === 'approved') {
      const collected = [...(request.collected ?? []), event.signed];
      if (collected.length < (request.quorum ?? 1)) return { ...state, pendingApproval: { ...request, collected } };
      const by = collected.map((c) => c.statement.by).join(', ');
      return afterApproval(withApprovalClosed(state, 'approved', by, event.signed.statement.comment, now, collected), domain, request, now);
    }
    const closed = withApprovalClosed(state, 'denied', event.signed.statement.by, event.signed.statement.comment, now, [event.signed]);
    return proposeOrStop(
      control(
        closed,
        'approval_denied',
        `${event.signed.statement.by} denied ${request.call.tool}${event.signed.statement.comment ? `: ${event.signed.statement.comment}` : ''}`,
      ),
      now,
    );
  }
  if (event.type === 'denied') {
    const closed = withApprovalClosed(state, 'denied', event.by, event.comment, now);
    return proposeOrStop(control(closed, 'approval_denied', `${event.by} denied ${request.call.tool}${event.comment ? `: ${event.comment}` : ''}`), now);
  }
  return afterApproval(withApprovalClosed(state, 'approved', event.by, event.comment, now), domain, request, now);
}

/** Re-check at execution time: hours may have passed since the request. */
function afterApproval(closed: RunState, domain: Domain, request: ApprovalRequest, now: number): RunState {
  if (deadlineReached(closed, now)) return onDeadline(closed, now);
  if (closed.used.effects + 1 > closed.budgets.effects || closed.used.toolCalls + 1 > closed.budgets.toolCalls) {
    return proposeOrStop(control(closed, 'over_budget', 'approved, but the budget no longer allows this effect'), now);
  }
  if (inDoubt(closed)) return proposeOrStop(control(closed, 'effect_in_doubt', 'approved, but an earlier effect is still in doubt'), now);
  if (!isGuarded(closed)) return startCalls(closed, [request.call]);

  const accepted = request.precondition?.ok === false ? request.precondition.reason : undefined;
  const pending = { call: request.call, requestId: request.requestId, ...(accepted ? { acceptedViolation: accepted } : {}) };
  const contract = contractOf(domain, request.call.tool);
  const reread = rereadFor(contract, request.call.args);
  if (!reread.ok) return proposeOrStop(control(closed, 'precondition_failed', `${request.call.tool} was approved, but ${reread.reason}`), now);
  const wanted = reread.call;
  if (!wanted) return dispatchIfStillValid({ ...closed, pendingDispatch: pending }, domain, now);
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
  return startCalls({ ...closed, seq: closed.seq + 1, pendingDispatch: pending }, [read]);
}

/** After the re-read (or without one): the precondition once more, then the effect or a refusal. */
export function dispatchIfStillValid(state: RunState, domain: Domain, now: number): RunState {
  const pending = state.pendingDispatch;
  if (!pending) return state;
  const cleared: RunState = { ...state, pendingDispatch: undefined };
  const verdict = checkPrecondition(cleared, contractOf(domain, pending.call.tool), pending.call, now);
  // An approver who accepted a stated violation accepted that one, not whatever holds now.
  const holds = verdict.ok || verdict.reason === pending.acceptedViolation;
  if (!holds) {
    return proposeOrStop(control(cleared, 'precondition_failed', `${pending.call.tool} was approved, but just before dispatch: ${verdict.reason}`), now);
  }
  if (inDoubt(cleared)) return proposeOrStop(control(cleared, 'effect_in_doubt', 'approved, but an earlier effect is still in doubt'), now);
  return startCalls(cleared, [pending.call]);
}

/**
 * Would this signed amendment count? Asked by the amend Update's validator and again when it
 * arrives. The signer must be one who may decide the request, the statement must be over the
 * request and digest the run shows now, and only engine-v4 runs take amendments.
 */
export function checkAmend(state: RunState, signed: SignedAmend, now: number): DecisionCheck {
  const request = state.pendingApproval;
  const s = signed.statement;
  if (!isBound(state)) return { ok: false, reason: 'this run predates amendments; deny the request and note what you want instead' };
  if (state.terminal) return { ok: false, reason: `run already ended (${state.terminal.class})` };
  if (!request || request.requestId !== s.requestId) return { ok: false, reason: `request ${s.requestId} is not pending` };
  if (!request.eligible) return { ok: false, reason: 'the approver directory for this request is still loading; try again in a moment' };
  if (s.runId !== state.runId) return { ok: false, reason: `the statement is for run ${s.runId}, not ${state.runId}` };
  if (s.digest !== request.digest) return { ok: false, reason: 'the call you amended is not the one pending; fetch the request again' };
  if (s.expiresAt <= now) return { ok: false, reason: 'the signed statement has expired' };
  if (s.expiresAt > now + MAX_STATEMENT_LIFETIME_MS) return { ok: false, reason: 'the signed statement is valid for too long (at most 24 h)' };
  const approver = request.eligible.find((a) => a.id === s.by);
  if (!approver)
    return { ok: false, reason: `${s.by} may not decide ${request.call.tool} (needs ${request.roles.join(' or ')} in the worker's approver directory)` };
  if (!verifyStatement(signed, approver.publicKey)) return { ok: false, reason: `the signature does not verify under ${s.by}'s key` };
  if (canonical(s.args) === canonical(request.call.args))
    return { ok: false, reason: 'the amended arguments are the ones pending; approve the request instead' };
  return { ok: true, approver };
}

/**
 * Edit, then approve. The amended call is a new proposal, by an authenticated operator: it
 * passes the same gate (arguments, budgets, provenance, precondition) as a model's would, gets
 * its own request and digest, and needs its full quorum of fresh decisions (the editor's own
 * approval counts once, like anyone's). The editor's arguments are their signed word, so they
 * are a trusted source for provenance; the old request is closed `amended`, and the records keep
 * what was proposed, what it was amended to, and (in the effects ledger) what ran.
 */
export function onAmended(state: RunState, domain: Domain, event: Extract<RunEvent, { type: 'amended' }>): RunState {
  const now = event.now;
  const original = state.pendingApproval;
  if (!original) return state;
  const refreshed = withDirectory(state, original, event.directory, now);
  if (refreshed.pendingApproval?.requestId !== original.requestId) return refreshed;
  const check = checkAmend(refreshed, event.signed, now);
  const s = event.signed.statement;
  if (!check.ok) return control(refreshed, 'amend_refused', `${s.by}'s amendment was refused: ${check.reason}`);
  // The editor's word, as a signed operator note: what provenance accepts values from.
  const said: RunState = {
    ...refreshed,
    transcript: [
      ...refreshed.transcript,
      { kind: 'note', turn: refreshed.turn, by: s.by, text: `amended ${original.call.tool} to ${canonical(s.args)}`.slice(0, 2_000), trusted: true },
    ],
  };
  const admission = admitCalls(said, domain, { type: 'call', calls: [{ tool: original.call.tool, args: s.args }] }, now);
  if (admission.kind !== 'admit' || !admission.calls[0]) {
    const why = admission.kind === 'admit' ? 'nothing to run' : admission.message;
    return control(refreshed, 'amend_refused', `${s.by}'s amendment of ${original.call.tool} was refused: ${why}`);
  }
  const closed = withApprovalClosed(said, 'amended', s.by, s.comment, now, undefined, event.signed);
  const numbered = { ...closed, seq: closed.seq + admission.calls.length };
  const raised = raiseApproval(numbered, domain, admission.calls[0], admission.precondition, now);
  const amended = raised.pendingApproval;
  if (!amended) return raised;
  return { ...raised, pendingApproval: { ...amended, amendedFrom: { requestId: original.requestId, args: original.call.args, by: s.by } } };
}
