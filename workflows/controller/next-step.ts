// The domain's runbook hint for this turn (Domain.nextStep). It is workflow code like every
// domain callback: it sees facts, never outside text, and whatever it returns only goes into
// the model's context. A hint that throws or rambles is dropped or cut, never a failed task.
import type { Domain, NextStepView } from '../contract.js';
import { routeView } from './route.js';
import type { RunState } from './state.js';

/** Long enough for a step and the evidence ids it names; a hint is not a document. */
const MAX_HINT_CHARS = 300;

export function nextStepHint(state: RunState, domain: Domain, now: number): string | undefined {
  if (!domain.nextStep) return undefined;
  // The view a route gets: evidence from before an effect on its subject no longer counts as fresh.
  const view: NextStepView = routeView(state, now);
  try {
    const hint = domain.nextStep(view);
    return typeof hint === 'string' && hint.trim().length > 0 ? hint.trim().slice(0, MAX_HINT_CHARS) : undefined;
  } catch {
    return undefined;
  }
}
