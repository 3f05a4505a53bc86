// The request a decision is signed over, found before anything is signed. A signature binds an
// exact call, so what is signed must be the request the run shows now, from the run asked for,
// on a queue this engine serves; and a request raised a moment ago is not decidable until the
// worker has loaded its approver directory, so it is waited for (a few seconds) rather than sent
// to be refused as "still loading". What approve, deny and amend answer is built here too, from
// the request they decided on.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApprovalAck, RunView as StateAnswer } from '../workflows/messages.js';
import type { DecisionResult } from './agent-client-types.js';
import { InvalidRequestError, RequestNotPendingError, RunEndedError } from './agent-errors.js';
import { shownDigest } from './sign.js';

/** How long a decision waits for a just-raised request's approver directory before it is sent anyway. */
export const DIRECTORY_WAIT_MS = 20_000;

/** The pending request as shown, with the digest computed from what it shows. */
export type PendingRequest = NonNullable<StateAnswer['awaiting']>;

/** What finding the request asks of the client: that the run is served, and the worker's answer. */
export interface RequestReads {
  assertServed(runId: string, doing: string): Promise<void>;
  queryState(runId: string): Promise<StateAnswer>;
}

/**
 * The request to decide, once it is the pending one and (if just raised) its directory has
 * loaded, from a run this engine serves, answering as itself, whose reported digest is the
 * digest of the request it shows: what is signed is computed from the shown values (sign.ts).
 */
export async function pendingRequest(reads: RequestReads, runId: string, requestId: string, kind: 'approve' | 'deny'): Promise<PendingRequest> {
  const giveUpAt = Date.now() + DIRECTORY_WAIT_MS;
  await reads.assertServed(runId, `nothing was signed (${kind})`);
  for (;;) {
    const view = await reads.queryState(runId);
    const st = view.state;
    if (st.runId !== runId) throw new InvalidRequestError(`run ${runId} answers as run ${st.runId}: it is not the run asked for; nothing was signed (${kind})`);
    if (st.terminal) throw new RunEndedError(runId, `run ${runId} has already ended (${st.terminal.class}/${st.terminal.reason}); nothing to ${kind}`);
    const awaiting = view.awaiting;
    // A request just raised is shown once its approver directory has loaded (a moment).
    if (!awaiting && st.phase.name === 'awaiting_approval' && Date.now() < giveUpAt) {
      await sleep(100);
      continue;
    }
    if (!awaiting) throw new RequestNotPendingError(runId, requestId, `run ${runId} has no pending approval (phase ${st.phase.name})`);
    if (awaiting.requestId !== requestId) {
      throw new RequestNotPendingError(runId, requestId, `request ${requestId} is not pending on run ${runId} (the pending request is ${awaiting.requestId})`);
    }
    if (!awaiting.signed) {
      throw new RequestNotPendingError(
        runId,
        requestId,
        `run ${runId} predates signed approvals; its request ${requestId} cannot be decided with a key (cancel the run instead)`,
      );
    }
    const shown = shownDigest({ runId, ...awaiting, chain: st.chain });
    if (!shown.ok) throw new InvalidRequestError(shown.error);
    // Until the worker's directory is loaded nobody is eligible and the run would refuse any
    // decision as "still loading": a request raised a moment ago gets a few seconds.
    if (awaiting.eligible.length > 0 || Date.now() >= giveUpAt) return { ...awaiting, digest: shown.digest };
    await sleep(200);
  }
}

/** What approve, deny and amend answer: the run's acknowledgement, the call decided on (`args` as signed), who signed and until when. */
export function decisionResult(runId: string, ack: ApprovalAck, awaiting: PendingRequest, args: unknown, by: string, expiresAt: number): DecisionResult {
  return {
    runId,
    ...ack,
    tool: awaiting.tool,
    args,
    ...(awaiting.subject ? { subject: awaiting.subject } : {}),
    by,
    digest: awaiting.digest,
    expiresAt,
  };
}
