// The control plane behaves as a cluster does, seen only through its API: a Deployment rolls out
// into a ReplicaSet whose pods the scheduler puts on kwok's nodes and kwok runs; a restart
// annotation on the pod template makes a second revision, and undo brings the first back as a
// third; scaling keeps the revision; a write on a stale resourceVersion is refused with 409.
// Every wait is on the API's own answer (test/support/wait.ts's patience), never on a clock.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KubernetesApi, KubernetesApiError } from '../../kubernetes/api.js';
import { controlledBy, paths, revisionOf, selectorQuery, type Deployment, type List, type Pod, type ReplicaSet } from '../../kubernetes/resources.js';
import {
  eventsFor,
  getDeployment,
  replicaSetsOf,
  restartDeployment,
  RESTARTED_AT_ANNOTATION,
  scaleDeployment,
  undoDeployment,
} from '../../kubernetes/rollout.js';
import { waitUntil } from '../support/wait.js';

const cluster = inject('kubernetes');
if (!cluster) {
  throw new Error(
    'test/kubernetes/ needs the control plane its own global setup starts: run it with `npm run test:kubernetes`, not in the integration project',
  );
}
const api = new KubernetesApi(cluster);
const namespace = `control-plane-${process.pid}`;

beforeAll(async () => {
  await api.create(paths.namespaces(), { metadata: { name: namespace } });
  // A pod is admitted only once its namespace's default ServiceAccount exists (the controller
  // manager makes it): waited for here, so no ReplicaSet starts on a refusal and a back-off.
  await waitUntil(() => api.get(paths.serviceAccount(namespace, 'default')).catch(() => undefined), `the default ServiceAccount in ${namespace}`);
});

afterAll(async () => {
  await api.delete(paths.namespace(namespace));
  api.close();
});

function deployment(name: string, replicas: number): Deployment {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      // kwok runs no container: the image is never pulled.
      template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'registry.invalid/web:1' }] } },
    },
  };
}

/** Its controller has seen its latest spec, and every replica is of that spec and ready. */
function isRolledOut(d: Deployment): boolean {
  const want = d.spec.replicas ?? 1;
  const s = d.status;
  if (!s) return false;
  return s.observedGeneration === d.metadata.generation && s.updatedReplicas === want && s.readyReplicas === want && s.replicas === want;
}

async function rolledOut(name: string): Promise<Deployment> {
  return waitUntil(async () => {
    const d = await getDeployment(api, namespace, name);
    return isRolledOut(d) ? d : undefined;
  }, `deployment ${name} rolled out`);
}

async function podsOf(rs: ReplicaSet): Promise<Pod[]> {
  const query = new URLSearchParams({ labelSelector: selectorQuery(rs.spec.selector) });
  const list = await api.get<List<Pod>>(`${paths.pods(namespace)}?${query}`);
  return list.items.filter((pod) => controlledBy(pod, rs) && !pod.metadata.deletionTimestamp);
}

