// Approvals: raising a request for an effect, learning who may decide it, taking signed
// decisions and amendments (whether a signature counts is controller/trust.ts), the quorum, and
// what happens once the request closes: the authoritative re-read and the re-check of the
// precondition just before the effect is dispatched.
import type { Domain, PreconditionVerdict } from '../contract.js';
import { eligibleApprovers, type Approver } from '../trust/directory.js';
import { statementFingerprint } from '../statement-use.js';
import { canonical, digestOf } from '../trust/statement.js';
import type { RunEvent } from './events.js';
import { displayFacts } from './display.js';
import { admitCalls, admitForDispatch, type Asking } from './admission.js';
import { rereadFor } from './precondition.js';
import type { ApprovalRequest, PlannedCall, RunState } from './state.js';
import { evidenceAbout } from './subject.js';
import { checkAmend, checkDecision } from './trust.js';
import { contractOf, control, deadlineReached, onDeadline, proposeOrStop, startCalls, stop, withApprovalClosed } from './transitions.js';

/** The request for one call (an effect, or a read a person is asked about); the run waits in `awaiting_approval` until it closes. */
export function raiseApproval(
  state: RunState,
  domain: Domain,
  call: PlannedCall,
  verdict: PreconditionVerdict | undefined,
  now: number,
  ask?: Asking,
): RunState {
  // A person decides on the values nothing vouched for: the call carries them to its ledger entry.
  if (ask?.unvouched.length) call = { ...call, unvouched: ask.unvouched.map((u) => u.value) };
  const rule = ask?.rule ?? contractOf(domain, call.tool).approval;
  if (!rule) throw new Error(`bug: ${call.tool} has no approval rule`);
  const requestId = `${state.runId}/approval/${call.callId}`;
  const subject = call.subject ?? '';
  // The card's lines are signed with the call: a card showing other values cannot yield a signature.
  const display = displayFacts(state, contractOf(domain, call.tool), call, now, ask?.unvouched);
  const request: ApprovalRequest = {
    requestId,
    call,
    roles: rule.roles,
    requestedAt: now,
    expiresAt: now + (state.approvalTimeoutMs ?? rule.timeoutMs),
    onTimeout: rule.onTimeout,
    // What the approver is shown rests on evidence about the call's subject only.
    evidenceIds: evidenceAbout(state, subject, now)
      .map((e) => e.id)
      .slice(-10),
    subject,
    digest: approvalDigest(state.runId, requestId, call, state.chain, display),
    quorum: rule.quorum ?? 1,
    notStarter: rule.notStarter ?? false,
    precondition: verdict && !verdict.ok ? { ok: false, reason: verdict.reason } : { ok: true },
    collected: [],
  };
  return { ...state, phase: 'awaiting_approval', pendingApproval: display ? { ...request, display } : request };
}

/**
 * What a signature binds to: this run, this request, this exact call and its subject, the chain's
 * first execution, and the lines the approver is shown beside the call (ToolContract.display). A
 * new execution under the same workflow id raises the same request id for the same call, but never
 * the same digest; a card that shows other lines than the run's own (a look-alike run answering
 * with a display of its choosing) signs a digest the run refuses. A client computes it from what
 * it shows (client/sign.ts), never takes it from the run. (`chain` is absent only when an auditor
 * checks an export from a release before statements were bound to their chain.)
 */
export function approvalDigest(
  runId: string,
  requestId: string,
  call: Pick<PlannedCall, 'tool' | 'args' | 'subject'>,
  chain: string | undefined,
  display?: Record<string, string>,
): string {
  return digestOf({
    runId,
    requestId,
    tool: call.tool,
    args: call.args,
    subject: call.subject ?? null,
    ...(chain ? { chain } : {}),
    ...(display ? { display } : {}),
  });
}

export function onApproversLoaded(state: RunState, event: Extract<RunEvent, { type: 'approversLoaded' }>, now: number): RunState {
  const request = state.pendingApproval;
  if (!request || request.requestId !== event.requestId || request.eligible) return state;
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

export function onApprovalTimedOut(state: RunState, event: Extract<RunEvent, { type: 'approvalTimedOut' }>): RunState {
  const request = state.pendingApproval;
  if (!request || request.requestId !== event.requestId) return state; // a stray or late timer changes nothing
  const closed = withApprovalClosed(state, 'timed_out', 'timer', 'no decision before the approval deadline', event.now);
  if (request.onTimeout === 'escalate') return stop(closed, 'escalated', 'approval_timeout', `no decision on ${request.call.tool} in time`, event.now);
  return proposeOrStop(control(closed, 'approval_timeout', `no one approved ${request.call.tool} in time`), event.now);
}

/**
 * A signed decision. Who may decide is the directory as it is now: a key removed since the
 * request was raised decides nothing, and an approval it gave earlier no longer counts. Only a
 * decision that still checks out counts, whoever put the event here.
 */
export function onDecided(state: RunState, domain: Domain, event: Extract<RunEvent, { type: 'decided' }>): RunState {
  const { signed, now } = event;
  const s = signed.statement;
  const pending = state.pendingApproval;
  if (!pending || pending.requestId !== s.requestId) return state; // a stray or late decision changes nothing
  const refreshed = withDirectory(state, pending, event.directory, now);
  const request = refreshed.pendingApproval;
  if (request?.requestId !== pending.requestId) return refreshed;
  const check = checkDecision(refreshed, signed, s.decision, now);
  if (!check.ok) return control(refreshed, 'decision_refused', `${s.by}'s decision was refused: ${check.reason}`);
  if (s.decision === 'approve') {
    const collected = [...(request.collected ?? []), signed];
    if (collected.length < (request.quorum ?? 1)) return { ...refreshed, pendingApproval: { ...request, collected } };
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
  return startCalls({ ...closed, seq: closed.seq + 1, pendingDispatch: pending }, [read], now);
}

/** After the re-read (or without one): every dispatch-time check of admission.ts once more, then the effect or a refusal. */
export function dispatchIfStillValid(state: RunState, domain: Domain, now: number): RunState {
  const pending = state.pendingDispatch;
  if (!pending) return state;
  const cleared: RunState = { ...state, pendingDispatch: undefined };
  // The re-read spent a call of its own, and the evidence is what it says now.
  const admission = admitForDispatch(cleared, domain, pending.call, now, { acceptedViolation: pending.acceptedViolation });
  if (admission.kind !== 'admit') {
    return proposeOrStop(control(cleared, admission.code, `${pending.call.tool} was approved, but just before dispatch: ${admission.message}`), now);
  }
  return startCalls(cleared, [withApprovers(cleared, pending.call, pending.requestId)], now);
}

/** The call, carrying the fingerprints of the signed statements that approved it (workflows/statement-use.ts). */
export function withApprovers(state: RunState, call: PlannedCall, requestId: string): PlannedCall {
  const record = [...state.approvals].reverse().find((a) => a.requestId === requestId && a.decision === 'approved');
  const approvedWith = (record?.signed ?? []).map((s) => statementFingerprint(s.signature));
  return approvedWith.length ? { ...call, approvedWith } : call;
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
  const raised = raiseApproval(numbered, domain, admission.calls[0], admission.precondition, now, admission.ask);
  const amended = raised.pendingApproval;
  if (!amended) return raised;
  return { ...raised, pendingApproval: { ...amended, amendedFrom: { requestId: original.requestId, args: original.call.args, by: s.by } } };
}
