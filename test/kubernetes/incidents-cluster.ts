// An incident on a real control plane, for the tests of the incidents domain's Kubernetes
// implementation: a namespace per case holding the three services as Deployments (one replica of
// `registry.invalid/<service>:v1.4.2` each; kwok runs no container, so nothing is pulled), one of
// them broken the way domains/incidents/kubernetes-health.ts reads it (telemetry annotations on
// the ReplicaSet whose pods serve: a memory leak, or a bad deploy of v1.5.0), and the record a
// test asserts on: each service's ReplicaSets by revision, with the effect each one's template
// carries. Every wait is on the API's own answer (test/support/wait.ts's patience).
import type { KubernetesApi } from '../../kubernetes/api.js';
import { paths, revisionOf, type Deployment, type ReplicaSet } from '../../kubernetes/resources.js';
import { getDeployment, replicaSetsOf } from '../../kubernetes/rollout.js';
import { rolloutOf, ERROR_RATE_ANNOTATION, LATENCY_P99_MS_ANNOTATION, MEMORY_PCT_ANNOTATION } from '../../domains/incidents/kubernetes-health.js';
import { effectOf, type StoredEffect } from '../../domains/incidents/kubernetes-record.js';
import { versionOf } from '../../domains/incidents/kubernetes-history.js';
import { waitUntil } from '../support/wait.js';

export const SERVICES = ['api', 'db', 'cache'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** What the broken pods report (as the simulated world's faults do, domains/world/incidents.ts). */
const SYMPTOMS = {
  memory: { [ERROR_RATE_ANNOTATION]: '0.18', [LATENCY_P99_MS_ANNOTATION]: '2400', [MEMORY_PCT_ANNOTATION]: '97' },
  bad_deploy: { [ERROR_RATE_ANNOTATION]: '0.35', [LATENCY_P99_MS_ANNOTATION]: '900', [MEMORY_PCT_ANNOTATION]: '44' },
};

export const STABLE_VERSION = 'v1.4.2';
export const BAD_VERSION = 'v1.5.0';

/** A case's namespace: its id in lower case (INC-1a2b3c4d is inc-1a2b3c4d), a valid DNS label. */
export const namespaceOf = (caseId: string) => caseId.toLowerCase();

export interface IncidentSeed {
  faulty: { service: ServiceName; fault: 'memory' | 'bad_deploy' };
  /** The faulty service's progress deadline (default: the API's, 600 s). */
  progressDeadlineSeconds?: number;
}

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
      template: { metadata: { labels }, spec: { containers: [{ name: service, image: `registry.invalid/${service}:${version}` }] } },
    },
  };
}

/** The case's namespace with its three services rolled out, one of them broken. */
export async function seedIncident(api: KubernetesApi, caseId: string, seed: IncidentSeed): Promise<string> {
  const namespace = namespaceOf(caseId);
  await api.create(paths.namespaces(), { metadata: { name: namespace } });
  // A pod is admitted only once its namespace's default ServiceAccount exists (the controller manager makes it).
  await waitUntil(() => api.get(paths.serviceAccount(namespace, 'default')).catch(() => undefined), `the default ServiceAccount in ${namespace}`);
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
  await api.patch(paths.replicaSet(namespace, serving.metadata.name), { metadata: { annotations: SYMPTOMS[fault] } }, 'merge');
  return namespace;
}

export async function rolledOut(api: KubernetesApi, namespace: string, service: string): Promise<Deployment> {
  return waitUntil(async () => {
    const d = await getDeployment(api, namespace, service);
    return rolloutOf(d).complete ? d : undefined;
  }, `deployment ${service} in ${namespace} rolled out`);
}

/** One revision of a service as a test asserts on it. */
export interface Revision {
  revision: number;
  version: string;
  /** Pods it should run (0 for an old revision), and how many are ready. */
  replicas: number;
  ready: number;
  /** The effect its template records, if any. */
  effect?: StoredEffect;
}

/** The service's ReplicaSets, oldest revision first. */
export async function revisions(api: KubernetesApi, namespace: string, service: string): Promise<Revision[]> {
  const sets: ReplicaSet[] = await replicaSetsOf(api, await getDeployment(api, namespace, service));
  return sets.map((rs) => {
    const effect = effectOf(rs.spec.template);
    return {
      revision: revisionOf(rs),
      version: versionOf(rs.spec.template),
      replicas: rs.spec.replicas ?? 0,
      ready: rs.status?.readyReplicas ?? 0,
      ...(effect ? { effect } : {}),
    };
  });
}

/** The revisions of every service, once each Deployment has one ReplicaSet per template it was given. */
export async function allRevisions(api: KubernetesApi, namespace: string): Promise<Record<ServiceName, Revision[]>> {
  const entries = await Promise.all(SERVICES.map(async (s) => [s, await revisions(api, namespace, s)] as const));
  return Object.fromEntries(entries) as Record<ServiceName, Revision[]>;
}
