// Observations and effects: tool results become evidence (with their subject), pinned facts,
// receipts and loop-guard memory; the effects ledger learns how each effect ended, from its
// own reply or from a readback by key. A reply its contract calls a claim is confirmed by the
// readback first; a readback that finds nothing is final only when the request can no longer
// commit (the key was fenced, or the contract's commit window has passed).
import type { Domain } from '../contract.js';
import { withApprovers } from './approval-request.js';
import type { ReadbackResult, ToolResult } from './events.js';
import { callSignature } from './bounds.js';
import { adaptResult } from './observation.js';
import { regainedFreshness } from './refresh.js';
import type { Evidence, In, PlannedCall, RunState } from './state.js';
import { readBack, replaceEffect } from './readback.js';
import { contractOf, control, deadlineReached, proposeOrStop, stop } from './transitions.js';

/**
 * The results of the calls in flight, taken in. An effect left in doubt is read back before
 * anything else; otherwise `then` moves the run on from the results (next.ts says where: the next
 * turn, the held proposal judged again, or the held dispatch), with the run between steps
 * (`proposing`, its turn not yet moved) until it does.
 */
export function onObserved(
  state: In<'acting' | 'refreshing' | 'rereading'>,
  domain: Domain,
  results: ToolResult[],
  now: number,
  then: (absorbed: RunState) => RunState,
): RunState {
  const calls = state.phase.calls;
  const byCall = new Map(results.map((r) => [r.callId, r]));
  if (byCall.size !== results.length || results.length !== calls.length || !calls.every((c) => byCall.has(c.callId))) {
    throw new Error('bug: every call in flight must have exactly one result');
  }
  let next: RunState = { ...state, phase: { name: 'proposing' } };
  for (const call of calls) {
    const result = byCall.get(call.callId) as ToolResult;
    next = absorb(next, domain, call, result, now);
  }
  if (next.effects.some((e) => e.status === 'unknown')) return { ...next, phase: { name: 'reconciling' } };
  return then(next);
}

/** One result becomes evidence, updates facts, receipts, the loop guard and the effects ledger. */
function absorb(state: RunState, domain: Domain, call: PlannedCall, result: ToolResult, now: number): RunState {
  const contract = contractOf(domain, call.tool);
  // The arguments ride along so a chat-style context can show the call that produced it.
  const evidence = { ...withSubject(adaptResult(contract, result, `e${state.seq + 1}`, call.subject), call.subject), args: call.args };
  // A reply its contract calls a claim says nothing about the world until the readback finds it:
  // the effect stays in doubt, and none of the reply's facts becomes control state.
  // So is a reply no worker sealed, whatever the contract says.
  const claimed =
    call.kind === 'effect' && evidence.status === 'ok' && (contract.confirmByReadback === true || (result.status === 'ok' && result.unsealed === true));
  const { pinned, changed } = claimed ? { pinned: state.pinned, changed: false } : pinFacts(state.pinned, evidence);
  // Progress is a fact that changed, or one that is usable again: the same values, fresh once more.
  const factsVersion = changed || regainedFreshness(state, evidence, now) ? state.factsVersion + 1 : state.factsVersion;
  // Refused by the system, or never sent: nothing happened, and repeating it unchanged will not help.
  const refused = result.status === 'error' && (result.errorClass === 'semantic' || result.errorClass === 'not_sent');
  const effectStatus = call.kind !== 'effect' ? undefined : claimed ? 'unknown' : evidence.status === 'ok' ? 'applied' : refused ? 'failed' : 'unknown';
  return {
    ...state,
    seq: state.seq + 1,
    factsVersion,
    pinned,
    evidence: [...state.evidence, evidence],
    transcript: [...state.transcript, { kind: 'observation', turn: call.turn, evidenceId: evidence.id }],
    seen: remember(state.seen, callSignature(call.tool, call.args), {
      factsVersion,
      status: evidence.status,
      ...(refused ? { refused: true } : {}),
    }),
    executions: [
      ...state.executions,
      {
        callId: call.callId,
        turn: call.turn,
        tool: call.tool,
        kind: call.kind,
        accepted: !refused,
        result: receiptResult(result, effectStatus, evidence.status),
        attempt: result.attempt,
        durationMs: Math.max(0, result.finishedAt - result.startedAt),
        ...(call.idempotencyKey ? { idempotencyKey: call.idempotencyKey } : {}),
        evidenceId: evidence.id,
      },
    ],
    effects: effectStatus
      ? state.effects.map((e) =>
          e.callId === call.callId
            ? {
                ...e,
                status: effectStatus,
                ...(effectStatus === 'unknown' ? {} : { settledBy: 'response' as const, evidenceId: evidence.id }),
                ...(claimed ? { claim: 'pending' as const } : {}),
              }
            : e,
        )
      : state.effects,
  };
}

