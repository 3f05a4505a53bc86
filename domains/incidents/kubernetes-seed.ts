// An incident on a real control plane, as the demo and the Kubernetes tests set one up: a
// namespace per case (`namespaceOf`) holding the three services as Deployments (one replica of
// `registry.invalid/<service>:v1.4.2` each; kwok runs no container, so nothing is pulled), whose
// pods report the healthy baseline (telemetry annotations on the pod template, which every
// revision made from it carries), and one of them broken the way kubernetes-health.ts reads it
// (telemetry annotations on the ReplicaSet whose pods serve: a memory leak, or a bad deploy of
// v1.5.0). The namespace carries the case id it is for, so a metrics exporter
// (kubernetes-metrics.ts) can label what it finds with the incident. Every wait is on the API's
// own answer.
import { ToolRefused } from '../../worker/public.js';
import type { KubernetesApi } from '../../kubernetes/api.js';
import { paths, type Deployment } from '../../kubernetes/resources.js';
import { getDeployment, replicaSetsOf } from '../../kubernetes/rollout.js';
import { waitUntil } from '../../client/wait.js';
import { rolloutOf, telemetryAnnotations, type Telemetry } from './kubernetes-health.js';

export const SERVICES = ['api', 'db', 'cache'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** What pods report when nothing is wrong (the simulated world's healthy service reads the same). */
export const BASELINE: Telemetry = { errorRate: 0.002, latencyP99Ms: 120, memoryPct: 41 };

/** What the broken pods report (as the simulated world's faults do, domains/world/incidents.ts). */
const SYMPTOMS: Record<IncidentSeed['faulty']['fault'], Telemetry> = {
  memory: { errorRate: 0.18, latencyP99Ms: 2400, memoryPct: 97 },
  bad_deploy: { errorRate: 0.35, latencyP99Ms: 900, memoryPct: 44 },
};

export const STABLE_VERSION = 'v1.4.2';
export const BAD_VERSION = 'v1.5.0';

/** The annotation on a case's namespace that names the incident it holds. */
export const CASE_ANNOTATION = 'incidents.example.com/case-id';

/** The incidents domain's case ids (domains/incidents/domain.ts): `INC-` and then letters of either case, digits and '-'. */
const CASE_ID = /^INC-([0-9A-Za-z-]{1,60})$/;
/** The longest name a namespace may have (a DNS label). */
const MAX_NAMESPACE_LENGTH = 63;

/**
 * A case's namespace, one per case id: the id in lower case, then which characters after `INC-`
 * were upper case (bit i for character i, in base 36): INC-1a2b3c4d is inc-1a2b3c4d-0,
 * INC-DEMO1a2b is inc-demo1a2b-f. A namespace name has no upper case, so the id in lower case
 * alone would give INC-AB, INC-aB and INC-ab one namespace, and each of them its own run and
 * idempotency keys over the same Deployments. The mask holds the case the name cannot, after the
 * last '-' (base 36 has none), so two ids never share a namespace. Refused (ToolRefused) for an id
 * that is not an incident's, or too long for a namespace name.
 */
export function namespaceOf(caseId: string): string {
  const suffix = CASE_ID.exec(caseId)?.[1];
  if (suffix === undefined) throw new ToolRefused(`${JSON.stringify(caseId)} is not an incident id such as INC-7`, 'case_id_invalid');
  let mask = 0n;
  for (let i = 0; i < suffix.length; i++) if (/[A-Z]/.test(suffix.charAt(i))) mask |= 1n << BigInt(i);
  const namespace = `${caseId.toLowerCase()}-${mask.toString(36)}`;
  if (namespace.length > MAX_NAMESPACE_LENGTH) {
    throw new ToolRefused(
      `case ${caseId}'s namespace would be ${namespace.length} characters, over the ${MAX_NAMESPACE_LENGTH} a name may have`,
      'case_id_too_long',
    );
  }
  return namespace;
}

export interface IncidentSeed {
  faulty: { service: ServiceName; fault: 'memory' | 'bad_deploy' };
  /** The faulty service's progress deadline (default: the API's, 600 s). */
  progressDeadlineSeconds?: number;
}

/** A loaded two-core host is slower, not wrong: the API's controllers get this long to act. */
const PATIENCE_MS = 100_000;

function deployment(namespace: string, service: string, version: string, progressDeadlineSeconds?: number): Deployment {
  const labels = { app: service };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: service, namespace, labels },
    spec: {
      replicas: 1,
      ...(progressDeadlineSeconds !== undefined ? { progressDeadlineSeconds } : {}),
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: telemetryAnnotations(BASELINE) },
        spec: { containers: [{ name: service, image: `registry.invalid/${service}:${version}` }] },
      },
    },
  };
}

/** The case's namespace with its three services rolled out, one of them broken. */
export async function seedIncident(api: KubernetesApi, caseId: string, seed: IncidentSeed): Promise<string> {
  const namespace = namespaceOf(caseId);
  await api.create(paths.namespaces(), { metadata: { name: namespace, annotations: { [CASE_ANNOTATION]: caseId } } });
  // A pod is admitted only once its namespace's default ServiceAccount exists (the controller manager makes it).
  await until(() => api.get(paths.serviceAccount(namespace, 'default')).catch(() => undefined), `the default ServiceAccount in ${namespace}`);
  const { service, fault } = seed.faulty;
  for (const name of SERVICES) {
    await api.create(paths.deployments(namespace), deployment(namespace, name, STABLE_VERSION, name === service ? seed.progressDeadlineSeconds : undefined));
  }
  for (const name of SERVICES) await rolledOut(api, namespace, name);
  if (fault === 'bad_deploy') {
    await api.patch(paths.deployment(namespace, service), {
      spec: { template: { spec: { containers: [{ name: service, image: `registry.invalid/${service}:${BAD_VERSION}` }] } } },
    });
    await rolledOut(api, namespace, service);
  }
  const serving = (await replicaSetsOf(api, await getDeployment(api, namespace, service))).at(-1);
  if (!serving) throw new Error(`no ReplicaSet of ${service} in ${namespace}`);
  await api.patch(paths.replicaSet(namespace, serving.metadata.name), { metadata: { annotations: telemetryAnnotations(SYMPTOMS[fault]) } }, 'merge');
  return namespace;
}

export async function rolledOut(api: KubernetesApi, namespace: string, service: string): Promise<Deployment> {
  return until(async () => {
    const d = await getDeployment(api, namespace, service);
    return rolloutOf(d).complete ? d : undefined;
  }, `deployment ${service} in ${namespace} rolled out`);
}

const until = <T>(probe: () => Promise<T | undefined>, what: string) => waitUntil(probe, what, { timeoutMs: PATIENCE_MS, everyMs: 100 });
