// The alerts runbook as a route: the incidents runbook (domains/incidents/route.ts), with the
// group's silence around it. The silence is taken first, so nobody is paged again while the run
// works; once the remediation is done and the incidents runbook would finish, it is expired
// before the finish, so a relapse during the soak window pages the on-call again instead of
// being hidden. Workflow-safe: it reads the run's effects and facts, never alert text.
import type { DomainRoute, RouteStep, RouteView } from '../../workflows/public.js';
import { incidentsRoute } from '../incidents/route.js';

const did = (view: RouteView, tool: string) => view.done.some((d) => d.tool === tool);
const tried = (view: RouteView, tool: string) => did(view, tool) || view.evidence.some((e) => e.tool === tool);

export const alertsRoute: DomainRoute = {
  first: (caseId) => incidentsRoute.first?.(caseId) ?? [],
  after: (effect) => incidentsRoute.after?.(effect) ?? [],
  decide(view): RouteStep {
    // One attempt: a silence Alertmanager refused is no reason to leave the incident alone.
    if (!tried(view, 'silence_alert_group')) return { call: [{ tool: 'silence_alert_group', args: {} }], why: 'silence the group while the run works' };
    const step = incidentsRoute.decide(view);
    const remediated = did(view, 'restart_service') || did(view, 'revert_deploy');
    if ('finish' in step && remediated && did(view, 'silence_alert_group') && !did(view, 'expire_silence')) {
      return { call: [{ tool: 'expire_silence', args: {} }], why: 'remediated: lift the group silence before finishing, so a relapse pages again' };
    }
    return step;
  },
};
