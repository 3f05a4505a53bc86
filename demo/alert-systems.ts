// What the alert demo watches and fixes (demo/alerts-demo.ts): the simulated world, or a real
// Kubernetes control plane on loopback. Each system says where Prometheus scrapes it and with
// which rules, which implementation of the alerts domain the worker serves with which deps, how
// an incident is broken, and, for Kubernetes, what the API's own history holds after the run.
// The alert loop itself (Prometheus, Alertmanager, the receiver, the run) is the same for both.
import type { AgentWorkerOptions } from '../worker/public.js';
import type { AlertRule } from '../monitoring/prometheus.js';
import type { AlertStackDeps } from '../domains/alerts/tools.js';
import { alertsKubernetesImplementation } from '../domains/alerts/kubernetes.js';
import { serviceAlertRules, worldAlertRules } from '../domains/alerts/rules.js';
import { alertsImplementation } from '../domains/alerts/tools.js';
import { KUBERNETES_METRICS_PREFIX, startKubernetesMetrics } from '../domains/incidents/kubernetes-metrics.js';
import { effectOf } from '../domains/incidents/kubernetes-record.js';
import { namespaceOf, seedIncident } from '../domains/incidents/kubernetes-seed.js';
import { WorldClient } from '../domains/world/client.js';
import { startWorld } from '../domains/world/process.js';
import { KubernetesApi } from '../kubernetes/api.js';
import { ensureBinaries } from '../kubernetes/build.js';
import { startControlPlane } from '../kubernetes/control-plane.js';
import { revisionOf } from '../kubernetes/resources.js';
import { getDeployment, replicaSetsOf } from '../kubernetes/rollout.js';

export type SystemKind = 'world' | 'kubernetes';

/** The service the demo breaks (a memory leak: a restart cures it). */
export const BROKEN_SERVICE = 'cache';

export interface AlertedSystem {
  /** `host:port` targets Prometheus scrapes at `/metrics`. */
  targets: string[];
  rules: AlertRule[];
  implementation: AgentWorkerOptions['implementations'][number];
  /** The worker's deps, once the alert stack it reports to is up. */
  deps(stack: AlertStackDeps): object;
  /** What one call to the system may take: a Kubernetes read waits for a rollout to settle. */
  toolTimeoutMs: number;
  /** Breaks `incident`'s cache and says how, in one line. */
  breakIncident(incident: string): Promise<string>;
  /** The effects the system itself records for the incident's broken service, one line each (Kubernetes: its ReplicaSets). */
  record?(incident: string): Promise<{ lines: string[]; effects: number }>;
  stop(): Promise<void>;
}

export async function startSystem(kind: SystemKind, log: (line: string) => void): Promise<AlertedSystem> {
  return kind === 'kubernetes' ? startKubernetes(log) : startSimulatedWorld();
}

async function startSimulatedWorld(): Promise<AlertedSystem> {
  const world = await startWorld();
  const client = new WorldClient(world.url);
  return {
    targets: [new URL(world.url).host],
    rules: worldAlertRules,
    implementation: alertsImplementation,
    deps: (stack) => ({ world: client, ...stack }),
    toolTimeoutMs: 5_000,
    async breakIncident(incident) {
      await client.seedIncident({ caseId: incident, faulty: { service: BROKEN_SERVICE, fault: 'memory' } });
      return `${incident}'s cache leaks memory (the world's /metrics now says so)`;
    },
    stop: async () => void (await world.stop()),
  };
}

async function startKubernetes(log: (line: string) => void): Promise<AlertedSystem> {
  log('Kubernetes: building the control plane once if it is missing (many minutes the first time), then starting it...');
  await ensureBinaries(log);
  const plane = await startControlPlane({ log });
  const api = new KubernetesApi(plane);
  const exporter = await startKubernetesMetrics(api).catch(async (err: unknown) => {
    await plane.stop();
    throw err;
  });
  log(`Kubernetes API: ${plane.server} (KUBECONFIG=${plane.kubeconfigPath}); metrics of its Deployments: ${exporter.url}/metrics`);
  return {
    targets: [new URL(exporter.url).host],
    rules: serviceAlertRules(KUBERNETES_METRICS_PREFIX),
    implementation: alertsKubernetesImplementation,
    deps: (stack) => ({ kubernetes: api, namespaceOf, ...stack }),
    // A read waits up to half of this for a rollout to settle (domains/incidents/kubernetes.ts).
    toolTimeoutMs: 20_000,
    async breakIncident(incident) {
      const namespace = await seedIncident(api, incident, { faulty: { service: BROKEN_SERVICE, fault: 'memory' } });
      return `Deployment ${BROKEN_SERVICE} in namespace ${namespace}: its serving pods report 97% memory (annotations on their ReplicaSet)`;
    },
    async record(incident) {
      const deployment = await getDeployment(api, namespaceOf(incident), BROKEN_SERVICE);
      const sets = await replicaSetsOf(api, deployment);
      let effects = 0;
      const lines = sets.map((rs) => {
        const effect = effectOf(rs.spec.template);
        if (effect) effects++;
        const made = effect ? `made by effect ${effect.kind} (key ${effect.idempotencyKey})` : 'made at seeding';
        return `ReplicaSet ${rs.metadata.name}: revision ${revisionOf(rs)}, ${rs.status?.readyReplicas ?? 0} ready, ${made}`;
      });
      return { lines, effects };
    },
    async stop() {
      await exporter.stop();
      api.close();
      await plane.stop();
    },
  };
}
