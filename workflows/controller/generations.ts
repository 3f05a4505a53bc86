// Which generation of the engine's rules a run was started under. A run keeps the rules it was
// started with for its whole life, across continue-as-new, so a history recorded under older
// rules replays exactly as it ran; the state says which (the workflow decides it once, at the
// start, from the patch markers in the history: workflows/agent.ts). Every place where the
// rules differ asks one of these two questions, so the old paths are easy to find and to retire.
//
//   generation    marker(s) in new runs    what it brought
//   legacy        none                     the first engine: no subjects, unsigned approvals
//   guarded       trust-boundary-v1        subjects, provenance, signed approvals, a paused run clock
//                 (then engine-v3)
//   bound         engine-v4                statements bound to the execution chain, refusals
//                                          remembered, effects supersede older evidence, spend,
//                                          amendments, permitted effects
//   fresh-reads   engine-v5                a read whose earlier answer is no longer fresh is a
//                                          re-read, not a loop (bound's rules hold too)
//
// Retiring a generation: once no run started under it can still be open (the longest approval
// timeout plus the longest deadline after the last worker that started such runs stopped), and
// its replay fixtures (test/replay/fixtures/before-*) are retired with it, replace its `patched()`
// call with `deprecatePatch()` for one release, then remove the branch and the predicate's
// callers' old side. Until then these predicates are the only places that tell the paths apart.
import type { RunState } from './state.js';

/** Started with the trust boundary: every run since trust-boundary-v1. */
export function isGuarded(state: Pick<RunState, 'guardVersion'>): boolean {
  return state.guardVersion === 2;
}

/** Started under engine-v4 (statements bound to the execution): every new run today. */
export function isBound(state: Pick<RunState, 'engine'>): boolean {
  return state.engine === 4 || state.engine === 5;
}

/** Started under engine-v5: asking again for an answer that went stale is not a loop. */
export function rereadsStale(state: Pick<RunState, 'engine'>): boolean {
  return state.engine === 5;
}
