// The alerts `rules` model: silence the group first (once), read what Prometheus says is firing
// for the incident (once), then the incidents runbook, and before its finish expire the silence
// (as the domain's route does, route.ts). Like every rules policy it reads typed facts and
// statuses only, never the alert's text.
import type { CompiledContext } from '../../workflows/public.js';
import { incidentsPolicy } from '../incidents/policy.js';
import { call, knownFacts } from '../policy-helpers.js';
import { incidentOf } from './domain.js';

/** The PromQL the policy asks first: the incident's firing alerts. */
export const firingQuery = (incident: string) => `ALERTS{alertstate="firing",case_id="${incident}"}`;

export function alertsPolicy(context: CompiledContext): unknown {
  // The context is a window: what scrolled out is still known by its pinned facts.
  const facts = knownFacts(context);
  if (!facts.has('silence.id') && !tried(context, 'silence_alert_group')) return call({ tool: 'silence_alert_group', args: {} });
  const incident = incidentOf(context.caseId);
  if (incident && !facts.has('prometheus.server') && !tried(context, 'query_prometheus'))
    return call({ tool: 'query_prometheus', args: { query: firingQuery(incident) } });
  const next = incidentsPolicy(context) as { type?: string };
  // Remediated and about to finish: lift the silence first, so a relapse in the soak pages again.
  if (next.type === 'finish' && facts.get('silence.state')?.value !== 'expired' && facts.has('silence.id') && !tried(context, 'expire_silence'))
    return call({ tool: 'expire_silence', args: {} });
  return next;
}

function tried(context: CompiledContext, tool: string): boolean {
  return context.evidence.some((e) => e.tool === tool) || context.transcript.some((t) => t.kind === 'proposal' && t.summary.startsWith(`call ${tool}`));
}
