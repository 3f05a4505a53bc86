// The incidents' services on a Kubernetes API as Prometheus scrapes them: a small exporter, on
// loopback, that answers each scrape from the API's own objects (the service Deployments, api, db
// and cache, of every namespace that names its incident, kubernetes-seed.ts's CASE_ANNOTATION, and
// their ReplicaSets), judged as get_metrics and the probe judge them (kubernetes-health.ts). A
// namespace counts for an incident only if it is that incident's namespace (`namespaceOf`): the
// annotation alone would let any namespace, named anything, export series under another case's
// labels beside (or instead of) the real ones. A service whose telemetry is not known is exported
// not up, its numbers NaN, never the healthy baseline. It stands
// where kube-state-metrics and a pod metrics pipeline would: this control plane's pods run
// nothing, so their telemetry is the ReplicaSets' annotations. The series are
// monitoring/service-metrics.ts's under `incident_service`, so the alert rules written for the
// simulated world fire on real objects (domains/alerts/rules.ts, serviceAlertRules).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubernetesApi } from '../../kubernetes/api.js';
import { paths, type Deployment, type List, type ReplicaSet } from '../../kubernetes/resources.js';
import { ownedReplicaSets } from '../../kubernetes/rollout.js';
import { METRICS_CONTENT_TYPE, renderServiceMetrics, type ServiceSample } from '../../monitoring/service-metrics.js';
import { healthOf } from './kubernetes-health.js';
import { historyOf } from './kubernetes-history.js';
import { CASE_ANNOTATION, namespaceOf, SERVICES } from './kubernetes-seed.js';

/** The prefix of the exporter's series: `incident_service_error_ratio{case_id, service}`, ... */
export const KUBERNETES_METRICS_PREFIX = 'incident_service';

interface Namespace {
  metadata: { name: string; annotations?: Record<string, string> };
}

/** The case a namespace is for: the one its annotation names, if the namespace is that case's own. */
function caseOf(namespace: Namespace): string | undefined {
  const caseId = namespace.metadata.annotations?.[CASE_ANNOTATION];
  if (!caseId) return undefined;
  try {
    return namespaceOf(caseId) === namespace.metadata.name ? caseId : undefined;
  } catch {
    return undefined; // not an incident id
  }
}

const isService = (name: string) => (SERVICES as readonly string[]).includes(name);

/** One sample per service Deployment of every incident's own namespace, read now. */
export async function sampleServices(api: KubernetesApi): Promise<ServiceSample[]> {
  const namespaces = await api.get<List<Namespace>>(paths.namespaces());
  const cases = namespaces.items.flatMap((n) => {
    const caseId = caseOf(n);
    return caseId ? [{ namespace: n.metadata.name, caseId }] : [];
  });
  const perCase = await Promise.all(
    cases.map(async ({ namespace, caseId }) => {
      const [deployments, replicaSets] = await Promise.all([
        api.get<List<Deployment>>(paths.deployments(namespace)),
        api.get<List<ReplicaSet>>(paths.replicaSets(namespace)),
      ]);
      return deployments.items.flatMap((d) => {
        if (!isService(d.metadata.name)) return [];
        // One list per namespace, not a request per Deployment as replicaSetsOf makes.
        const sets = ownedReplicaSets(d, replicaSets.items);
        const health = healthOf(d, sets);
        try {
          const history = historyOf(d, sets);
          return [
            {
              caseId,
              service: d.metadata.name,
              errorRatio: health.telemetry?.errorRate ?? NaN,
              memoryPercent: health.telemetry?.memoryPct ?? NaN,
              latencyP99Ms: health.telemetry?.latencyP99Ms ?? NaN,
              healthy: health.healthy,
              version: history.current,
              previousVersion: history.previous,
              deployedAt: history.deployedAt,
            },
          ];
        } catch {
          return []; // an image without a version tag is not one of the incidents' services
        }
      });
    }),
  );
  return perCase.flat();
}

export interface MetricsExporter {
  /** `http://127.0.0.1:<port>`; Prometheus scrapes `<url>/metrics`. */
  url: string;
  stop(): Promise<void>;
}

/** Serves `/metrics` on loopback (port 0: any free one). A scrape the API cannot answer gets a 503, so Prometheus marks the target down. */
export async function startKubernetesMetrics(api: KubernetesApi, port = 0): Promise<MetricsExporter> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    sampleServices(api).then(
      (samples) => res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(renderServiceMetrics(KUBERNETES_METRICS_PREFIX, samples)),
      (err: unknown) =>
        res.writeHead(503, { 'content-type': 'text/plain' }).end(`the Kubernetes API did not answer: ${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