/** Re-inserts the signature last, so retention keeps the most recently used ones. */
function remember(seen: RunState['seen'], signature: string, value: RunState['seen'][string]): RunState['seen'] {
  const { [signature]: _previous, ...rest } = seen;
  return { ...rest, [signature]: value };
}

function receiptResult(result: ToolResult, effectStatus: string | undefined, evidenceStatus: Evidence['status']): 'final' | 'failed' | 'timeout' | 'unknown' {
  if (effectStatus === 'unknown') return 'unknown';
  // An `ok` whose output broke the contract is a failed call (bad_output), as its evidence says.
  if (result.status === 'ok') return evidenceStatus === 'ok' ? 'final' : 'failed';
  if (result.status === 'timeout') return 'timeout';
  if (result.status === 'unknown') return 'unknown';
  return 'failed';
}

function pinFacts(pinned: RunState['pinned'], evidence: Evidence): { pinned: RunState['pinned']; changed: boolean } {
  if (evidence.status !== 'ok') return { pinned, changed: false };
  let changed = false;
  const out = { ...pinned };
  for (const [fact, value] of Object.entries(evidence.facts)) {
    // One transfer's status must not overwrite another's: facts are pinned per subject.
    const key = evidence.subject ? `${evidence.subject} ${fact}` : fact;
    if (!(key in out) || out[key]?.value !== value) changed = true;
    out[key] = { value, evidenceId: evidence.id };
  }
  return { pinned: out, changed };
}

function withSubject(evidence: Evidence, subject: string | undefined): Evidence {
  return subject ? { ...evidence, subject } : evidence;
}

/** The run's own readback of an effect in doubt (readback.ts), and where the run goes from there. */
export function onReconciled(state: RunState, domain: Domain, result: ReadbackResult, now: number): RunState {
  const read = readBack(state, domain, result, now);
  switch (read.outcome) {
    case 'undecided':
      return stop(read.state, 'unknown_outcome', 'readback_undecided', `${read.effect.tool} (key ${read.effect.key}): ${result.detail}`, now);
    case 'later':
      return read.state;
    case 'applied': {
      // Recorded as committed, the readback as evidence whose facts the next turn relies on; never run again.
      const { pinned, changed } = pinFacts(read.state.pinned, read.evidence);
      const factsVersion = changed ? state.factsVersion + 1 : state.factsVersion;
      const seen = remember(read.state.seen, callSignature(read.effect.tool, read.effect.args), { factsVersion, status: 'ok' });
      return proposeOrStop({ ...read.state, pinned, factsVersion, seen }, now);
    }
    case 'not_applied':
      break;
  }
  const { effect, contract } = read;
  if (effect.claim === 'pending') {
    // The reply said applied; the system of record does not hold it. Whatever sent that reply (a
    // proxy, a bug, an operator completing the activity by hand) was not the world: recorded as
    // such, and never sent again on the strength of it.
    const message = `${effect.tool}'s reply said it was applied, but its readback by key ${effect.key} finds nothing: the reply did not come from the system of record`;
    return proposeOrStop(control(read.settled, 'effect_reply_contradicted', message), now);
  }
  // An effect the system dedupes by key may go again with the same key, once; otherwise the
  // model hears that it did not happen and decides.
  if (contract.idempotent && effect.attempts < 2 && !deadlineReached(state, now)) {
    const { recheckAt: _checked, ...rest } = effect;
    const retry = { ...rest, status: 'in_flight' as const, attempts: effect.attempts + 1, sentAt: now };
    const rebuilt: PlannedCall = {
      callId: effect.callId,
      turn: effect.turn,
      tool: effect.tool,
      args: effect.args,
      kind: 'effect',
      idempotent: true,
      idempotencyKey: effect.key,
      ...(effect.subject ? { subject: effect.subject } : {}),
      sentAt: now,
    };
    // An approved effect goes again under the statements that approved it, named in its dispatch like the first.
    const call = withApprovers(read.state, rebuilt, `${state.runId}/approval/${effect.callId}`);
    return { ...read.state, phase: { name: 'acting', calls: [call] }, effects: replaceEffect(read.state.effects, retry) };
  }
  return proposeOrStop(control(read.settled, 'effect_not_applied', `${effect.tool} did not take effect (read back by key ${effect.key})`), now);
}
