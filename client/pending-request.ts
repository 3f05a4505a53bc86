// The request a decision is signed over, found before anything is signed. A signature binds an
// exact call, so what is signed must be the request the run shows now, from the run asked for,
// on a queue this engine serves; and a request raised a moment ago is not decidable until the
// worker has loaded its approver directory, so it is waited for (a few seconds) rather than sent
// to be refused as "still loading". A request id alone does not say which call it is: ids are
// predictable (`<run>/approval/c<seq>`), and a run reset, or ended and started again under the
// same workflow id, can hold another call under the id a person read. So the id status and watch
// print is pinned to the call shown (`<request id>#<digest prefix>`), and a decision given such an
// id is signed only if the pending call's digest starts with it. What approve, deny and amend
// answer is built here too, from the request they decided on.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApprovalAck, RunView as StateAnswer } from '../workflows/messages.js';
import type { DecisionResult } from './agent-client-types.js';
import { InvalidRequestError, RequestNotPendingError, RunEndedError } from './agent-errors.js';
import { compact } from './format.js';
import { shownDigest } from './sign.js';

/** How long a decision waits for a just-raised request's approver directory before it is sent anyway. */
export const DIRECTORY_WAIT_MS = 20_000;

/**
 * How many hex characters of the digest a pinned id carries: 64 bits, so no one can search out
 * another call whose digest starts the same way in the minutes a decision takes.
 */
export const PINNED_DIGEST_CHARS = 16;

/** The shortest digest prefix a decision accepts as a pin: a shorter one binds too little. */
const MIN_PIN_CHARS = 16;

/** The id status and watch print: the request id and the start of the digest of the call shown. */
export function pinnedRequestId(requestId: string, digest: string): string {
  return `${requestId}#${digest.slice(0, PINNED_DIGEST_CHARS)}`;
}

/**
 * The request id and the digest prefix, if any, that a decision names: `id` as status prints it
 * (`<request id>#<prefix>`) or bare, and `digest` (a prefix, or the whole digest) when the caller
 * gives one apart. A bare id with no `digest` pins nothing. A request id itself never ends in a
 * `#` part without a `/` after it (it ends `/approval/c<seq>`), so the split is unambiguous.
 */
export function requestPin(id: string, digest?: string): { requestId: string; pin: string | undefined } {
  const hash = id.lastIndexOf('#');
  const pinned = hash >= 0 && !id.slice(hash).includes('/');
  const requestId = pinned ? id.slice(0, hash) : id;
  const pins = [...(pinned ? [id.slice(hash + 1)] : []), ...(digest !== undefined ? [digest] : [])].map((p) => p.toLowerCase());
  for (const p of pins) {
    if (!new RegExp(`^[0-9a-f]{${MIN_PIN_CHARS},64}$`).test(p)) {
      throw new InvalidRequestError(
        `the digest of request ${requestId} must be given as ${MIN_PIN_CHARS} to 64 hex characters (status prints it after the #), not "${p}"`,
      );
    }
  }
  // Two pins (the id's and `digest`) must agree; the longer one says more.
  const [a, b] = [...pins].sort((x, y) => y.length - x.length);
  if (a !== undefined && b !== undefined && !a.startsWith(b)) {
    throw new InvalidRequestError(`request ${id} and digest ${b} name two different calls; nothing was signed`);
  }
  return { requestId, pin: a };
}

/** The pending request as shown, with the digest computed from what it shows. */
export type PendingRequest = NonNullable<StateAnswer['awaiting']>;

/** What finding the request asks of the client: that the run is served, and the worker's answer. */
export interface RequestReads {
  /** The server's word on the run (no worker asked): closed, when `closeTime` is set. */
  assertServed(runId: string, doing: string): Promise<{ closeTime: string | null }>;
  queryState(runId: string): Promise<StateAnswer>;
}

/**
 * The request to decide, once it is the pending one and (if just raised) its directory has
 * loaded, from a run this engine serves, answering as itself, whose reported digest is the
 * digest of the request it shows: what is signed is computed from the shown values (sign.ts).
 * With a `pin` (a digest prefix, lower-case hex), the pending call's digest must start with it:
 * otherwise RequestNotPendingError saying what is pending now, and nothing is signed.
 */
export async function pendingRequest(reads: RequestReads, runId: string, requestId: string, kind: 'approve' | 'deny', pin?: string): Promise<PendingRequest> {
  const giveUpAt = Date.now() + DIRECTORY_WAIT_MS;
  const { closeTime } = await reads.assertServed(runId, `nothing was signed (${kind})`);
  // A closed run has nothing pending: said from the server's record, without a query a worker must
  // replay the whole history to answer (slow on a busy worker, and nothing to gain).
  if (closeTime) throw new RunEndedError(runId, `run ${runId} has already ended (closed ${closeTime}); nothing to ${kind}`);
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
      throw new RequestNotPendingError(
        runId,
        requestId,
        `request ${requestId} is not pending on run ${runId} (the pending request is ${pendingWords(awaiting)}); nothing was signed (${kind})`,
      );
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
    if (pin !== undefined && !shown.digest.startsWith(pin)) {
      throw new RequestNotPendingError(
        runId,
        requestId,
        `request ${requestId} on run ${runId} is not the call you were shown (${requestId}#${pin}): pending under that id now is ${pendingWords({ ...awaiting, digest: shown.digest })}; nothing was signed (${kind})`,
      );
    }
    // Until the worker's directory is loaded nobody is eligible and the run would refuse any
    // decision as "still loading": a request raised a moment ago gets a few seconds.
    if (awaiting.eligible.length > 0 || Date.now() >= giveUpAt) return { ...awaiting, digest: shown.digest };
    await sleep(200);
  }
}

/** The pending request in words, for a refusal: its pinned id and the call it is. */
function pendingWords(awaiting: PendingRequest): string {
  return `${pinnedRequestId(awaiting.requestId, awaiting.digest)}: ${awaiting.tool} ${compact(awaiting.args)}${awaiting.subject ? ` on ${awaiting.subject}` : ''}`;
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
