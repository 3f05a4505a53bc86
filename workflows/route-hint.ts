// A domain's runbook hint (Domain.nextStep) made from its route, so the words a model is shown
// and the steps a route takes can never disagree: one runbook, read by the route in `workflow`
// and `hybrid`, shown to the model as a hint in `react`. The hint grants nothing either way.
import type { DomainRoute, NextStepView, RouteCall, RouteStep } from './contract.js';

/** `nextStep: routeHint(myRoute)`: the route's step for where the run stands, in words. */
export function routeHint(route: DomainRoute): (view: NextStepView) => string | undefined {
  return (view) => describeStep(route.decide(view));
}

/** A call in words, with the sources it cites (a model that follows the hint cites them too). */
function describeCall(call: RouteCall): string {
  const cites = call.sources && Object.keys(call.sources).length ? ` citing ${JSON.stringify(call.sources)}` : '';
  return `${call.tool} ${JSON.stringify(call.args)}${cites}`;
}

export function describeStep(step: RouteStep): string {
  if ('open' in step) return `the runbook cannot decide this: ${step.open.join('; ')}`;
  if ('call' in step) return `${step.call.map(describeCall).join(' + ')} (${step.why}).`;
  if ('finish' in step) return `call finish with claim ${JSON.stringify(step.finish.claim)} citing ${step.finish.evidence.join(', ')} (${step.why}).`;
  return `escalate: ${step.escalate}`;
}
