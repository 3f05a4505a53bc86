// A tool call's result when the call itself cannot give one that counts: a reply of the wrong
// shape or for another call, a reply no worker sealed, a failure after the retries, a call the
// workflow refused to send. Each rule says what the run may believe about the world: a read's bad
// answer is no evidence, and an effect that may have reached its system is `unknown`, to be read
// back, never assumed done or not done. And an activity's failure in words, for every command.
import { ActivityFailure, TimeoutFailure } from '@temporalio/workflow';
import type { ToolKind } from './tool-contract.js';
import { loopNow } from './arrivals.js';
import { TOOL_ATTEMPTS } from './policy.js';
import { ToolResult } from './protocol.js';
import type { Opened } from './sealed.js';

/** What these rules read of a planned call. */
type Call = { callId: string; kind: ToolKind; idempotent: boolean };

/** Checked where it enters: a result for another call, or of the wrong shape, is not this call's result. */
export function toolResultOf(call: Call, raw: unknown, startedAt: number): ToolResult {
  const result = ToolResult.safeParse(raw);
  if (result.success && result.data.callId === call.callId) return result.data;
  const message = 'the tool activity returned a malformed result';
  return call.kind === 'effect'
    ? { status: 'unknown', callId: call.callId, errorClass: 'unknown', message, attempt: 1, startedAt, finishedAt: loopNow() }
    : { status: 'error', callId: call.callId, errorClass: 'bad_output', message, attempt: 1, startedAt, finishedAt: loopNow() };
}

/** The call's result when the workflow refused to send it: nothing can have happened. */
export function notSent(call: Call, startedAt: number, message: string): ToolResult {
  return { status: 'error', callId: call.callId, errorClass: 'not_sent', message, attempt: 1, startedAt, finishedAt: loopNow() };
}

/**
 * A result no worker sealed. A read's is not evidence. An effect's says nothing about the world:
 * a reply of success is kept as a claim the readback must confirm (as a contract's
 * confirmByReadback asks), anything else leaves the outcome unknown, to be read back.
 */
export function claimedResult(call: Call, opened: Extract<Opened<unknown>, { sealed: false }>, startedAt: number): ToolResult {
  const finishedAt = loopNow();
  const notAWorkers = `the result is not a worker's (${opened.reason})`;
  if (call.kind !== 'effect') {
    return { status: 'error', callId: call.callId, errorClass: 'bad_output', message: `${notAWorkers}: it is not evidence`, attempt: 1, startedAt, finishedAt };
  }
  const claim = ToolResult.safeParse(opened.claim);
  if (claim.success && claim.data.callId === call.callId && claim.data.status === 'ok') return { ...claim.data, unsealed: true };
  const said = claim.success ? `${claim.data.status}` : 'something that is not a result';
  return {
    status: 'unknown',
    callId: call.callId,
    errorClass: 'unknown',
    message: `${notAWorkers} and said ${said}: read back`,
    attempt: 1,
    startedAt,
    finishedAt,
  };
}

/** The activity failed after its retries: an effect's outcome is unknown, a read's is an error. */
export function failedCallResult(call: Call, err: unknown, startedAt: number): ToolResult {
  const timedOut = err instanceof ActivityFailure && err.cause instanceof TimeoutFailure;
  return {
    status: call.kind === 'effect' ? 'unknown' : timedOut ? 'timeout' : 'error',
    callId: call.callId,
    errorClass: call.kind === 'effect' ? 'unknown' : timedOut ? 'timeout' : 'transient',
    message: failureMessage(err),
    // Retried calls fail here only once their attempts are used up (a non-final attempt throws
    // to be retried, the final one reports); anything else ended after its first attempt.
    attempt: call.idempotent && err instanceof ActivityFailure && err.retryState === 'MAXIMUM_ATTEMPTS_REACHED' ? TOOL_ATTEMPTS : 1,
    startedAt,
    finishedAt: loopNow(),
  };
}

/** The failure in one line: the activity's own error where there is one. */
export function failureMessage(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return `${err.cause.name}: ${err.cause.message}`.slice(0, 300);
  return err instanceof Error ? err.message.slice(0, 300) : String(err).slice(0, 300);
}
