// What a test reads of a run's phase: the data only one phase holds, or undefined when the run
// is elsewhere. The engine's own code narrows on `phase.name`; a test asks for the data it expects.
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