describe('a Kubernetes control plane on loopback', () => {
  it('rolls a Deployment out into a ReplicaSet whose pods run on the kwok nodes', async () => {
    const created = await api.create<Deployment>(paths.deployments(namespace), deployment('web', 2));
    const d = await rolledOut('web');
    const [rs, ...others] = await replicaSetsOf(api, d);
    expect(others).toEqual([]);
    expect(rs && controlledBy(rs, created)).toBe(true);
    expect(revisionOf(rs!)).toBe(1);
    const pods = await waitUntil(async () => {
      const running = (await podsOf(rs!)).filter((p) => p.status?.phase === 'Running');
      return running.length === 2 ? running : undefined;
    }, 'two Running pods of the ReplicaSet');
    for (const pod of pods) expect(cluster.nodeNames).toContain(pod.spec.nodeName);
    // The deployment controller says what it did, as an event about the Deployment.
    const events = await waitUntil(async () => {
      const found = await eventsFor(api, namespace, 'Deployment', 'web');
      return found.some((e) => e.reason === 'ScalingReplicaSet') ? found : undefined;
    }, 'the ScalingReplicaSet event of deployment web');
    expect(events.find((e) => e.reason === 'ScalingReplicaSet')?.message).toContain(rs!.metadata.name);
  });

  it('scales through the scale subresource on the same ReplicaSet, with no new revision', async () => {
    await api.create(paths.deployments(namespace), deployment('cache', 1));
    const [rs] = await replicaSetsOf(api, await rolledOut('cache'));
    await scaleDeployment(api, namespace, 'cache', 3);
    const scaled = await rolledOut('cache');
    expect(scaled.spec.replicas).toBe(3);
    const sets = await replicaSetsOf(api, scaled);
    expect(sets.map((s) => s.metadata.uid)).toEqual([rs!.metadata.uid]);
    expect(revisionOf(sets[0]!)).toBe(1);
    const running = await waitUntil(async () => {
      const pods = (await podsOf(sets[0]!)).filter((p) => p.status?.phase === 'Running');
      return pods.length === 3 ? pods : undefined;
    }, 'three Running pods of the one ReplicaSet');
    expect(running).toHaveLength(3);
  });

  it('makes a second revision on a restart annotation, and undo brings the first back as the third', async () => {
    await api.create(paths.deployments(namespace), deployment('api', 2));
    const first = (await replicaSetsOf(api, await rolledOut('api')))[0]!;

    const restartedAt = new Date();
    await restartDeployment(api, namespace, 'api', restartedAt);
    const afterRestart = await rolledOut('api');
    const sets = await replicaSetsOf(api, afterRestart);
    expect(sets.map(revisionOf)).toEqual([1, 2]);
    const second = sets[1]!;
    expect(second.spec.template.metadata?.annotations?.[RESTARTED_AT_ANNOTATION]).toBe(restartedAt.toISOString());
    expect(second.status?.readyReplicas).toBe(2);
    // The old revision is scaled down to nothing, not deleted: it is what undo goes back to.
    expect(sets[0]!.metadata.uid).toBe(first.metadata.uid);
    expect(sets[0]!.spec.replicas).toBe(0);

    await undoDeployment(api, namespace, 'api');
    const afterUndo = await waitUntil(async () => {
      const d = await getDeployment(api, namespace, 'api');
      if (!isRolledOut(d)) return undefined;
      const now = await replicaSetsOf(api, d);
      return now.length === 2 && revisionOf(now[1]!) === 3 ? now : undefined;
    }, 'the first ReplicaSet back as revision 3');
    // The controller reuses the first ReplicaSet (same template, same hash) instead of making a new one.
    expect(afterUndo[1]!.metadata.uid).toBe(first.metadata.uid);
    expect(afterUndo[1]!.spec.template.metadata?.annotations?.[RESTARTED_AT_ANNOTATION]).toBeUndefined();
    expect(afterUndo[0]!.metadata.uid).toBe(second.metadata.uid);
    expect(afterUndo[0]!.spec.replicas).toBe(0);
  });

  it('answers 409 Conflict to a replace on a stale resourceVersion', async () => {
    await api.create(paths.deployments(namespace), deployment('worker', 1));
    const stale = await getDeployment(api, namespace, 'worker');
    const patched = await api.patch<Deployment>(paths.deployment(namespace, 'worker'), { metadata: { annotations: { touched: 'yes' } } }, 'merge');
    expect(patched.metadata.resourceVersion).not.toBe(stale.metadata.resourceVersion);

    const update = { ...stale, spec: { ...stale.spec, replicas: 3 } };
    const refused = await api.replace(paths.deployment(namespace, 'worker'), update).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(KubernetesApiError);
    expect(refused).toMatchObject({ status: 409, reason: 'Conflict' });
    expect((await getDeployment(api, namespace, 'worker')).spec.replicas).toBe(1);

    // The same change on what the server has now goes through. The deployment controller writes
    // the Deployment too (its status, its revision annotation), so a read can go stale before
    // our write lands: a client reads again and retries on 409, as this does.
    const replaced = await waitUntil(async () => {
      const fresh = await getDeployment(api, namespace, 'worker');
      return api.replace<Deployment>(paths.deployment(namespace, 'worker'), { ...fresh, spec: { ...fresh.spec, replicas: 3 } }).catch((err: unknown) => {
        if (err instanceof KubernetesApiError && err.status === 409) return undefined;
        throw err;
      });
    }, 'a replace on the current resourceVersion');
    expect(replaced.spec.replicas).toBe(3);
  });
});
