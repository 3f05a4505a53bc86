// What `get_metrics` and the probe say of a service, from the API alone. Health is the rollout's
// (as `kubectl rollout status` judges it: the controller has seen the latest template, every
// replica runs it and is available, none of an older one is left, the progress deadline has not
// passed) and the telemetry's. The telemetry (error rate, p99 latency, memory) is what the pods
// report, and this control plane's pods (kwok's) run nothing, so it is read from annotations, as
// a metrics pipeline labels series by pod-template-hash: a pod template's annotations are what
// the pods made from it report (kubernetes-seed.ts puts the healthy baseline there, so a
// restart's or a revert's new pods start clean), and a ReplicaSet's own annotations, when it has
// them, are what its pods report now: a test "breaks" a service by annotating the ReplicaSet
// whose pods serve. Memory exhaustion is then a property of those pods, a bad deploy of the pods
// of that version. A number that is missing or unreadable is not known, never assumed healthy:
// the service is then undecided, and the probe says so rather than confirming. The service is
// judged by the pods that serve (the worst of the ReplicaSets with ready pods), never by the
// template it was asked to run: mid-rollout, or in a rollout that never completes, the old pods
// are still the ones answering.
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
  /** The worst the serving pods report; undefined when one of them reports no readable number for one of the three. */
  telemetry: Telemetry | undefined;
  healthy: boolean;
  /**
   * False when nothing shows the service unhealthy but its telemetry is not known: neither
   * healthy nor not. (A rollout in progress or a number over the service level decides it.)
   */
  decided: boolean;
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

const FIELDS: ReadonlyArray<[keyof Telemetry, string]> = [
  ['errorRate', ERROR_RATE_ANNOTATION],
  ['latencyP99Ms', LATENCY_P99_MS_ANNOTATION],
  ['memoryPct', MEMORY_PCT_ANNOTATION],
];

/** The annotations that report `telemetry` (on a pod template or a ReplicaSet). */
export function telemetryAnnotations(telemetry: Telemetry): Record<string, string> {
  return Object.fromEntries(FIELDS.map(([field, key]) => [key, String(telemetry[field])]));
}

/** A plain decimal: not '', not ' 1', not '1e3', not 'Infinity', each of which Number() would take. */
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * What a ReplicaSet's pods report: each number from its own annotation if it has one, else from
 * its pod template's. Missing from both, or not a number where it is, leaves it out: unknown.
 */
export function telemetryOf(rs: ReplicaSet): Partial<Telemetry> {
  const own = rs.metadata.annotations ?? {};
  const template = rs.spec.template.metadata?.annotations ?? {};
  const known: Partial<Telemetry> = {};
  for (const [field, key] of FIELDS) {
    const text = Object.hasOwn(own, key) ? own[key] : template[key];
    if (text !== undefined && DECIMAL.test(text)) known[field] = Number(text);
  }
  return known;
}

/** The pods that answer: the ReplicaSets with ready pods; the newest one when none has any yet. */
function serving(replicaSets: ReplicaSet[]): ReplicaSet[] {
  const ready = replicaSets.filter((rs) => (rs.status?.readyReplicas ?? 0) > 0);
  return ready.length ? ready : replicaSets.slice(-1);
}

/** Each number's worst over the serving ReplicaSets; unknown if any of them does not report it. */
function worst(sets: Array<Partial<Telemetry>>): Partial<Telemetry> {
  const out: Partial<Telemetry> = {};
  for (const [field] of FIELDS) {
    const values = sets.map((t) => t[field]);
    if (sets.length && values.every((v) => v !== undefined)) out[field] = Math.max(...(values as number[]));
  }
  return out;
}

export function healthOf(deployment: Deployment, replicaSets: ReplicaSet[]): ServiceHealth {
  const rollout = rolloutOf(deployment);
  const t = worst(serving(replicaSets).map(telemetryOf));
  const unknown = FIELDS.filter(([field]) => t[field] === undefined).map(([, key]) => key);
  const over = [
    rollout.complete ? '' : `rollout ${rollout.detail}`,
    t.errorRate !== undefined && t.errorRate >= SLO.errorRate ? `error rate ${t.errorRate}` : '',
    t.latencyP99Ms !== undefined && t.latencyP99Ms >= SLO.latencyP99Ms ? `p99 latency ${t.latencyP99Ms} ms` : '',
    t.memoryPct !== undefined && t.memoryPct >= MEMORY_EXHAUSTED_PCT ? `memory ${t.memoryPct}%` : '',
  ].filter(Boolean);
  const why = [...over, unknown.length ? `no readable telemetry (${unknown.join(', ')})` : ''].filter(Boolean).join(', ');
  const telemetry = unknown.length ? undefined : (t as Telemetry);
  return { rollout, telemetry, healthy: why === '', decided: over.length > 0 || unknown.length === 0, why };
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
