// The on-call runbook as a route: read every service's metrics at once, and for the one
// unhealthy service restart it when its memory is exhausted, or revert a bad deploy to the
// previous version; read its metrics again after the fix and close the case. Two sick services,
// a fix that did not take, or a service that will not answer are outside the runbook: the route
// says so (`open`) and whoever is asked next decides. Every step still passes the gate.
import type { DomainRoute, EvidenceView, RouteStep, RouteView } from '../../workflows/public.js';
import { isCaseRemediation, MEMORY_EXHAUSTED_PCT, Service } from './services.js';

const services = Service.options;
const usable = (e: EvidenceView) => e.status === 'ok' && e.fresh && e.authority === 'authoritative';

/** Evidence about one service only: a fact about the db never decides what happens to the cache. */
function about(view: RouteView, service: string): EvidenceView[] {
  return view.evidence.filter((e) => e.subject === `service:${service}`);
}

function latest(evidence: EvidenceView[], match: (e: EvidenceView) => boolean): EvidenceView | undefined {
  return [...evidence].reverse().find(match);
}

const metricsOf = (view: RouteView, service: string) => latest(about(view, service), (e) => usable(e) && e.tool === 'get_metrics');

export const incidentsRoute: DomainRoute = {
  first: () => services.map((service) => ({ tool: 'get_metrics', args: { service } })),
  // A restart or a revert changes what the metrics said before it: read them again.
  after: (effect) => {
    const service = Service.safeParse((effect.args as { service?: unknown } | undefined)?.service);
    return service.success ? [{ tool: 'get_metrics', args: { service: service.data } }] : [];
  },
  decide(view): RouteStep {
    const unread = services.filter((s) => !metricsOf(view, s));
    if (unread.length) {
      const silent = unread.filter((s) => about(view, s).filter((e) => e.tool === 'get_metrics' && e.status !== 'ok').length >= 2);
      if (silent.length) return { open: [`the metrics of ${silent.join(', ')} did not answer twice`] };
      return { call: unread.map((service) => ({ tool: 'get_metrics', args: { service } })), why: `no fresh metrics of ${unread.join(', ')}` };
    }
    const fixes = view.done.filter((d) => d.tool === 'restart_service' || d.tool === 'revert_deploy');
    const sick = services.filter((s) => metricsOf(view, s)?.facts[`${s}.healthy`] === false);
    if (sick.length === 0) return allHealthy(view, fixes);
    const fixedSick = sick.filter((s) => fixes.some((f) => f.subject === `service:${s}`));
    if (fixedSick.length) return { open: [`${fixedSick.join(', ')} still unhealthy after this run's ${describe(fixes)}: the runbook's remedy did not take`] };
    if (sick.length > 1) {
      const steps = sick.map((s) => `${s}: ${stepFor(view, s)}`);
      return {
        open: [
          `${sick.join(' and ')} are unhealthy: the runbook fixes one service at a time and does not say which first`,
          ...steps,
          'take one of these steps; the runbook goes on from there',
        ],
      };
    }
    return remedy(view, sick[0] as string);
  },
};

/** Nothing sick: close the case if this run (or an earlier run of it) fixed something, else there is nothing to do. */
function allHealthy(view: RouteView, fixes: RouteView['done']): RouteStep {
  const fixed = fixes.at(-1)?.subject?.slice('service:'.length);
  const cite = fixed ? metricsOf(view, fixed) : undefined;
  if (fixed && cite) return { finish: { claim: { remediated: fixed }, evidence: [cite.id] }, why: `${fixed} was remediated and its fresh metrics say healthy` };
  for (const s of services) {
    const metrics = metricsOf(view, s);
    const key = metrics?.facts[`${s}.lastEffectKey`];
    if (metrics && typeof key === 'string' && isCaseRemediation(view.caseId, s, key)) {
      return { finish: { claim: { remediated: s }, evidence: [metrics.id] }, why: `${s} was remediated for this case by an earlier run and is healthy` };
    }
  }
  return { escalate: 'every service is healthy and nothing was remediated for this case: nothing to do; a person should check the alert' };
}

/** One sick service: restart on memory exhaustion, else read its deploys and revert to the previous version. */
function remedy(view: RouteView, service: string): RouteStep {
  const metrics = metricsOf(view, service) as EvidenceView;
  const memory = metrics.facts[`${service}.memoryPct`];
  if (typeof memory === 'number' && memory >= MEMORY_EXHAUSTED_PCT) {
    return { call: [{ tool: 'restart_service', args: { service } }], why: `${service} is unhealthy with memory at ${memory}% (${metrics.id})` };
  }
  const deploys = latest(about(view, service), (e) => usable(e) && e.tool === 'get_deploys');
  if (!deploys) return { call: [{ tool: 'get_deploys', args: { service } }], why: `${service} is unhealthy with memory at ${String(memory)}%: a bad deploy?` };
  const previous = deploys.facts[`${service}.previousVersion`];
  const current = deploys.facts[`${service}.version`];
  if (typeof previous !== 'string' || previous === current)
    return { open: [`${service} is unhealthy, its memory is fine and there is no earlier version to revert to`] };
  return {
    call: [{ tool: 'revert_deploy', args: { service, toVersion: previous }, sources: { toVersion: `${deploys.id}.${service}.previousVersion` } }],
    why: `${service} is unhealthy, memory fine, previous version ${previous} (${deploys.id})`,
  };
}

/** The runbook's step for one sick service, in words: what the model may choose between. */
function stepFor(view: RouteView, service: string): string {
  const step = remedy(view, service);
  if ('call' in step)
    return `${step.call.map((c) => `${c.tool} ${JSON.stringify(c.args)}${c.sources ? ` citing ${JSON.stringify(c.sources)}` : ''}`).join(' + ')} (${step.why})`;
  return 'open' in step ? step.open.join('; ') : 'no step';
}

function describe(fixes: RouteView['done']): string {
  return fixes.map((f) => `${f.tool} of ${f.subject?.slice('service:'.length) ?? '?'}`).join(', ');
}
