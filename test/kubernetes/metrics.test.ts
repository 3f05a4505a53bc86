// The exporter Prometheus scrapes in the Kubernetes demo (domains/incidents/kubernetes-metrics.ts):
// its series are the API's objects as the probe judges them, labelled with the incident its
// namespace names, and they follow the objects: a restart's new ReplicaSet serves clean pods, and
// the series say so at the next scrape. A namespace that names no incident is not exported, nor
// one that names an incident but is not that incident's namespace, nor a Deployment that is not
// one of the incidents' services: neither may put series beside (or over) the case's own.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { KubernetesApi } from '../../kubernetes/api.js';
import { paths, type Deployment } from '../../kubernetes/resources.js';
import { getDeployment, replicaSetsOf, restartDeployment } from '../../kubernetes/rollout.js';
import { startKubernetesMetrics } from '../../domains/incidents/kubernetes-metrics.js';
import { telemetryAnnotations } from '../../domains/incidents/kubernetes-health.js';
import { BASELINE, CASE_ANNOTATION, namespaceOf, rolledOut, seedIncident } from '../../domains/incidents/kubernetes-seed.js';
import { uniqueCase } from '../support/agent.js';
import { waitUntil } from '../support/wait.js';

const api = new KubernetesApi(inject('kubernetes'));
const namespaces: string[] = [];
afterAll(async () => {
  await Promise.all(namespaces.map((ns) => api.delete(paths.namespace(ns)).catch(() => undefined)));
  api.close();
});

/** The value of `name{case_id="<caseId>",service="<service>"...}` in an exposition text, if present. */
function sample(text: string, name: string, caseId: string, service: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{case_id="${caseId}",service="${service}"`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** The lines of `name` for the case's service in an exposition text. */
function lines(text: string, name: string, caseId: string, service: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}{case_id="${caseId}",service="${service}"`));
}

/** A healthy-looking Deployment of no pods (so its namespace needs no ServiceAccount), reporting the baseline. */
function healthyLooking(namespace: string, name: string): Deployment {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas: 0,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: telemetryAnnotations(BASELINE) },
        spec: { containers: [{ name, image: `registry.invalid/${name}:v9.9.9` }] },
      },
    },
  };
}

describe("the exporter of the Deployments' state", () => {
  it('exports each service of each incident as the API holds it, and follows a restart', async () => {
    const caseId = uniqueCase('INC');
    namespaces.push(namespaceOf(caseId));
    const namespace = await seedIncident(api, caseId, { faulty: { service: 'cache', fault: 'memory' } });
    const stranger = `other-${caseId.toLowerCase()}`;
    namespaces.push(stranger);
    await api.create(paths.namespaces(), { metadata: { name: stranger } });

    const exporter = await startKubernetesMetrics(api);
    try {
      const scrape = async () => {
        const res = await fetch(`${exporter.url}/metrics`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toContain('text/plain');
        return res.text();
      };
      const before = await scrape();
      expect(sample(before, 'incident_service_memory_percent', caseId, 'cache')).toBe(97);
      expect(sample(before, 'incident_service_error_ratio', caseId, 'cache')).toBe(0.18);
      expect(sample(before, 'incident_service_up', caseId, 'cache')).toBe(0);
      expect(sample(before, 'incident_service_memory_percent', caseId, 'api')).toBe(41);
      expect(sample(before, 'incident_service_up', caseId, 'api')).toBe(1);
      expect(before).toMatch(new RegExp(`incident_service_deploy_info\\{case_id="${caseId}",service="db",version="v1.4.2",previous="v1.4.2"\\} 1`));
      expect(before).not.toContain(stranger);

      await restartDeployment(api, namespace, 'cache');
      await rolledOut(api, namespace, 'cache');
      const after = await waitUntil(async () => {
        const text = await scrape();
        return sample(text, 'incident_service_up', caseId, 'cache') === 1 ? text : undefined;
      }, 'the restarted cache to be exported as up');
      expect(sample(after, 'incident_service_memory_percent', caseId, 'cache')).toBe(41);
      expect((await fetch(`${exporter.url}/other`)).status).toBe(404);
    } finally {
      await exporter.stop();
    }
  });

  it('exports a case from its own namespace only, and only its services: another namespace naming the case, or a Deployment beside them, adds nothing', async () => {
    const caseId = uniqueCase('INC');
    namespaces.push(namespaceOf(caseId));
    const namespace = await seedIncident(api, caseId, { faulty: { service: 'cache', fault: 'memory' } });
    const decoy = `decoy-${namespace}`;
    namespaces.push(decoy);
    await api.create(paths.namespaces(), { metadata: { name: decoy, annotations: { [CASE_ANNOTATION]: caseId } } });
    await api.create(paths.deployments(decoy), healthyLooking(decoy, 'cache'));
    await api.create(paths.deployments(namespace), healthyLooking(namespace, 'worker'));
    // Each has a ReplicaSet reporting the baseline, so an exporter that took them would export them as up.
    for (const [ns, name] of [
      [decoy, 'cache'],
      [namespace, 'worker'],
    ] as const) {
      await waitUntil(
        async () => ((await replicaSetsOf(api, await getDeployment(api, ns, name))).length > 0 ? true : undefined),
        `${name}'s ReplicaSet in ${ns}`,
      );
    }

    const exporter = await startKubernetesMetrics(api);
    try {
      const text = await (await fetch(`${exporter.url}/metrics`)).text();
      expect(lines(text, 'incident_service_up', caseId, 'cache')).toEqual([`incident_service_up{case_id="${caseId}",service="cache"} 0`]);
      expect(lines(text, 'incident_service_deploy_info', caseId, 'cache')).toEqual([
        `incident_service_deploy_info{case_id="${caseId}",service="cache",version="v1.4.2",previous="v1.4.2"} 1`,
      ]);
      expect(lines(text, 'incident_service_up', caseId, 'worker')).toEqual([]);
      expect(lines(text, 'incident_service_up', caseId, 'api')).toHaveLength(1);
    } finally {
      await exporter.stop();
    }
  });
});
