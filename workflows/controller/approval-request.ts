// An approval request: raised for one call, bound by its digest to this run, this call and the
// lines its card shows; and, once approved, the call carrying the statements that approved it.
// Raised by a proposal (proposals.ts) or an amendment (approvals.ts); read by both and by a
// readback that sends an approved effect again (observed.ts).
import type { Domain } from '../contract.js';
import type { PreconditionVerdict } from '../tool-contract.js';
import { statementFingerprint } from '../statement-use.js';
import { digestOf } from '../trust/statement.js';
import type { Asking } from './provenance.js';
import { displayFacts } from './display.js';
import type { ApprovalRequest, PlannedCall, RunState } from './state.js';
import { evidenceAbout } from './subject.js';
import { contractOf } from './transitions.js';

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
  return { ...state, phase: { name: 'awaiting_approval', request: display ? { ...request, display } : request } };
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

/** The call, carrying the fingerprints of the signed statements that approved it (workflows/statement-use.ts). */
export function withApprovers(state: RunState, call: PlannedCall, requestId: string): PlannedCall {
  const record = [...state.approvals].reverse().find((a) => a.requestId === requestId && a.decision === 'approved');
  const approvedWith = (record?.signed ?? []).map((s) => statementFingerprint(s.signature));
  return approvedWith.length ? { ...call, approvedWith } : call;
}
