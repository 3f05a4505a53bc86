// Who a signed statement speaks for, in one place: the run's starter, a decision on the pending
// request (approve, deny), an amendment of it, and a note. Each is a statement signed with a key
// from the worker's approver directory (trust/statement.ts); the rules here say when that
// signature counts in this run. The Update validators ask the same questions before anything is
// accepted (so a forgery costs no history), and the controller asks them again when the input
// arrives, since the directory or the request may have changed in between. Pure.
//
// A refusal's reason quotes only the run's own values (its request, its tool, its roles) and, once
// a signature has verified, the directory id of its signer: never a field of a statement that has
// not verified, which anyone reaching the frontend writes and which would reach the worker's logs
// and traces (docs/observability.md: no span holds arguments).
import { noteRolesOf, type Domain } from '../contract.js';
import type { Approver } from '../trust/directory.js';
import {
  canonical,
  MAX_STATEMENT_LIFETIME_MS,
  verifyStatement,
  type AmendStatement,
  type DecisionStatement,
  type SignedAmend,
  type SignedDecision,
  type SignedNote,
} from '../trust/statement.js';
import type { TranscriptEntry } from './receipts.js';
import { pendingRequest, type RunState } from './state.js';

/**
 * How long after a run's start its start statement may still be valid. A statement that
 * outlives this was not made for this start, or was made long ago: it could be a copy of
 * someone's earlier start, replayed to name them as the starter of a run they never began.
 */
export const START_STATEMENT_WINDOW_MS = 15 * 60_000;

export type DecisionCheck = { ok: true; approver: Approver } | { ok: false; reason: string };

/** Who started the run, if the start statement verifies under the directory's key for its signer. */
export function verifiedStarter(state: RunState, directory: Approver[]): { starter?: string } {
  const claim = state.starterClaim;
  if (!claim || state.starter) return {};
  const s = claim.statement;
  const key = directory.filter((a) => a.id === s.by);
  if (key.length !== 1 || s.runId !== state.runId || s.expiresAt < state.startedAt) return {};
  if (s.expiresAt > state.startedAt + START_STATEMENT_WINDOW_MS) return {};
  return verifyStatement(claim, (key[0] as Approver).publicKey) ? { starter: s.by } : {};
}

/**
 * Would this signed decision count? The statement must be about the pending request as the run
 * shows it now, say what the caller asks (`approve` through the approve Update), and come from
 * an eligible key the quorum has not counted yet.
 */
export function checkDecision(state: RunState, signed: SignedDecision, decision: DecisionStatement['decision'], now: number): DecisionCheck {
  const s = signed.statement;
  if (s.decision !== decision) return { ok: false, reason: `the statement says ${s.decision}, not ${decision}` };
  const checked = checkOnRequest(state, signed, 'the call you signed is not the one that would run; fetch the request again', now);
  if (!checked.ok) return checked;
  const request = pendingRequest(state);
  if (!request) return { ok: false, reason: notPending(state) };
  if (request.notStarter) {
    if (!state.starter)
      return { ok: false, reason: `${request.call.tool} needs an approver other than the run's starter, and this run's start was not signed` };
    if (state.starter === s.by) return { ok: false, reason: `${s.by} started this run and may not approve its ${request.call.tool}` };
  }
  const collected = request.collected ?? [];
  if (collected.some((c) => c.statement.by === s.by)) return { ok: false, reason: `${s.by} has already approved request ${s.requestId}` };
  // A quorum counts people, and a person is a key: never two approvals under one key.
  const sameKey = collected.find((c) => request.eligible?.find((a) => a.id === c.statement.by)?.publicKey === checked.approver.publicKey);
  if (sameKey) return { ok: false, reason: `${s.by} signs with the same key as ${sameKey.statement.by}, who has already approved` };
  return checked;
}

/** Would this signed amendment count? Like a decision, and it must change the arguments. */
export function checkAmend(state: RunState, signed: SignedAmend, now: number): DecisionCheck {
  const checked = checkOnRequest(state, signed, 'the call you amended is not the one pending; fetch the request again', now);
  if (!checked.ok) return checked;
  if (canonical(signed.statement.args) === canonical(pendingRequest(state)?.call.args))
    return { ok: false, reason: 'the amended arguments are the ones pending; approve the request instead' };
  return checked;
}

/** The checks every statement about the pending request passes: request, run, digest, lifetime, key. */
function checkOnRequest(
  state: RunState,
  signed: { statement: DecisionStatement | AmendStatement; signature: string },
  staleDigest: string,
  now: number,
): DecisionCheck {
  const request = pendingRequest(state);
  const s = signed.statement;
  if (state.terminal) return { ok: false, reason: `run already ended (${state.terminal.class})` };
  if (!request || request.requestId !== s.requestId) return { ok: false, reason: notPending(state) };
  if (!request.eligible) return { ok: false, reason: 'the approver directory for this request is still loading; try again in a moment' };
  if (s.runId !== state.runId) return { ok: false, reason: `the statement is signed for another run, not ${state.runId}` };
  if (s.digest !== request.digest) return { ok: false, reason: staleDigest };
  const lifetime = checkLifetime(s.expiresAt, now);
  if (lifetime) return { ok: false, reason: lifetime };
  const approver = request.eligible.find((a) => a.id === s.by);
  if (!approver)
    return { ok: false, reason: `the signer may not decide ${request.call.tool} (needs ${request.roles.join(' or ')} in the worker's approver directory)` };
  if (!verifyStatement(signed, approver.publicKey)) return { ok: false, reason: "the signature does not verify under the signer's directory key" };
  return { ok: true, approver };
}

/** Names the run's own pending request, never the statement's words. */
function notPending(state: RunState): string {
  const pending = pendingRequest(state);
  return pending
    ? `the statement's request is not pending; the pending request is ${pending.requestId}`
    : "the statement's request is not pending; no request is";
}

function checkLifetime(expiresAt: number, now: number): string | undefined {
  if (expiresAt <= now) return 'the signed statement has expired';
  if (expiresAt > now + MAX_STATEMENT_LIFETIME_MS) return 'the signed statement is valid for too long (at most 24 h)';
  return undefined;
}

/**
 * A signed note as the transcript records it. It is an operator's word (trusted: provenance takes
 * values from it) only when it verifies under the one directory key of its signer, that key has a
 * role the domain names for notes, it is for this run, and it is within a statement's lifetime (a
 * long-lived note is a standing instruction nobody re-reads). Otherwise it is untrusted text.
 */
export function noteEntry(state: RunState, domain: Domain, signed: SignedNote, directory: Approver[], now: number): Extract<TranscriptEntry, { kind: 'note' }> {
  const s = signed.statement;
  const keys = directory.filter((a) => a.id === s.by);
  const key = keys.length === 1 ? keys[0] : undefined;
  const roles = noteRolesOf(domain);
  const trusted =
    key !== undefined &&
    s.runId === state.runId &&
    checkLifetime(s.expiresAt, now) === undefined &&
    key.roles.some((r) => roles.includes(r)) &&
    verifyStatement(signed, key.publicKey);
  return { kind: 'note', turn: state.turn, by: s.by, text: s.text.slice(0, 2_000), trusted, ...(trusted && s.fields ? { fields: s.fields } : {}) };
}
