// The incidents domain against a real Kubernetes API: the same contract as tools.ts (the engine,
// the domain, its route, preconditions and rules model are unchanged), implemented on Deployments
// instead of the simulated world. Each service (api, db, cache) is a Deployment of that name in
// the case's namespace (`namespaceOf`). Reads go through the API: get_metrics is the rollout's
// state and the serving pods' telemetry (kubernetes-health.ts), get_deploys the ReplicaSets'
// image versions (kubernetes-history.ts), get_logs the events about the Deployment, its
// ReplicaSets and pods. restart_service is `kubectl rollout restart` (a strategic merge patch of
// the pod template's annotations) and revert_deploy the current template's image moved back to
// the previous version's tag (never a template copied from a ReplicaSet, which anyone who may
// create one in the namespace can plant: kubernetes-history.ts); each stamps its idempotency key
// on the template and is written at most once per key, conditional on the resourceVersion it
// checked (kubernetes-effects.ts). The readback finds the key in the Deployment's or a
// ReplicaSet's template, and fences it when not. Telemetry that is missing or unreadable is not
// known: get_metrics refuses, and the probe is undecided rather than confirming.
import { ToolRefused, implement, type ToolContext } from '../../worker/public.js';
import type { KubernetesApi } from '../../kubernetes/api.js';
import { paths, type KubernetesEvent, type List } from '../../kubernetes/resources.js';
import { getDeployment, replicaSetsOf, RESTARTED_AT_ANNOTATION } from '../../kubernetes/rollout.js';
import { incidents, Service } from './domain.js';
import { incidentsPolicy } from './policy.js';
import { applyOnce, readBack, type Plan, type ServiceRef } from './kubernetes-effects.js';
import { classifyKubernetesError, whileUnavailable } from './kubernetes-errors.js';
import { healthOf, settled } from './kubernetes-health.js';
import { historyOf, retagged } from './kubernetes-history.js';
import { effectOf, stamp, type EffectKind } from './kubernetes-record.js';

/** What the worker hands every tool, readback and probe of this implementation. */
export interface KubernetesIncidentsDeps {
  kubernetes: KubernetesApi;
  /**
   * The namespace whose Deployments `api`, `db` and `cache` are the services of this case; one per
   * case id, never shared by two (kubernetes-seed.ts's `namespaceOf` is such a mapping).
   */
  namespaceOf(caseId: string): string;
}

type Ctx = ToolContext<KubernetesIncidentsDeps>;

const services = Service.options;
const ref = (ctx: Ctx, service: string): ServiceRef => ({ api: ctx.deps.kubernetes, namespace: ctx.deps.namespaceOf(ctx.caseId), service });

/**
 * How long a read waits for a rollout in progress to settle before it reports it as it stands:
 * half of what one call may take, so the answer is in before the engine stops waiting.
 */
const settlePatience = (ctx: Ctx) => ctx.timeoutMs / 2;

/** The restart: the annotation `kubectl rollout restart` sets, and the effect's record beside it. */
const restartPlan: Plan = (_deployment, _sets, effect) => ({
  kind: 'strategic',
  body: { spec: { template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: effect.appliedAt, ...stamp(effect) } } } } },
});

/** The revert: the current template's image at the previous version's tag (kubernetes-history.ts), stamped. */
const revertPlan =
  (toVersion: string): Plan =>
  (deployment, sets, effect) => {
    const history = historyOf(deployment, sets);
    if (history.previous === history.current || history.previous !== toVersion) {
      throw new ToolRefused(
        `${deployment.metadata.name} runs ${history.current} and its previous version is ${history.previous}, not ${toVersion}`,
        'revert_target_invalid',
      );
    }
    const containers = retagged(deployment.spec.template, toVersion);
    return { kind: 'strategic', body: { spec: { template: { metadata: { annotations: stamp(effect) }, spec: { containers } } } } };
  };

async function effect(ctx: Ctx, service: string, kind: EffectKind, plan: Plan) {
  if (!ctx.idempotencyKey) throw new Error('bug: an effect was dispatched without an idempotency key');
  const request = { kind, key: ctx.idempotencyKey, ...(ctx.sentAt !== undefined ? { sentAt: ctx.sentAt } : {}) };
  const { effect } = await applyOnce(ref(ctx, service), request, plan);
  return { effectId: effect.effectId, service: Service.parse(service), appliedAt: effect.appliedAt };
}

/** The service a key of this domain is about (`…:api`, `…:api:v1.4.2`); every service when it names none. */
function servicesOfKey(key: string): string[] {
  const named = services.filter((s) => key.endsWith(`:${s}`) || new RegExp(`:${s}:v[0-9.]+$`).test(key));
  return named.length === 1 ? named : [...services];
}

