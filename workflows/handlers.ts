// The run's interface to people and programs: the state query, cancel, notes and the two
// approval Updates. Validators run before an Update is accepted, so a refusal (unsigned,
// forged, expired, replayed, wrong digest, wrong role) costs no history and changes nothing;
// accepted input becomes an event on the queue the agent workflow feeds to the controller.
// Whether a signature counts is the controller's rule (controller/trust.ts): the validators ask
// it early, the controller again when the event is taken.
import { condition, setHandler, workflowInfo } from '@temporalio/workflow';
import type { RunEvent, RunState } from './controller/index.js';
import { checkAmend, checkDecision, noteEntry, budgetLeft, operatorMsLeft, headline, pendingRequest } from './controller/index.js';
import type { Domain } from './contract.js';
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
import { deliver, inRunScope, refuseWhileUnsettled, settling } from './arrivals.js';
import { isUndecodable } from './quarantine-marker.js';
import type { RunInput } from './run-input.js';
import { judgedOnRead, notTakenBecause } from './sealed.js';
import { takeStatement } from './statement-spending.js';
import { statementFingerprint } from './statement-use.js';
import { unboundMark } from './trust/run-binding.js';
import { ApproverDirectory, type Approver } from './trust/directory.js';
import { SignedAmend, SignedDecision } from './trust/statement.js';

export interface OperatorChannel {
  run: RunInput;
  /** What a request sent as a note must have been signed for, if it names a run (trust/run-binding.ts). */
  bound: string;
  /** The controller's current state (the workflow replaces it every step). */
  state(): RunState;
  /** Events for the controller, taken by the workflow's loop in order. */
  queue: RunEvent[];
  /** The worker's approver directory, via an activity (`value`, when the read carried a seal), and the read's nonce. */
  loadApprovers(): Promise<{ value?: unknown; read: string }>;
  /** The run's domain: which roles may sign notes, and the headline of a finished run (Domain.summarize). */
  domain: Domain;
}

/**
 * A validator's words reach the client and the worker's logs and traces: they say what is wrong
 * in the run's own terms and never repeat what an unchecked caller sent (controller/trust.ts).
 */
const MALFORMED = 'the input does not have the shape this Update takes';

/** The worker's directory as it is now and the read's nonce (the loop checks its seal: sealed.ts readBehind); undefined when it cannot be read. */
export function readDirectory(loadApprovers: OperatorChannel['loadApprovers']): Promise<{ approvers: Approver[]; read: string } | undefined> {
  return loadApprovers().then(
    ({ value, read }) => {
      const parsed = ApproverDirectory.safeParse(value);
      return parsed.success ? { approvers: parsed.data.approvers, read } : undefined;
    },
    () => undefined,
  );
}

/** What the handler answers when the loop did not take its event: the directory read is not a worker's. */
function notTaken(event: RunEvent, what: string): string | undefined {
  const why = notTakenBecause(event);
  return why && `the approver directory this ${what} was judged on is not a worker's (${why}), so nothing was decided; send it again`;
}

