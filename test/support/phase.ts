// What a test reads of a run's phase: the data only one phase holds, or undefined when the run
// is elsewhere. The engine's own code narrows on `phase.name`; a test asks for the data it expects.
// And the same state as the release before wrote it (version 3), for the tests that read it back.
import { callsInFlight, pendingRequest, type RunState } from '../../workflows/controller/index.js';

export { callsInFlight, pendingRequest };

/** The finish waiting for the probe (phase `verifying`). */
export function claimOf(state: RunState) {
  return state.phase.name === 'verifying' ? state.phase.claim : undefined;
}

/** The approved effect waiting for its re-read (phase `rereading`). */
export function dispatchOf(state: RunState) {
  return state.phase.name === 'rereading' ? state.phase.dispatch : undefined;
}

/** Who cancelled, while the cancel reads an effect back (phase `cancelling`). */
export function cancellingOf(state: RunState) {
  return state.phase.name === 'cancelling' ? state.phase : undefined;
}

/** The same state as version 3 wrote it: what a worker of the release before carried and answered. */
export function asVersion3(state: RunState): Record<string, unknown> {
  const { phase, ...rest } = state;
  const old: Record<string, unknown> = { ...rest, version: 3, inFlight: 'calls' in phase ? phase.calls : [] };
  switch (phase.name) {
    case 'proposing':
      return { ...old, phase: 'proposing', ...(phase.open ? { frontier: phase.open } : {}) };
    case 'refreshing':
      return { ...old, phase: 'acting', pendingRefresh: phase.held };
    case 'rereading':
      return { ...old, phase: 'acting', pendingDispatch: phase.dispatch };
    case 'verifying':
      return { ...old, phase: 'verifying', pendingClaim: phase.claim };
    case 'awaiting_approval':
      return { ...old, phase: 'awaiting_approval', pendingApproval: phase.request };
    case 'cancelling':
      return { ...old, phase: 'reconciling', cancelling: { by: phase.by, reason: phase.reason, at: phase.at } };
    default:
      return { ...old, phase: phase.name };
  }
}
