// The alerts runbook as a route: the incidents runbook (domains/incidents/route.ts), with the
// group's silence around it. The silence is taken first, so nobody is paged again while the run
// works; once the remediation is done and the incidents runbook would finish, it is expired
// before the finish, so a relapse during the soak window pages the on-call again instead of
// being hidden; and before an escalation, so the person it goes to is paged. Workflow-safe: it reads the run's effects and facts, never alert text.
import type { DomainRoute, NextStepView, RouteStep, RouteView } from '../../workflows/public.js';
import { incidentsRoute } from '../incidents/route.js';

const did = (view: NextStepView, tool: string) => view.done.some((d) => d.tool === tool);

/** The run set the group's silence and has not lifted it: the route lifts it before a finish or an escalation, the domain's closing call on any other end. */
export const silencedStill = (view: NextStepView) => did(view, 'silence_alert_group') && !did(view, 'expire_silence');
const tried = (view: RouteView, tool: string) => did(view, tool) || view.evidence.some((e) => e.tool === tool);

export const alertsRoute: DomainRoute = {
  first: (caseId) => incidentsRoute.first?.(caseId) ?? [],
  after: (effect) => incidentsRoute.after?.(effect) ?? [],
  decide(view): RouteStep {
    // One attempt: a silence Alertmanager refused is no reason to leave the incident alone.
    if (!tried(view, 'silence_alert_group')) return { call: [{ tool: 'silence_alert_group', args: {} }], why: 'silence the group while the run works' };
    const step = incidentsRoute.decide(view);
    const silenced = silencedStill(view);
    // Remediated, by this run or (after a reset) an earlier one of the case: the finish is next.
    if ('finish' in step && silenced) {
      return { call: [{ tool: 'expire_silence', args: {} }], why: 'remediated: lift the group silence before finishing, so a relapse pages again' };
    }
    // An escalation hands the incident to a person: they are paged again, not left behind a silence.
    if ('escalate' in step && silenced) {
      return {
        call: [{ tool: 'expire_silence', args: {} }],
        why: `escalating (${step.escalate.slice(0, 120)}): lift the group silence first, so the alert pages`,
      };
    }
    return step;
  },
};
