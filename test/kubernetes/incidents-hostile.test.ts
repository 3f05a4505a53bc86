// The incidents domain on Kubernetes against what it cannot trust: objects anyone who may write in
// the case's namespace can plant, a case id in another letter case, and pods that report no
// telemetry. A planted ReplicaSet (the Deployment named its controller by hand, the newest
// revision, another repository or a sidecar with the host's filesystem) is no version to revert
// to, and a revert, through the engine's real workflow, changes nothing of the Deployment's own
// template but its image's tag. Case ids that differ only in letter case reach different
// namespaces, so one database is not restarted once per alias. A number the pods do not report,
// or report as no number, leaves the probe undecided, never confirmed.
import { describe, expect, inject, it } from 'vitest';
import { KubernetesApi } from '../../kubernetes/api.js';
import { paths, REVISION_ANNOTATION, type Deployment, type PodTemplateSpec } from '../../kubernetes/resources.js';
import { getDeployment, replicaSetsOf } from '../../kubernetes/rollout.js';
import { kubernetesIncidentsImplementation as k8s } from '../../domains/incidents/kubernetes.js';
import { ERROR_RATE_ANNOTATION, LATENCY_P99_MS_ANNOTATION, MEMORY_PCT_ANNOTATION } from '../../domains/incidents/kubernetes-health.js';
import { EFFECT_ANNOTATIONS } from '../../domains/incidents/kubernetes-record.js';
import { effectKey } from '../../workflows/public.js';
import { uniqueCase } from '../support/agent.js';
import { allRevisions, BAD_VERSION, namespaceOf, rolledOut, STABLE_VERSION } from './incidents-cluster.js';
import { factValues, runIncident, TOOL_TIMEOUT_MS, useIncidentCases } from './incidents-worker.js';

const cluster = inject('kubernetes');
const api = new KubernetesApi(cluster);
const { incident, worker: onWorker } = useIncidentCases(api);

const ctx = (caseId: string, idempotencyKey?: string) => ({
  caseId,
  deps: { kubernetes: api, namespaceOf },
  timeoutMs: TOOL_TIMEOUT_MS,
  ...(idempotencyKey ? { idempotencyKey } : {}),
});
const restartKey = (caseId: string, service: string) => effectKey('incidents', 'restart_service', `restart:${caseId}:${service}`);

/** A ReplicaSet created in the namespace by someone other than the deployment controller, claiming to be one of `owner`'s revisions. */
function plant(namespace: string, owner: Deployment, name: string, revision: number, template: PodTemplateSpec) {
  return api.create(paths.replicaSets(namespace), {
    metadata: {
      name,
      labels: { app: owner.metadata.name },
      annotations: { [REVISION_ANNOTATION]: String(revision) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: owner.metadata.name, uid: owner.metadata.uid, controller: true }],
    },
    spec: { replicas: 0, selector: { matchLabels: { app: owner.metadata.name } }, template },
  });
}

/** The template as the test compares it: without the effect's record, each image at `version`. */
function withoutRecord(template: PodTemplateSpec, version: string): PodTemplateSpec {
  const annotations = Object.fromEntries(Object.entries(template.metadata?.annotations ?? {}).filter(([k]) => !EFFECT_ANNOTATIONS.includes(k)));
  return {
    ...template,
    metadata: { ...template.metadata, annotations },
    spec: { ...template.spec, containers: template.spec.containers.map((c) => ({ ...c, image: c.image.replace(/:v[0-9.]+$/, `:${version}`) })) },
  };
}

