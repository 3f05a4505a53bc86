// The alerts domain's implementation, over any implementation of the incidents domain: the
// incidents reads, remediations, readback and probe are that implementation's, for the incident
// the alert run's case names (the simulated world's, tools.ts, or a Kubernetes API's,
// kubernetes.ts); PromQL goes to the team's Prometheus and the silence to its Alertmanager. After
// a soak, the probe also asks Prometheus whether the incident's alerts stayed quiet throughout.
import { implement, ToolRefused, type DomainImplementation, type ToolContext } from '../../worker/public.js';
import type { incidents } from '../incidents/domain.js';
import { incidentsImplementation } from '../incidents/tools.js';
import type { WorldDeps } from '../world/deps.js';
import { createSilence, expireSilences, silenceByKey, silencesByKey, type Silence } from './alertmanager-client.js';
import { alerts, incidentOf, silenceKeyOf } from './domain.js';
import { alertsPolicy } from './policy.js';
import { promQuery } from './prometheus-client.js';

/** Where the alerts run's own tools go: the team's Prometheus and Alertmanager. */
export interface AlertStackDeps {
  prometheusUrl: string;
  alertmanagerUrl: string;
}

/** The alerts implementation over the simulated world: its deps. */
export type AlertsDeps = WorldDeps & AlertStackDeps;

/**
 * How long a silence lasts unless the run expires it sooner: no longer than the run can work (the
 * domain's deadline, which the soak extends), so a run that never gets to expire_silence (a crash
 * loop, a cancel, an escalation) leaves no silence behind for longer than the run itself could
 * have lasted. A run started with a longer deadline of its own still has it expired by the route.
 */
const SILENCE_MS = (alerts.defaults?.budgets?.deadlineMs ?? 15 * 60_000) + (alerts.soak?.windowMs ?? 0);

/**
 * The alerts implementation whose incidents part is `on`, an implementation of the incidents
 * domain: each of its tools, its readback and its probe are called with the incident as the case
 * and the same deps, which hold `on`'s and the alert stack's.
 */
export function alertsOn<IncidentDeps>(on: DomainImplementation<typeof incidents, IncidentDeps>) {
  type Deps = IncidentDeps & AlertStackDeps;
  const asIncident = (ctx: ToolContext<Deps>): ToolContext<IncidentDeps> => ({ ...ctx, caseId: incident(ctx) });
  return implement(alerts).with<Deps>({
    tools: {
      query_prometheus: (args, ctx) => promQuery(ctx.deps.prometheusUrl, args.query, opts(ctx)),
      get_metrics: (args, ctx) => on.tools.get_metrics(args, asIncident(ctx)),
      get_logs: (args, ctx) => on.tools.get_logs(args, asIncident(ctx)),
      get_deploys: (args, ctx) => on.tools.get_deploys(args, asIncident(ctx)),
      restart_service: (args, ctx) => on.tools.restart_service(args, asIncident(ctx)),
      revert_deploy: (args, ctx) => on.tools.revert_deploy(args, asIncident(ctx)),
      silence_alert_group: async (_args, ctx) => {
        const silence = await createSilence(
          ctx.deps.alertmanagerUrl,
          {
            // The incident's alerts, by the label the rules carry (monitoring/ rules: case_id).
            matchers: [{ name: 'case_id', value: incident(ctx), isRegex: false, isEqual: true }],
            // From when the run sent the effect (its clock), so a retried attempt does not push it out.
            endsAt: new Date((ctx.sentAt ?? Date.now()) + SILENCE_MS).toISOString(),
            createdBy: 'bounded-react-temporal',
            comment: `agent run for ${ctx.caseId} is remediating`,
            idempotencyKey: key(ctx),
          },
          opts(ctx),
        );
        return silenceOutput(silence);
      },
      expire_silence: async (_args, ctx) => {
        const silence = await expireSilences(ctx.deps.alertmanagerUrl, silenceKeyOf(ctx.caseId), opts(ctx));
        return { silenceId: silence.id, state: 'expired' as const, endsAt: silence.endsAt };
      },
    },
    readbacks: {
      read_incident_effect: (k, ctx) => on.readbacks.read_incident_effect(k, asIncident(ctx)),
      read_silence: async (k, ctx) => {
        const found = await silenceByKey(ctx.deps.alertmanagerUrl, k, opts(ctx));
        return found ? { applied: true, output: silenceOutput(found) } : { applied: false };
      },
      // Applied when the case's silences exist and none of them is in force any more.
      read_silence_expired: async (_k, ctx) => {
        const all = await silencesByKey(ctx.deps.alertmanagerUrl, silenceKeyOf(ctx.caseId), opts(ctx));
        const latest = all.at(-1);
        if (!latest || all.some((s) => s.status.state !== 'expired')) return { applied: false };
        return { applied: true, output: { silenceId: latest.id, state: 'expired', endsAt: latest.endsAt } };
      },
    },
    async probe(claim, ctx) {
      const health = await on.probe(claim, asIncident(ctx));
      // After the soak window: healthy now is not enough, the alert must have stayed quiet throughout.
      return ctx.soak && health.decided && health.holds ? quietThroughout(ctx, ctx.soak) : health;
    },
    policy: alertsPolicy,
    // Prometheus' and Alertmanager's clients throw the engine's errors themselves.
    ...(on.classify ? { classify: on.classify } : {}),
  });
}