async function readLogs(ctx: Ctx, service: string, limit: number): Promise<string[]> {
  const namespace = ctx.deps.namespaceOf(ctx.caseId);
  const list = await ctx.deps.kubernetes.get<List<KubernetesEvent>>(paths.events(namespace));
  // The Deployment, its ReplicaSets (`api-<hash>`) and their pods (`api-<hash>-<id>`).
  const about = list.items.filter((e) => e.involvedObject.name === service || e.involvedObject.name.startsWith(`${service}-`));
  const when = (e: KubernetesEvent) => e.lastTimestamp ?? e.metadata.creationTimestamp ?? '';
  return about
    .sort((a, b) => when(a).localeCompare(when(b)))
    .map((e) => `${when(e)} ${(e.type ?? 'Normal').toUpperCase()} ${e.involvedObject.kind}/${e.involvedObject.name} ${e.reason ?? ''}: ${e.message ?? ''}`)
    .slice(-limit);
}

export const kubernetesIncidentsImplementation = implement(incidents).with<KubernetesIncidentsDeps>({
  tools: {
    get_metrics: async (args, ctx) => {
      const { deployment, replicaSets } = await settled(ctx.deps.kubernetes, ctx.deps.namespaceOf(ctx.caseId), args.service, settlePatience(ctx), ctx.signal);
      const health = healthOf(deployment, replicaSets);
      // A number no pod reports is not made up: the model would read it as the truth.
      if (!health.telemetry) throw new ToolRefused(`${args.service}: ${health.why}`, 'telemetry_missing');
      const last = effectOf(deployment.spec.template);
      return {
        service: args.service,
        ...health.telemetry,
        healthy: health.healthy,
        asOf: new Date().toISOString(),
        lastEffect: last ? { kind: last.kind, effectId: last.effectId, idempotencyKey: last.idempotencyKey, appliedAt: last.appliedAt } : null,
      };
    },
    get_logs: async (args, ctx) => ({ service: args.service, lines: await readLogs(ctx, args.service, args.limit), asOf: new Date().toISOString() }),
    get_deploys: async (args, ctx) => {
      const { api, namespace } = ref(ctx, args.service);
      const deployment = await getDeployment(api, namespace, args.service);
      const { current, previous, deployedAt } = historyOf(deployment, await replicaSetsOf(api, deployment));
      return { service: args.service, current, previous, deployedAt };
    },
    restart_service: (args, ctx) => effect(ctx, args.service, 'restart', restartPlan),
    revert_deploy: (args, ctx) => effect(ctx, args.service, 'revert', revertPlan(args.toVersion)),
  },
  readbacks: {
    // An API server that is restarting is waited for (up to one call's time, each of the engine's
    // attempts): a readback that gave up at once would leave the effect in doubt and end the run.
    read_incident_effect: async (key, ctx) => {
      let fenced = ctx.fenceBefore !== undefined;
      for (const service of servicesOfKey(key)) {
        const found = await whileUnavailable(ctx.timeoutMs, () => readBack(ref(ctx, service), key, ctx.fenceBefore));
        if (found.applied) return { applied: true, output: { effectId: found.effect.effectId, service, appliedAt: found.effect.appliedAt } };
        fenced &&= found.fenced;
      }
      return fenced ? { applied: false, fenced: true } : { applied: false };
    },
  },
  async probe(_claim, ctx) {
    const namespace = ctx.deps.namespaceOf(ctx.caseId);
    const health = await Promise.all(
      services.map(async (service) => {
        const { deployment, replicaSets } = await settled(ctx.deps.kubernetes, namespace, service, settlePatience(ctx), ctx.signal);
        return { service, ...healthOf(deployment, replicaSets) };
      }),
    );
    // Degraded: known not to be healthy. Unknown: nothing shows it unhealthy, but no telemetry says it is healthy.
    const degraded = health.filter((h) => !h.healthy && h.decided);
    const unknown = health.filter((h) => !h.decided);
    const decided = degraded.length > 0 || unknown.length === 0;
    return {
      holds: health.every((h) => h.healthy),
      conflict: false,
      decided,
      detail: degraded.length
        ? `degraded: ${degraded.map((h) => `${h.service} (${h.why})`).join('; ')}`
        : unknown.length
          ? `undecided: ${unknown.map((h) => `${h.service} (${h.why})`).join('; ')}`
          : 'all services rolled out and within their service level',
      facts: { 'verify.healthy': health.every((h) => h.healthy), 'verify.degraded': degraded.map((h) => h.service).join(',') },
    };
  },
  policy: incidentsPolicy,
  classify: classifyKubernetesError,
});
