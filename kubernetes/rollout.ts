// What an operator does to a Deployment, as `kubectl rollout` and `kubectl scale` do it, over
// the API alone: read its ReplicaSets by revision, restart it (a new pod template annotation,
// so a new ReplicaSet), undo it (the template of an earlier revision put back), scale it, and
// read the events about an object. The deployment controller does the rest.
import type { KubernetesApi } from './api.js';
import {
  controlledBy,
  paths,
  POD_TEMPLATE_HASH_LABEL,
  revisionOf,
  selectorQuery,
  type Deployment,
  type KubernetesEvent,
  type List,
  type ReplicaSet,
} from './resources.js';

/** The annotation `kubectl rollout restart` sets on the pod template. */
export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';

export class NoSuchRevisionError extends Error {
  constructor(deployment: string, wanted: string, known: number[]) {
    super(`deployment ${deployment} has no ${wanted} (its ReplicaSets' revisions: ${known.join(', ') || 'none'})`);
    this.name = 'NoSuchRevisionError';
  }
}

export function getDeployment(api: KubernetesApi, namespace: string, name: string): Promise<Deployment> {
  return api.get<Deployment>(paths.deployment(namespace, name));
}

/** The ReplicaSets the Deployment controls, oldest revision first. */
export async function replicaSetsOf(api: KubernetesApi, deployment: Deployment): Promise<ReplicaSet[]> {
  const namespace = deployment.metadata.namespace ?? 'default';
  const query = new URLSearchParams({ labelSelector: selectorQuery(deployment.spec.selector) });
  const list = await api.get<List<ReplicaSet>>(`${paths.replicaSets(namespace)}?${query}`);
  return ownedReplicaSets(deployment, list.items);
}

/**
 * Of `replicaSets` (a namespace's, say), those the Deployment controls, oldest revision first.
 * Both are what the ReplicaSets say: anyone who may create one in the namespace can name the
 * Deployment its controller (or match its selector and be adopted) and write any revision. So
 * this is `kubectl rollout history`'s view, not a record to copy a template from without checking
 * it (domains/incidents/kubernetes-history.ts checks it).
 */
export function ownedReplicaSets(deployment: Deployment, replicaSets: readonly ReplicaSet[]): ReplicaSet[] {
  return replicaSets.filter((rs) => controlledBy(rs, deployment)).sort((a, b) => revisionOf(a) - revisionOf(b));
}

/** `kubectl rollout restart`: a strategic merge patch of the pod template's annotations. */
export function restartDeployment(api: KubernetesApi, namespace: string, name: string, at = new Date()): Promise<Deployment> {
  const patch = { spec: { template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: at.toISOString() } } } } };
  return api.patch<Deployment>(paths.deployment(namespace, name), patch, 'strategic');
}

/**
 * `kubectl rollout undo`: the pod template of `toRevision` (by default the newest revision below
 * the current one) put back as the Deployment's template, with the controller's own
 * pod-template-hash label taken off. The JSON patch tests the resourceVersion it read, so a
 * Deployment changed in between answers 422 instead of being rolled back on stale knowledge.
 */
export async function undoDeployment(api: KubernetesApi, namespace: string, name: string, toRevision?: number): Promise<Deployment> {
  const deployment = await getDeployment(api, namespace, name);
  const sets = await replicaSetsOf(api, deployment);
  const current = revisionOf(deployment);
  const target = toRevision === undefined ? sets.filter((rs) => revisionOf(rs) < current).pop() : sets.find((rs) => revisionOf(rs) === toRevision);
  if (!target) throw new NoSuchRevisionError(name, toRevision === undefined ? `revision before ${current}` : `revision ${toRevision}`, sets.map(revisionOf));
  const template = structuredClone(target.spec.template);
  if (template.metadata?.labels) delete template.metadata.labels[POD_TEMPLATE_HASH_LABEL];
  const patch = [
    { op: 'test', path: '/metadata/resourceVersion', value: deployment.metadata.resourceVersion },
    { op: 'replace', path: '/spec/template', value: template },
  ];
  return api.patch<Deployment>(paths.deployment(namespace, name), patch, 'json');
}

/** `kubectl scale`: the scale subresource, so nothing else in the Deployment is touched. */
export function scaleDeployment(api: KubernetesApi, namespace: string, name: string, replicas: number): Promise<unknown> {
  return api.patch(paths.deploymentScale(namespace, name), { spec: { replicas } }, 'merge');
}

/** The events about one object, oldest first. */
export async function eventsFor(api: KubernetesApi, namespace: string, kind: string, name: string): Promise<KubernetesEvent[]> {
  const query = new URLSearchParams({ fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name}` });
  const list = await api.get<List<KubernetesEvent>>(`${paths.events(namespace)}?${query}`);
  const when = (e: KubernetesEvent) => e.lastTimestamp ?? e.metadata.creationTimestamp ?? '';
  return list.items.sort((a, b) => when(a).localeCompare(when(b)));
}