export function installOperatorHandlers({ run, bound, state, queue, loadApprovers, domain }: OperatorChannel): void {
  const deciding = new Set<string>(); // approvers whose decision is queued, not yet taken
  // The signed statements this execution has taken as notes, or is taking, by fingerprint; the
  // start's request among them (agent.ts takes it as the run starts, or an earlier execution of
  // the chain did). Each is spent by one activity id (statement-use.ts noteUseId), and two
  // activities with one id in one execution would fail its workflow task: a repeat is answered
  // without one.
  const notesTaken = new Set<string>(run.request ? [statementFingerprint(run.request.signature)] : []);

  setHandler(stateQuery, () => view(state(), run, domain));
  // A handler resumes on what it read only once a seal check pending meanwhile has been acted on
  // (arrivals.ts): each one reads before it acts.
  const settled = <T>(read: T): T | Promise<T> => settling()?.then(() => read) ?? read;
  // The directory as it is now.
  const directoryNow = () => readDirectory(loadApprovers).then(settled);
  // The loop has taken the event, or has stopped and never will: the handler answers either way.
  const taken = (event: RunEvent) => !queue.includes(event) || state().terminal !== undefined;
  setHandler(cancelSignal, (raw) => {
    // What the worker could not decode is no cancel (quarantine-interceptors.ts drops it first).
    if (isUndecodable(raw)) return;
    // A signal has no validator and must not fail the workflow task: a malformed cancel still
    // cancels (stopping can never cause an effect), recorded as from an unknown sender.
    const parsed = CancelInput.safeParse(raw);
    const { by, reason } = parsed.success ? parsed.data : { by: 'unknown', reason: 'malformed cancel signal' };
    // Ends as Temporal's own cancel does: an effect in doubt is read back first.
    deliver(queue, { type: 'cancelled', now: Date.now(), by, reason });
  });
  setHandler(
    addNoteUpdate,
    (raw) =>
      inRunScope(async () => {
        const note = NoteInput.parse(raw);
        if (!('statement' in note)) {
          queue.push({ type: 'noteAdded', now: Date.now(), by: note.by, text: note.text });
          return { accepted: true as const, trusted: false };
        }
        // A statement counts once in an execution: a repeat (sent again while the first is taken,
        // or after) is taken as untrusted text, with no directory read of its own; the first
        // already said whatever it vouches for.
        const fingerprint = statementFingerprint(note.signature);
        // A request made for another run (trust/run-binding.ts) is text here, whenever it arrives:
        // not taken, so not spent either (the run it was made for may still take it).
        if (unboundMark(note.statement, bound, false).unbound) {
          queue.push({ type: 'signedNoteAdded', now: Date.now(), signed: note, directory: [], later: true, unbound: true });
          return { accepted: true as const, trusted: false };
        }
        if (notesTaken.has(fingerprint)) {
          queue.push({ type: 'signedNoteAdded', now: Date.now(), signed: note, directory: [], later: true });
          return { accepted: true as const, trusted: false };
        }
        notesTaken.add(fingerprint);
        // A signed note is an operator's word only if the directory vouches for its key, and only
        // in the execution that takes it first: it is spent by the read (statement-spending.ts
        // takeStatement), and one another execution of the workflow id spent vouches for nothing.
        const { directory, spentBy } = await takeStatement('note', note.signature).then(settled);
        const event: RunEvent = { type: 'signedNoteAdded', now: Date.now(), signed: note, directory, later: true, ...(spentBy ? { spentBy } : {}) };
        queue.push(event);
        return { accepted: true as const, trusted: !spentBy && noteEntry(state(), domain, note, directory, event.now).trusted };
      }),
    {
      validator: (raw) => {
        refuseWhileUnsettled();
        const parsed = NoteInput.safeParse(raw);
        if (!parsed.success) throw new Error(MALFORMED);
        const note = parsed.data;
        if ('statement' in note && note.statement.runId !== state().runId) throw new Error(`the note is signed for another run, not ${state().runId}`);
      },
    },
  );

  const approvalHandler =
    (decision: 'approve' | 'deny') =>
    (raw: ApprovalInput): Promise<ApprovalAck> =>
      inRunScope(async () => {
        const signed = SignedDecision.parse(raw);
        const { requestId, by } = signed.statement;
        deciding.add(by);
        // Revocation at decision time: the directory is read again as the decision arrives, so a
        // key removed since the request was raised decides nothing.
        const seen = await directoryNow();
        if (!seen) {
          deciding.delete(by);
          return { requestId, decision: 'refused', outcome: `the approver directory could not be read, so nothing was decided; send the ${decision} again` };
        }
        // In an execution reset from another run, Temporal re-applies the Updates that followed
        // the reset point: the record says the decision came after a reset.
        const { originalExecutionRunId, runId } = workflowInfo();
        const afterResetOf = originalExecutionRunId && originalExecutionRunId !== runId ? originalExecutionRunId : undefined;
        const event: RunEvent = { type: 'decided', now: Date.now(), signed, directory: seen.approvers, ...(afterResetOf ? { afterResetOf } : {}) };
        judgedOnRead(event, seen.read);
        queue.push(event);
        await condition(() => taken(event));
        deciding.delete(by);
        const refused = notTaken(event, decision === 'approve' ? 'approval' : 'denial');
        if (refused) return { requestId, decision: 'refused', outcome: refused };
        const after = state();
        return { requestId, decision: recordedDecision(after, requestId, by) ?? 'refused', outcome: describeOutcome(after, requestId, by) };
      });
  const validateApproval =
    (decision: 'approve' | 'deny') =>
    (raw: ApprovalInput): void => {
      refuseWhileUnsettled();
      const parsed = SignedDecision.safeParse(raw);
      if (!parsed.success) throw new Error('an approval must be a statement signed with your key (agent approve --key FILE)');
      const signed = parsed.data;
      const current = state();
      // One decision at a time per approver; and without a quorum, one decision at all.
      if (deciding.has(signed.statement.by) || (deciding.size > 0 && (pendingRequest(current)?.quorum ?? 1) <= 1)) {
        throw new Error('the pending request already has a decision on its way');
      }
      const check = checkDecision(current, signed, decision, Date.now());
      if (!check.ok) throw new Error(check.reason);
    };
  // Edit, then approve: the amended call becomes a new request (controller/approvals.ts onAmended).
  setHandler(
    amendUpdate,
    (raw): Promise<ApprovalAck> =>
      inRunScope(async () => {
        const signed = SignedAmend.parse(raw);
        const by = signed.statement.by;
        deciding.add(by);
        const seen = await directoryNow();
        if (!seen) {
          deciding.delete(by);
          return {
            requestId: signed.statement.requestId,
            decision: 'refused',
            outcome: 'the approver directory could not be read, so nothing was amended; send the amendment again',
          };
        }
        const event: RunEvent = { type: 'amended', now: Date.now(), signed, directory: seen.approvers };
        judgedOnRead(event, seen.read);
        queue.push(event);
        await condition(() => taken(event));
        deciding.delete(by);
        const refused = notTaken(event, 'amendment');
        if (refused) return { requestId: signed.statement.requestId, decision: 'refused', outcome: refused };
        const after = state();
        const request = pendingRequest(after);
        const amended = request?.amendedFrom?.requestId === signed.statement.requestId ? request : undefined;
        if (amended)
          return {
            requestId: signed.statement.requestId,
            decision: 'amended',
            outcome: `amended: new request ${amended.requestId} for ${amended.call.tool} awaits ${amended.quorum ?? 1} approval(s)`,
          };
        return { requestId: signed.statement.requestId, decision: 'refused', outcome: describeOutcome(after, signed.statement.requestId, by) };
      }),
    {
      validator: (raw) => {
        refuseWhileUnsettled();
        const parsed = SignedAmend.safeParse(raw);
        if (!parsed.success) throw new Error('an amendment must be a statement signed with your key (agent amend --key FILE)');
        const signed = parsed.data;
        if (deciding.size > 0) throw new Error('the pending request already has a decision on its way');
        const check = checkAmend(state(), signed, Date.now());
        if (!check.ok) throw new Error(check.reason);
      },
    },
  );
  setHandler(approveUpdate, approvalHandler('approve'), { validator: validateApproval('approve') });
  setHandler(denyUpdate, approvalHandler('deny'), { validator: validateApproval('deny') });
}

