// The record a Kubernetes test asserts on: each service's ReplicaSets by revision, with the effect
// each one's template carries. The incident itself is seeded as the demo seeds it
// (domains/incidents/kubernetes-seed.ts, re-exported here).
import type { KubernetesApi } from '../../kubernetes/api.js';
import { revisionOf, type ReplicaSet } from '../../kubernetes/resources.js';
import { getDeployment, replicaSetsOf } from '../../kubernetes/rollout.js';
import { effectOf, type StoredEffect } from '../../domains/incidents/kubernetes-record.js';
import { versionOf } from '../../domains/incidents/kubernetes-history.js';
import { SERVICES, type ServiceName } from '../../domains/incidents/kubernetes-seed.js';

export {
  BAD_VERSION,
  namespaceOf,
  rolledOut,
  seedIncident,
  SERVICES,
  STABLE_VERSION,
  type IncidentSeed,
  type ServiceName,
} from '../../domains/incidents/kubernetes-seed.js';

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
