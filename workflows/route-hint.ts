// A domain's runbook hint (Domain.nextStep) made from its route, so the words a model is shown
// and the steps a route takes can never disagree: one runbook, read by the route in `workflow`
// and `hybrid`, shown to the model as a hint in `react`. The hint grants nothing either way.
import type { DomainRoute, NextStepView, RouteStep } from './contract.js';

/** `nextStep: routeHint(myRoute)`: the route's step for where the run stands, in words. */
export function routeHint(route: DomainRoute): (view: NextStepView) => string | undefined {
  return (view) => describeStep(route.decide(view));
}

export function describeStep(step: RouteStep): string {
  if ('open' in step) return `the runbook cannot decide this: ${step.open.join('; ')}`;
  if ('call' in step) return `${step.call.map((c) => `${c.tool} ${JSON.stringify(c.args)}`).join(' + ')} (${step.why}).`;
  if ('finish' in step) return `call finish with claim ${JSON.stringify(step.finish.claim)} citing ${step.finish.evidence.join(', ')} (${step.why}).`;
  return `escalate: ${step.escalate}`;
}