export function view(state: RunState, input: RunInput, domain: Domain): RunView {
  // A signed request is shown as awaiting only once the run can judge a decision on it: until
  // the worker's directory is loaded nobody is eligible, and a client that approves as soon as
  // it sees the request would be refused ("still loading"). A query changes no history, so
  // hiding it changes nothing on replay.
  const raised = pendingRequest(state);
  const pending = raised?.eligible ? raised : undefined;
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
            subject: pending.subject,
            evidenceIds: pending.evidenceIds,
            roles: pending.roles,
            expiresAt: pending.expiresAt,
            digest: pending.digest,
            quorum: pending.quorum,
            approvedBy: pending.collected.map((c) => c.statement.by),
            eligible: (pending.eligible ?? []).map((a) => a.id),
            precondition: pending.precondition,
            signed: true,
            ...(pending.display ? { display: pending.display } : {}),
            ...(pending.amendedFrom ? { amendedFrom: pending.amendedFrom } : {}),
          },
        }
      : {}),
    ...(state.terminal ? { headline: headline(state, domain) } : {}),
    approvalTools: domain.tools.filter((t) => t.approval).map((t) => t.name),
  };
}

function recordedDecision(state: RunState, requestId: string, by: string): string | undefined {
  const record = state.approvals.find((a) => a.requestId === requestId);
  if (record) return record.decision;
  if (pendingRequest(state)?.collected?.some((c) => c.statement.by === by)) return 'approved (waiting for more approvers)';
  return undefined;
}

function describeOutcome(state: RunState, requestId: string, by: string): string {
  if (state.terminal) return `run ended: ${state.terminal.class}/${state.terminal.reason}`;
  const pending = pendingRequest(state);
  if (pending?.requestId === requestId && pending.collected?.some((c) => c.statement.by === by)) {
    return `recorded; ${pending.collected.length} of ${pending.quorum ?? 1} approvals`;
  }
  const record = state.approvals.find((a) => a.requestId === requestId);
  const effect = record && state.effects.find((e) => e.callId === record.callId);
  if (effect) return `effect ${effect.tool} ${effect.status}`;
  if (state.phase.name === 'rereading' && state.phase.dispatch.requestId === requestId) {
    const reread = state.phase.calls.map((c) => c.tool).join(', ');
    return `approved; re-reading ${reread || 'the authoritative source'} before ${state.phase.dispatch.call.tool} is dispatched`;
  }
  const feedback = [...state.transcript].reverse().find((t) => t.kind === 'control');
  return feedback && feedback.kind === 'control' ? feedback.message : 'recorded';
}