/** The alerts implementation over the simulated world (deps: `world`, `prometheusUrl`, `alertmanagerUrl`). */
export const alertsImplementation = alertsOn(incidentsImplementation);

/**
 * Prometheus' word on the soak window: any ALERTS sample (pending or firing) of the incident in it
 * is a re-fire. The first seconds are left out: rule evaluation lags the scrape that saw the fix.
 */
const EVALUATION_LAG_S = 3;

async function quietThroughout(ctx: ToolContext<AlertStackDeps>, soak: { from: number; to: number }) {
  const seconds = Math.max(1, Math.floor((soak.to - soak.from) / 1_000) - EVALUATION_LAG_S);
  const query = `max_over_time(ALERTS{case_id="${incident(ctx)}"}[${seconds}s])`;
  const answer = await promQuery(ctx.deps.prometheusUrl, query, opts(ctx));
  const fired = answer.samples.map((s) => s.labels.alertname ?? 'an alert');
  const facts = { 'soak.query': query, 'soak.refired': fired.length > 0 };
  return fired.length
    ? { holds: false, conflict: false, decided: true, detail: `${fired.join(', ')} fired again within the last ${seconds} s`, facts }
    : {
        holds: true,
        conflict: false,
        decided: true,
        detail: `all services healthy, and no alert for the incident in the soak window (Prometheus over its last ${seconds} s: the first ${EVALUATION_LAG_S} s are rule-evaluation lag)`,
        facts,
      };
}

function silenceOutput(s: Silence) {
  if (s.status.state === 'expired') throw new ToolRefused(`silence ${s.id} has expired`, 'silence_expired');
  return {
    silenceId: s.id,
    state: s.status.state,
    endsAt: s.endsAt,
    matchers: s.matchers.map((m) => `${m.name}${m.isEqual === false ? '!' : ''}${m.isRegex ? '=~' : '='}${JSON.stringify(m.value)}`),
  };
}

function incident(ctx: ToolContext): string {
  const id = incidentOf(ctx.caseId);
  if (!id) throw new ToolRefused(`${ctx.caseId} is not an alert case`, 'not_an_alert_case');
  return id;
}

function key(ctx: ToolContext): string {
  if (!ctx.idempotencyKey) throw new Error('bug: an effect was dispatched without an idempotency key');
  return ctx.idempotencyKey;
}

const opts = (ctx: ToolContext) => ({ timeoutMs: ctx.timeoutMs, ...(ctx.signal ? { signal: ctx.signal } : {}) });
