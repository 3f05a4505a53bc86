// The idempotency key an effect goes out under, derived from the run and the call, never random:
// the system of record applies a key at most once, so the key decides what "the same effect" is.
import type { ToolContract } from '../tool-contract.js';
import { callSignature } from './bounds.js';
import type { RunState } from './state.js';

/**
 * The key for an effect the gate admits: the contract's business key when it has one (the same
 * intent in any run is the same effect), else the key of the same call that a readback found
 * not applied, else one per call position. `null` when the business key cannot be derived.
 */
export function keyFor(state: RunState, contract: ToolContract, args: unknown, callId: string): string | null {
  const business = businessKey(contract, args, state.caseId);
  if (business === null) return null;
  if (business) return effectKey(state.domain, contract.name, business);
  return keyOfUnappliedTwin(state, callSignature(contract.name, args)) ?? idempotencyKey(state, callId, contract.name);
}

/** The contract's business key: a short id-like string, `null` when it cannot be derived. */
function businessKey(contract: ToolContract, args: unknown, caseId: string): string | null | undefined {
  if (!contract.businessKey) return undefined;
  try {
    const key = contract.businessKey(args as never, { caseId });
    return typeof key === 'string' && /^[A-Za-z0-9:._-]{1,120}$/.test(key) ? key : null;
  } catch {
    return null;
  }
}

/**
 * One key per intended effect: the same call proposed again after a readback said the first
 * one had not taken effect goes out under the first one's key. If the first request was only
 * late, not lost, and commits after the readback, the system of record sees one key twice and
 * applies it once.
 */
function keyOfUnappliedTwin(state: RunState, signature: string): string | undefined {
  const twin = [...state.effects]
    .reverse()
    .find((e) => e.status === 'not_applied' && e.settledBy === 'readback' && callSignature(e.tool, e.args) === signature);
  return twin?.key;
}

/** The idempotency key of an effect with a business key: the same in every run of the domain. */
export function effectKey(domain: string, tool: string, businessKey: string): string {
  return `${domain}/${tool}/${businessKey}`;
}

/**
 * Same run, same call position: same key, whether this is the first attempt, a retry, a
 * readback or a replay. The system of record uses it to apply the effect at most once.
 */
export function idempotencyKey(state: RunState, callId: string, tool: string): string {
  return `${state.runId}/${callId}/${tool}`;
}
