// The run's interface to people and programs: the state query, cancel, notes and the two
// approval Updates. Validators run before an Update is accepted, so a refusal (unsigned,
// forged, expired, replayed, wrong digest, wrong role) costs no history and changes nothing;
// accepted input becomes an event on the queue the agent workflow feeds to the controller.
import { isGuarded, isBound } from './controller/generations.js';
import { condition, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { checkAmend, checkDecision } from './controller/approvals.js';
import { NATIVE_CANCEL_PATCH } from './controller/cancel.js';
import { budgetLeft, operatorMsLeft } from './controller/budget.js';
import { callDigest } from './controller/digest.js';
import { headline } from './controller/headline.js';
import type { RunEvent } from './controller/events.js';
import type { RunState } from './controller/state.js';
import { noteRolesOf, type Domain } from './contract.js';
import {
  addNoteUpdate,
  amendUpdate,
  ApprovalInput,
  approveUpdate,
  CancelInput,
  cancelSignal,
  denyUpdate,
  NoteInput,
  stateQuery,
  type ApprovalAck,
  type RunView,
} from './messages.js';
import type { RunInput } from './run-input.js';
import { ApproverDirectory } from './trust/directory.js';
import { MAX_STATEMENT_LIFETIME_MS, SignedAmend, SignedDecision, verifyStatement } from './trust/statement.js';

export interface OperatorChannel {
  run: RunInput;
  /** The controller's current state (the workflow replaces it every step). */
  state(): RunState;
  /** Events for the controller, taken by the workflow's loop in order. */
  queue: RunEvent[];
  /** The worker's approver directory, via an activity. */
  loadApprovers(): Promise<unknown>;
  /** The run's domain, for the headline of a finished run (Domain.summarize). */
  domain?: Domain;
}

export function installOperatorHandlers({ run, state, queue, loadApprovers, domain }: OperatorChannel): void {
  const deciding = new Set<string>(); // approvers whose decision is queued, not yet taken

  setHandler(stateQuery, () => view(state(), run, domain));
  setHandler(cancelSignal, (raw) => {
    // A signal has no validator and must not fail the workflow task: a malformed cancel still
    // cancels (stopping can never cause an effect), recorded as from an unknown sender.
    const parsed = CancelInput.safeParse(raw);
    const { by, reason } = parsed.success ? parsed.data : { by: 'unknown', reason: 'malformed cancel signal' };
    // Ends as Temporal's own cancel does: an effect in doubt is read back first. The marker is
    // recorded only when a cancel comes, so runs that are never cancelled pay nothing for it.
    const settle = patched(NATIVE_CANCEL_PATCH);
    queue.push({ type: 'cancelled', now: Date.now(), by, reason, ...(settle ? { settle } : {}) });
  });
  setHandler(
    addNoteUpdate,
    async (raw) => {
      const note = NoteInput.parse(raw);
      if (!('statement' in note)) {
        queue.push({ type: 'noteAdded', now: Date.now(), by: note.by, text: note.text, ...(isGuarded(state()) ? { trusted: false } : {}) });
        return { accepted: true as const, trusted: false };
      }
      // A signed note is trusted only if the worker's directory knows the key that signed it.
      const directory = await loadApprovers().then(
        (d) => ApproverDirectory.parse(d),
        () => ({ approvers: [] }),
      );
      const keys = directory.approvers.filter((a) => a.id === note.statement.by);
      const signedByKnownKey = keys.length === 1 && verifyStatement(note, keys[0]?.publicKey ?? '') && note.statement.expiresAt > Date.now();
      // engine-v4 runs: and only from a key whose roles the domain names for notes, within a
      // statement's lifetime (a long-lived note is a standing instruction nobody re-reads).
      const v4 = isBound(state());
      const roles = domain ? noteRolesOf(domain) : [];
      const trusted =
        signedByKnownKey &&
        (!v4 || ((keys[0]?.roles ?? []).some((r) => roles.includes(r)) && note.statement.expiresAt <= Date.now() + MAX_STATEMENT_LIFETIME_MS));
      queue.push({ type: 'noteAdded', now: Date.now(), by: note.statement.by, text: note.statement.text, trusted });
      return { accepted: true as const, trusted };
    },
    {
      validator: (raw) => {
        const note = NoteInput.parse(raw);
        if ('statement' in note && note.statement.runId !== state().runId) throw new Error(`the note is signed for run ${note.statement.runId}`);
      },
    },
  );

  const approvalHandler =
    (decision: 'approved' | 'denied') =>
    async (raw: ApprovalInput): Promise<ApprovalAck> => {
      const input = ApprovalInput.parse(raw);
      const event: Extract<RunEvent, { type: 'approved' | 'denied' }> =
        'statement' in input
          ? { type: decision, now: Date.now(), requestId: input.statement.requestId, by: input.statement.by, comment: input.statement.comment, signed: input }
          : // Only histories recorded before signed approvals get here (the validator refuses it now).
            { type: decision, now: Date.now(), requestId: input.requestId, by: input.by, comment: input.comment };
      deciding.add(event.by);
      // Revocation at decision time (engine-v4 runs): the directory is read again as the decision
      // arrives, so a key removed since the request was raised decides nothing.
      const fresh = 'statement' in input && isBound(state());
      if (fresh) {
        const directory = await loadApprovers().then(
          (d) => ApproverDirectory.safeParse(d),
          () => undefined,
        );
        if (!directory?.success) {
          deciding.delete(event.by);
          return {
            requestId: event.requestId,
            decision: 'refused',
            outcome: 'the approver directory could not be read, so nothing was decided; send the decision again',
          };
        }
        event.directory = directory.data.approvers;
        // In an execution reset from another run, Temporal re-applies the Updates that followed
        // the reset point: the record says the decision came after a reset.
        const { originalExecutionRunId, runId } = workflowInfo();
        if (originalExecutionRunId && originalExecutionRunId !== runId) event.afterResetOf = originalExecutionRunId;
      }
      queue.push(event);
      await condition(() => !queue.includes(event));
      deciding.delete(event.by);
      const after = state();
      const recorded = recordedDecision(after, event.requestId, event.by);
      return { requestId: event.requestId, decision: recorded ?? (fresh ? 'refused' : decision), outcome: describeOutcome(after, event.requestId, event.by) };
    };
  const validateApproval =
    (decision: 'approve' | 'deny') =>
    (raw: ApprovalInput): void => {
      const input = ApprovalInput.parse(raw);
      const current = state();
      // Unsigned decisions are refused in every run. (Runs recorded before signed approvals took
      // them; their recorded Updates still replay through the handler: validators do not run on replay.)
      if (!('statement' in input)) {
        throw new Error(
          isGuarded(current)
            ? 'an approval must be a statement signed with your key (agent approve --key FILE)'
            : 'this run predates signed approvals: unsigned decisions are no longer accepted',
        );
      }
      const signed = SignedDecision.parse(input);
      // One decision at a time per approver; and without a quorum, one decision at all.
      if (deciding.has(signed.statement.by) || (deciding.size > 0 && (current.pendingApproval?.quorum ?? 1) <= 1)) {
        throw new Error(`request ${signed.statement.requestId} already has a decision`);
      }
      const check = checkDecision(current, signed, decision, Date.now());
      if (!check.ok) throw new Error(check.reason);
    };
  // Edit, then approve: the amended call becomes a new request (controller/approvals.ts onAmended).
  setHandler(
    amendUpdate,
    async (raw): Promise<ApprovalAck> => {
      const signed = SignedAmend.parse(raw);
      const by = signed.statement.by;
      deciding.add(by);
      const directory = await loadApprovers().then(
        (d) => ApproverDirectory.safeParse(d),
        () => undefined,
      );
      if (!directory?.success) {
        deciding.delete(by);
        return {
          requestId: signed.statement.requestId,
          decision: 'refused',
          outcome: 'the approver directory could not be read, so nothing was amended; send the amendment again',
        };
      }
      const event: RunEvent = { type: 'amended', now: Date.now(), signed, directory: directory.data.approvers };
      queue.push(event);
      await condition(() => !queue.includes(event));
      deciding.delete(by);
      const after = state();
      const amended = after.pendingApproval?.amendedFrom?.requestId === signed.statement.requestId ? after.pendingApproval : undefined;
      if (amended)
        return {
          requestId: signed.statement.requestId,
          decision: 'amended',
          outcome: `amended: new request ${amended.requestId} for ${amended.call.tool} awaits ${amended.quorum ?? 1} approval(s)`,
        };
      return { requestId: signed.statement.requestId, decision: 'refused', outcome: describeOutcome(after, signed.statement.requestId, by) };
    },
    {
      validator: (raw) => {
        const signed = SignedAmend.parse(raw);
        if (deciding.size > 0) throw new Error(`request ${signed.statement.requestId} already has a decision on its way`);
        const check = checkAmend(state(), signed, Date.now());
        if (!check.ok) throw new Error(check.reason);
      },
    },
  );
  setHandler(approveUpdate, approvalHandler('approved'), { validator: validateApproval('approve') });
  setHandler(denyUpdate, approvalHandler('denied'), { validator: validateApproval('deny') });
}

export function view(state: RunState, input: RunInput, domain?: Domain): RunView {
  // A signed request is shown as awaiting only once the run can judge a decision on it: until
  // the worker's directory is loaded nobody is eligible, and a client that approves as soon as
  // it sees the request would be refused ("still loading"). A query changes no history, so
  // hiding it changes nothing on replay.
  const raised = state.pendingApproval;
  const pending = raised && (!isGuarded(state) || raised.eligible) ? raised : undefined;
  return {
    state,
    input,
    budgetLeft: { ...budgetLeft(state, Date.now()), msLeft: operatorMsLeft(state, Date.now()) },
    ...(pending
      ? {
          awaiting: {
            requestId: pending.requestId,
            tool: pending.call.tool,
            args: pending.call.args,
            ...(pending.subject ? { subject: pending.subject } : {}),
            evidenceIds: pending.evidenceIds,
            roles: pending.roles,
            expiresAt: pending.expiresAt,
            digest: pending.digest ?? callDigest(pending.call.tool, pending.call.args),
            quorum: pending.quorum ?? 1,
            approvedBy: (pending.collected ?? []).map((c) => c.statement.by),
            eligible: (pending.eligible ?? []).map((a) => a.id),
            ...(pending.precondition ? { precondition: pending.precondition } : {}),
            signed: isGuarded(state),
            ...(pending.display ? { display: pending.display } : {}),
            ...(pending.amendedFrom ? { amendedFrom: pending.amendedFrom } : {}),
          },
        }
      : {}),
    ...(state.terminal ? { headline: headline(state, domain) } : {}),
  };
}

function recordedDecision(state: RunState, requestId: string, by: string): string | undefined {
  const record = state.approvals.find((a) => a.requestId === requestId);
  if (record) return record.decision;
  if (state.pendingApproval?.collected?.some((c) => c.statement.by === by)) return 'approved (waiting for more approvers)';
  return undefined;
}

function describeOutcome(state: RunState, requestId: string, by: string): string {
  if (state.terminal) return `run ended: ${state.terminal.class}/${state.terminal.reason}`;
  const pending = state.pendingApproval;
  if (pending?.requestId === requestId && pending.collected?.some((c) => c.statement.by === by)) {
    return `recorded; ${pending.collected.length} of ${pending.quorum ?? 1} approvals`;
  }
  const record = state.approvals.find((a) => a.requestId === requestId);
  const effect = record && state.effects.find((e) => e.callId === record.callId);
  if (effect) return `effect ${effect.tool} ${effect.status}`;
  if (state.pendingDispatch?.requestId === requestId) {
    const reread = state.inFlight.map((c) => c.tool).join(', ');
    return `approved; re-reading ${reread || 'the authoritative source'} before ${state.pendingDispatch.call.tool} is dispatched`;
  }
  const feedback = [...state.transcript].reverse().find((t) => t.kind === 'control');
  return feedback && feedback.kind === 'control' ? feedback.message : 'recorded';
}
