// The shapes of the Kubernetes objects this project reads and writes, as much of each as it
// uses (the API sends more; nothing here validates it), and the URL paths they live at. Types
// only, plus the few facts about them every reader needs: a ReplicaSet's revision and owner.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface List<T> {
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

export interface Container {
  name: string;
  image: string;
  [field: string]: unknown;
}

export interface PodSpec {
  containers: Container[];
  nodeName?: string;
  [field: string]: unknown;
}

export interface PodTemplateSpec {
  metadata?: Omit<Partial<ObjectMeta>, 'name'>;
  spec: PodSpec;
}

export interface Deployment {
  apiVersion?: 'apps/v1';
  kind?: 'Deployment';
  metadata: ObjectMeta;
  spec: { replicas?: number; selector: LabelSelector; template: PodTemplateSpec; revisionHistoryLimit?: number; [field: string]: unknown };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    conditions?: Condition[];
  };
}

export interface ReplicaSet {
  metadata: ObjectMeta;
  spec: { replicas?: number; selector: LabelSelector; template: PodTemplateSpec };
  status?: { replicas: number; readyReplicas?: number; availableReplicas?: number; observedGeneration?: number };
}

export interface Pod {
  metadata: ObjectMeta;
  spec: PodSpec;
  status?: { phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown'; conditions?: Condition[]; podIP?: string; hostIP?: string };
}

export interface Node {
  metadata: ObjectMeta;
  spec?: { taints?: Array<{ key: string; value?: string; effect: string }>; [field: string]: unknown };
  status?: { conditions?: Condition[] };
}

export interface KubernetesEvent {
  metadata: ObjectMeta;
  involvedObject: { kind: string; name: string; namespace?: string; uid?: string };
  reason?: string;
  message?: string;
  type?: 'Normal' | 'Warning';
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
}

/** The annotation the deployment controller numbers a Deployment's ReplicaSets with. */
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
/** The label the deployment controller adds to each ReplicaSet's pods (not part of the Deployment's template). */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/** A ReplicaSet's (or Deployment's) revision number; 0 when it has none yet. */
export function revisionOf(object: { metadata: ObjectMeta }): number {
  const value = Number(object.metadata.annotations?.[REVISION_ANNOTATION] ?? '0');
  return Number.isInteger(value) ? value : 0;
}

/** True when `owner` is the controller of `object` (a ReplicaSet's Deployment, a pod's ReplicaSet). */
export function controlledBy(object: { metadata: ObjectMeta }, owner: { metadata: ObjectMeta }): boolean {
  return (object.metadata.ownerReferences ?? []).some((ref) => ref.controller === true && ref.uid === owner.metadata.uid);
}

/** `matchLabels` as the `labelSelector` query parameter wants it. */
export function selectorQuery(selector: LabelSelector): string {
  return Object.entries(selector.matchLabels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

const enc = encodeURIComponent;
/** Where each kind lives in the API. */
export const paths = {
  namespaces: () => '/api/v1/namespaces',
  namespace: (name: string) => `/api/v1/namespaces/${enc(name)}`,
  nodes: () => '/api/v1/nodes',
  pods: (ns: string) => `/api/v1/namespaces/${enc(ns)}/pods`,
  events: (ns: string) => `/api/v1/namespaces/${enc(ns)}/events`,
  serviceAccount: (ns: string, name: string) => `/api/v1/namespaces/${enc(ns)}/serviceaccounts/${enc(name)}`,
  deployments: (ns: string) => `/apis/apps/v1/namespaces/${enc(ns)}/deployments`,
  deployment: (ns: string, name: string) => `/apis/apps/v1/namespaces/${enc(ns)}/deployments/${enc(name)}`,
  deploymentScale: (ns: string, name: string) => `/apis/apps/v1/namespaces/${enc(ns)}/deployments/${enc(name)}/scale`,
  replicaSets: (ns: string) => `/apis/apps/v1/namespaces/${enc(ns)}/replicasets`,
  replicaSet: (ns: string, name: string) => `/apis/apps/v1/namespaces/${enc(ns)}/replicasets/${enc(name)}`,
  resourceQuotas: (ns: string) => `/api/v1/namespaces/${enc(ns)}/resourcequotas`,
  resourceQuota: (ns: string, name: string) => `/api/v1/namespaces/${enc(ns)}/resourcequotas/${enc(name)}`,
  lease: (ns: string, name: string) => `/apis/coordination.k8s.io/v1/namespaces/${enc(ns)}/leases/${enc(name)}`,
};
