// What `get_metrics` and the probe say of a service, from the API alone. Health is the rollout's
// (as `kubectl rollout status` judges it: the controller has seen the latest template, every
// replica runs it and is available, none of an older one is left, the progress deadline has not
// passed) and the telemetry's. The telemetry (error rate, p99 latency, memory) is what the pods
// report, and this control plane's pods (kwok's) run nothing, so it is read from annotations on
// the ReplicaSets, as a metrics pipeline labels series by pod-template-hash: a test "breaks" a
// service by annotating the ReplicaSet whose pods serve. Memory exhaustion is then a property of
// those pods (a restart makes new ones, which start clean), a bad deploy of the pods of that
// version (a revert makes new ones of the previous version). A ReplicaSet without annotations
// reports the healthy baseline. The service is judged by the pods that serve (the worst of the
// ReplicaSets with ready pods), never by the template it was asked to run: mid-rollout, or in a
// rollout that never completes, the old pods are still the ones answering.
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubernetesApi } from '../../kubernetes/api.js';
import type { Deployment, ReplicaSet } from '../../kubernetes/resources.js';
import { getDeployment, replicaSetsOf } from '../../kubernetes/rollout.js';
import { MEMORY_EXHAUSTED_PCT } from './services.js';

const PREFIX = 'telemetry.incidents.example.com';
export const ERROR_RATE_ANNOTATION = `${PREFIX}/error-rate`;
export const LATENCY_P99_MS_ANNOTATION = `${PREFIX}/latency-p99-ms`;
export const MEMORY_PCT_ANNOTATION = `${PREFIX}/memory-pct`;

export interface Telemetry {
  errorRate: number;
  latencyP99Ms: number;
  memoryPct: number;
}

/** What pods report when nothing is wrong (the simulated world's healthy service reads the same). */
export const BASELINE: Telemetry = { errorRate: 0.002, latencyP99Ms: 120, memoryPct: 41 };
/** The service level a healthy service keeps: below these error rate and latency, and memory not exhausted. */
export const SLO = { errorRate: 0.01, latencyP99Ms: 500 } as const;

export interface Rollout {
  complete: boolean;
  /** The deployment controller gave up on it: Progressing=False, ProgressDeadlineExceeded. */
  stalled: boolean;
  /** In words, for the probe's detail. */
  detail: string;
}

export interface ServiceHealth {
  rollout: Rollout;
  telemetry: Telemetry;
  healthy: boolean;
  /** Why it is not healthy, in words ('' when it is). */
  why: string;
}

/** The rollout's state, by `kubectl rollout status`'s rules. */
export function rolloutOf(deployment: Deployment): Rollout {
  const want = deployment.spec.replicas ?? 1;
  const s = deployment.status ?? {};
  const progressing = s.conditions?.find((c) => c.type === 'Progressing');
  const stalled = progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded';
  const updated = s.updatedReplicas ?? 0;
  const waiting =
    (s.observedGeneration ?? 0) < (deployment.metadata.generation ?? 0)
      ? 'the controller has not seen the latest template'
      : stalled
        ? `stalled: ${progressing?.message ?? 'ProgressDeadlineExceeded'}`
        : updated < want
          ? `${updated} of ${want} replicas updated`
          : (s.replicas ?? 0) > updated
            ? `${(s.replicas ?? 0) - updated} old replicas pending termination`
            : (s.availableReplicas ?? 0) < updated
              ? `${s.availableReplicas ?? 0} of ${updated} updated replicas available`
              : '';
  return { complete: waiting === '', stalled, detail: waiting || `rolled out (${want} replicas)` };
}

/** A ReplicaSet's own telemetry: its annotations, the baseline for each one it lacks. */
export function telemetryOf(rs: ReplicaSet): Telemetry {
  const a = rs.metadata.annotations ?? {};
  const read = (key: string, fallback: number) => {
    const value = Number(a[key]);
    return a[key] !== undefined && Number.isFinite(value) ? value : fallback;
  };
  return {
    errorRate: read(ERROR_RATE_ANNOTATION, BASELINE.errorRate),
    latencyP99Ms: read(LATENCY_P99_MS_ANNOTATION, BASELINE.latencyP99Ms),
    memoryPct: read(MEMORY_PCT_ANNOTATION, BASELINE.memoryPct),
  };
}

/** The pods that answer: the ReplicaSets with ready pods; the newest one when none has any yet. */
function serving(replicaSets: ReplicaSet[]): ReplicaSet[] {
  const ready = replicaSets.filter((rs) => (rs.status?.readyReplicas ?? 0) > 0);
  return ready.length ? ready : replicaSets.slice(-1);
}

export function healthOf(deployment: Deployment, replicaSets: ReplicaSet[]): ServiceHealth {
  const rollout = rolloutOf(deployment);
  const sets = serving(replicaSets).map(telemetryOf);
  const telemetry = sets.length
    ? {
        errorRate: Math.max(...sets.map((t) => t.errorRate)),
        latencyP99Ms: Math.max(...sets.map((t) => t.latencyP99Ms)),
        memoryPct: Math.max(...sets.map((t) => t.memoryPct)),
      }
    : BASELINE;
  const why = [
    rollout.complete ? '' : `rollout ${rollout.detail}`,
    telemetry.errorRate >= SLO.errorRate ? `error rate ${telemetry.errorRate}` : '',
    telemetry.latencyP99Ms >= SLO.latencyP99Ms ? `p99 latency ${telemetry.latencyP99Ms} ms` : '',
    telemetry.memoryPct >= MEMORY_EXHAUSTED_PCT ? `memory ${telemetry.memoryPct}%` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return { rollout, telemetry, healthy: why === '', why };
}

/**
 * The Deployment and its ReplicaSets once its rollout has settled: complete, or stalled, or, at
 * `patienceMs`, as it stands then. A reading taken mid-rollout measures a mix of old and new pods
 * and says nothing yet about what the rollout did; kwok's rollouts take about a second.
 */
export async function settled(
  api: KubernetesApi,
  namespace: string,
  service: string,
  patienceMs: number,
  signal?: AbortSignal,
): Promise<{ deployment: Deployment; replicaSets: ReplicaSet[] }> {
  const giveUpAt = Date.now() + patienceMs;
  for (;;) {
    const deployment = await getDeployment(api, namespace, service);
    const replicaSets = await replicaSetsOf(api, deployment);
    const rollout = rolloutOf(deployment);
    if (rollout.complete || rollout.stalled || Date.now() >= giveUpAt || signal?.aborted) return { deployment, replicaSets };
    await sleep(250);
  }
}
