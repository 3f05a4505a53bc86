// Reading a run state this build did not write: state carried across continue-as-new from a
// build of an earlier release, or a state query answered by a worker still on one. Kept apart
// from state.ts, which says what the state is; this says which earlier states mean the same.
import { RunState, STATE_VERSION } from './state.js';

/**
 * Reads state carried across continue-as-new, or answered by a worker of an earlier release.
 * Besides this release's own, it takes the state of the two releases before that were on the
 * same rules: version 3 (the phase a name, its data in optional fields beside it) and version 2
 * (engine 5, bound to its chain), so such a run moves onto this build without a break. Any other
 * state is from an older rule set: `olderRuleSet` says so, and the workflow refuses it with
 * OlderRuleSetError.
 */
export function loadState(raw: unknown): { ok: true; state: RunState } | { ok: false; problem: string; olderRuleSet?: true } {
  const record = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : undefined;
  const version = record?.version;
  let current: unknown = raw;
  if (version === 2) {
    const { guardVersion, engine, ...rest } = record as Record<string, unknown>;
    if (guardVersion !== 2 || engine !== 5 || typeof rest.chain !== 'string')
      return { ok: false, problem: `state carried from a run under an older rule set (engine ${String(engine ?? 'before v4')})`, olderRuleSet: true };
    current = fromVersion3(rest);
  } else if (version === 3) {
    current = fromVersion3(record as Record<string, unknown>);
  } else if (version === 1) {
    return { ok: false, problem: 'state carried from a run under an older rule set (state version 1)', olderRuleSet: true };
  } else if (version !== STATE_VERSION) {
    return { ok: false, problem: `state version ${String(version)} is not one this engine reads (${STATE_VERSION})` };
  }
  const parsed = RunState.safeParse(current);
  return parsed.success ? { ok: true, state: parsed.data } : { ok: false, problem: parsed.error.message.slice(0, 500) };
}

/** Version 3 named the phase and kept its data in optional fields beside it: the same facts, placed in the phase. */
function fromVersion3(record: Record<string, unknown>): Record<string, unknown> {
  const { phase, inFlight, pendingApproval, pendingClaim, pendingRefresh, pendingDispatch, cancelling, frontier, ...rest } = record;
  const calls = Array.isArray(inFlight) ? inFlight : [];
  const placed = () => {
    switch (phase) {
      case 'proposing':
        return { name: phase, ...(frontier ? { open: frontier } : {}) };
      case 'acting':
        if (pendingDispatch) return { name: 'rereading', calls, dispatch: pendingDispatch };
        return pendingRefresh ? { name: 'refreshing', calls, held: pendingRefresh } : { name: phase, calls };
      case 'verifying':
        return { name: phase, claim: pendingClaim };
      case 'awaiting_approval':
        return { name: phase, request: pendingApproval };
      case 'reconciling':
        return cancelling && typeof cancelling === 'object' ? { name: 'cancelling', ...cancelling } : { name: phase };
      default:
        return { name: phase };
    }
  };
  return { ...rest, version: STATE_VERSION, phase: placed() };
}
