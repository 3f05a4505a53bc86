// The control plane's nodes: Node objects no kubelet stands behind. kwok (started with
// --manage-all-nodes) plays their kubelet: it marks them Ready, renews their Leases, and moves
// every pod the scheduler binds to them to Running. Their capacity is that of a modest real
// node, so scheduling means what it means on a cluster.
import { KubernetesApiError, type KubernetesApi } from './api.js';
import { paths, type Node } from './resources.js';

export const NODE_NAME_PREFIX = 'kwok-node-';

/** Creates `count` fake nodes (an existing one is kept); resolves with their names. */
export async function createFakeNodes(api: KubernetesApi, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${NODE_NAME_PREFIX}${i}`);
  for (const name of names) {
    await api.create<Node>(paths.nodes(), fakeNode(name)).catch((err: unknown) => {
      if (err instanceof KubernetesApiError && err.status === 409) return;
      throw err;
    });
  }
  return names;
}

function fakeNode(name: string) {
  const capacity = { cpu: '8', memory: '32Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: {
        type: 'kwok',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'node-role.kubernetes.io/agent': '',
      },
    },
    spec: {},
    status: { allocatable: capacity, capacity },
  };
}
