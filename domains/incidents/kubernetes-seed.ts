// An incident on a real control plane, as the demo and the Kubernetes tests set one up: a
// namespace per case holding the three services as Deployments (one replica of
// `registry.invalid/<service>:v1.4.2` each; kwok runs no container, so nothing is pulled), one of
// them broken the way kubernetes-health.ts reads it (telemetry annotations on the ReplicaSet whose
// pods serve: a memory leak, or a bad deploy of v1.5.0). The namespace carries the case id it is
// for, so a metrics exporter (kubernetes-metrics.ts) can label what it finds with the incident.
// Every wait is on the API's own answer.
import type { KubernetesApi } from '../../kubernetes/api.js';
import { paths, type Deployment } from '../../kubernetes/resources.js';
import { getDeployment, replicaSetsOf } from '../../kubernetes/rollout.js';
import { waitUntil } from '../../client/wait.js';
import { ERROR_RATE_ANNOTATION, LATENCY_P99_MS_ANNOTATION, MEMORY_PCT_ANNOTATION, rolloutOf } from './kubernetes-health.js';

export const SERVICES = ['api', 'db', 'cache'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** What the broken pods report (as the simulated world's faults do, domains/world/incidents.ts). */
const SYMPTOMS = {
  memory: { [ERROR_RATE_ANNOTATION]: '0.18', [LATENCY_P99_MS_ANNOTATION]: '2400', [MEMORY_PCT_ANNOTATION]: '97' },
  bad_deploy: { [ERROR_RATE_ANNOTATION]: '0.35', [LATENCY_P99_MS_ANNOTATION]: '900', [MEMORY_PCT_ANNOTATION]: '44' },
};

export const STABLE_VERSION = 'v1.4.2';
export const BAD_VERSION = 'v1.5.0';

/** The annotation on a case's namespace that names the incident it holds. */
export const CASE_ANNOTATION = 'incidents.example.com/case-id';

/** A case's namespace: its id in lower case (INC-1a2b3c4d is inc-1a2b3c4d), a valid DNS label. */
export const namespaceOf = (caseId: string) => caseId.toLowerCase();

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
      template: { metadata: { labels }, spec: { containers: [{ name: service, image: `registry.invalid/${service}:${version}` }] } },
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
  await api.patch(paths.replicaSet(namespace, serving.metadata.name), { metadata: { annotations: SYMPTOMS[fault] } }, 'merge');
  return namespace;
}

export async function rolledOut(api: KubernetesApi, namespace: string, service: string): Promise<Deployment> {
  return until(async () => {
    const d = await getDeployment(api, namespace, service);
    return rolloutOf(d).complete ? d : undefined;
  }, `deployment ${service} in ${namespace} rolled out`);
}

const until = <T>(probe: () => Promise<T | undefined>, what: string) => waitUntil(probe, what, { timeoutMs: PATIENCE_MS, everyMs: 100 });