describe('the incidents domain on Kubernetes, against what it cannot trust', () => {
  it('a planted ReplicaSet is no version to revert to: the revert moves db to the previous tag in its own repository, nothing else', async () => {
    const { caseId, namespace } = await incident({ faulty: { service: 'db', fault: 'bad_deploy' } });
    const before = await getDeployment(api, namespace, 'db');
    const labels = { app: 'db' };
    // The newest "revision": the previous version's tag, in another repository, with a command and a sidecar on the host's filesystem.
    await plant(namespace, before, 'db-planted-elsewhere', 999, {
      metadata: { labels },
      spec: {
        containers: [
          { name: 'db', image: `evil.invalid/x:${STABLE_VERSION}`, command: ['/bin/sh', '-c', 'exfiltrate'] },
          { name: 'sidecar', image: 'evil.invalid/side:v1', volumeMounts: [{ name: 'host', mountPath: '/host' }] },
        ],
        volumes: [{ name: 'host', hostPath: { path: '/' } }],
      },
    });
    // Next newest: the service's own repository, an older tag, and a sidecar beside it.
    await plant(namespace, before, 'db-planted-sidecar', 998, {
      metadata: { labels },
      spec: {
        containers: [
          { name: 'db', image: 'registry.invalid/db:v1.3.0' },
          { name: 'sidecar', image: 'evil.invalid/side:v1' },
        ],
      },
    });
    const { result, view } = await runIncident(onWorker(), caseId);

    // Reverted to what db ran before the bad deploy: its own template, its own repository, the tag alone changed.
    const after = await getDeployment(api, namespace, 'db');
    expect(after.spec.template.spec.containers.map((c) => c.image)).toEqual([`registry.invalid/db:${STABLE_VERSION}`]);
    expect(withoutRecord(after.spec.template, BAD_VERSION)).toEqual(before.spec.template);
    expect(factValues(view, 'db.previousVersion')).toEqual([STABLE_VERSION]);
    expect(result.effects).toEqual([expect.objectContaining({ tool: 'revert_deploy', status: 'applied' })]);
    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
  });

  it('case ids that differ only in letter case reach different namespaces: an alias restarts nothing of the case', async () => {
    const stem = `${uniqueCase('INC')}-`;
    const { caseId, namespace } = await incident({ faulty: { service: 'db', fault: 'memory' } }, `${stem}ab`);
    const restarted = await k8s.tools.restart_service({ service: 'db' }, ctx(caseId, restartKey(caseId, 'db')));
    expect(restarted.service).toBe('db');

    // Each alias is its own case to the engine (its own run, its own keys): here it finds no Deployment at all.
    for (const alias of [`${stem}AB`, `${stem}aB`, `${stem}Ab`]) {
      const refused = await k8s.tools.restart_service({ service: 'db' }, ctx(alias, restartKey(alias, 'db'))).catch((e: unknown) => e);
      expect(refused).toMatchObject({ status: 404, reason: 'NotFound', path: paths.deployment(namespaceOf(alias), 'db') });
    }
    await rolledOut(api, namespace, 'db');
    expect((await allRevisions(api, namespace)).db.map((r) => [r.revision, r.effect?.idempotencyKey])).toEqual([
      [1, undefined],
      [2, restartKey(caseId, 'db')],
    ]);
    // And an id that is not an incident's is refused before any request.
    await expect(k8s.tools.get_metrics({ service: 'db' }, ctx('inc-ab'))).rejects.toMatchObject({ code: 'case_id_invalid' });
  });

  it('telemetry missing or unreadable is not healthy: the probe is undecided, get_metrics refuses', async () => {
    const { caseId, namespace } = await incident({ faulty: { service: 'cache', fault: 'memory' } });
    await k8s.tools.restart_service({ service: 'cache' }, ctx(caseId, restartKey(caseId, 'cache')));
    await rolledOut(api, namespace, 'cache');
    const probe = () => k8s.probe({ remediated: 'cache' }, ctx(caseId));
    expect(await probe()).toMatchObject({ holds: true, decided: true });

    // db's serving pods report a memory figure that is no number.
    const dbServing = (await replicaSetsOf(api, await getDeployment(api, namespace, 'db'))).at(-1);
    if (!dbServing) throw new Error('db has no ReplicaSet');
    const setMemory = (value: string | null) =>
      api.patch(paths.replicaSet(namespace, dbServing.metadata.name), { metadata: { annotations: { [MEMORY_PCT_ANNOTATION]: value } } }, 'merge');
    await setMemory('n/a');
    expect(await probe()).toMatchObject({ holds: false, decided: false, detail: expect.stringMatching(/^undecided: db \(no readable telemetry/) });
    await expect(k8s.tools.get_metrics({ service: 'db' }, ctx(caseId))).rejects.toMatchObject({ code: 'telemetry_missing' });
    await setMemory(null);
    expect(await probe()).toMatchObject({ holds: true, decided: true });

    // api's template loses its telemetry: the pods of its new revision report none.
    const none = { [ERROR_RATE_ANNOTATION]: null, [LATENCY_P99_MS_ANNOTATION]: null, [MEMORY_PCT_ANNOTATION]: null };
    await api.patch(paths.deployment(namespace, 'api'), { spec: { template: { metadata: { annotations: none } } } }, 'strategic');
    await rolledOut(api, namespace, 'api');
    expect(await probe()).toMatchObject({ holds: false, decided: false, detail: expect.stringMatching(/^undecided: api \(no readable telemetry/) });
    await expect(k8s.tools.get_metrics({ service: 'api' }, ctx(caseId))).rejects.toMatchObject({ code: 'telemetry_missing' });
  });
});
