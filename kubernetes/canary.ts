// Whether the control plane acts on what its API server says again, after the API server was
// restarted (ControlPlane.restart): an API server that answers /readyz is not enough, since the
// controller manager, the scheduler and kwok each watch it through informers that back off,
// longer after every refused relist, and may take many seconds to see a change. A canary
// Deployment of the control plane's own (in kube-system) is rolled out anew and waited for: once
// it has a new ReplicaSet whose pod kwok runs and reports ready, the watches a Deployment's
// rollout needs are all live again.
import type { KubernetesApi } from './api.js';
import type { Child } from './process.js';
import { paths, type Deployment } from './resources.js';
import { getDeployment, restartDeployment } from './rollout.js';
import { waitFor } from './wait.js';

const NAMESPACE = 'kube-system';
const NAME = 'control-plane-canary';

function canary(): Deployment {
  const labels = { app: NAME };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: NAME, namespace: NAMESPACE, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      // kwok runs no container: the image is never pulled.
      template: { metadata: { labels }, spec: { containers: [{ name: 'canary', image: 'registry.invalid/canary:1' }] } },
    },
  };
}

/** Rolls the canary out anew (creating it the first time) and waits until that rollout has completed. */
export async function controllersCaughtUp(api: KubernetesApi, manager: Child, also: Child[]): Promise<void> {
  const existing = await api.get<Deployment>(paths.deployment(NAMESPACE, NAME)).catch(() => undefined);
  const generation = (existing ? await restartDeployment(api, NAMESPACE, NAME) : await api.create<Deployment>(paths.deployments(NAMESPACE), canary())).metadata
    .generation;
  await waitFor(
    manager,
    `the canary deployment ${NAMESPACE}/${NAME} to roll out generation ${generation}`,
    async () => {
      const d = await getDeployment(api, NAMESPACE, NAME);
      const s = d.status;
      return (
        s !== undefined &&
        (s.observedGeneration ?? 0) >= (generation ?? 1) &&
        s.updatedReplicas === 1 &&
        s.readyReplicas === 1 &&
        s.availableReplicas === 1 &&
        s.replicas === 1
      );
    },
    { also },
  );
}
