// How an effect reaches the Kubernetes API at most once per idempotency key, and how it is read
// back. A write is planned on a fresh read of the Deployment, which is first searched for the key
// (a repeat gets the stored effect back, not a second rollout) and for a fence of it, and then
// sent conditional on that read's resourceVersion: if anything wrote the Deployment in between
// (the deployment controller, a person, another attempt under the same key, a readback's fence),
// the API server answers 409 Conflict, nothing is written, and the whole check is made again on a
// fresh read. So a key lands once, and a readback that fenced a key cannot be overtaken by a
// request that read the Deployment before the fence: one of the two writes gets the 409.
import { randomUUID } from 'node:crypto';
import { ToolRefused } from '../../worker/public.js';
import { KubernetesApiError, type KubernetesApi, type PatchKind } from '../../kubernetes/api.js';
import { paths, type Deployment, type ReplicaSet } from '../../kubernetes/resources.js';
import { getDeployment, replicaSetsOf } from '../../kubernetes/rollout.js';
import { FENCES_ANNOTATION, fencesOf, findEffect, withFence, type EffectKind, type StoredEffect } from './kubernetes-record.js';

/** One service's Deployment: the service's name is the Deployment's. */
export interface ServiceRef {
  api: KubernetesApi;
  namespace: string;
  service: string;
}

/** A change of the Deployment, as a patch; made conditional on a resourceVersion by `conditional`. */
export interface Write {
  kind: PatchKind;
  body: unknown;
}

/** Plans the write from a fresh read, stamping `effect`; throws ToolRefused when the change cannot be made. */
export type Plan = (deployment: Deployment, replicaSets: ReplicaSet[], effect: StoredEffect) => Write;

/** Conflicts in a row before the effect is reported refused (nothing of it was written). */
export const WRITE_ATTEMPTS = 8;

/**
 * Applies the effect under `key` at most once: the stored effect when the key is already in the
 * Deployment's history (`deduplicated`), else the planned write, sent on the resourceVersion it
 * was planned on and planned again on 409. Refused (ToolRefused) when the key is fenced against
 * this request, when it records another kind of effect, or when every attempt met a conflict.
 */
export async function applyOnce(
  ref: ServiceRef,
  request: { kind: EffectKind; key: string; sentAt?: number },
  plan: Plan,
): Promise<{ effect: StoredEffect; deduplicated: boolean }> {
  const { api, namespace, service } = ref;
  for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
    const deployment = await getDeployment(api, namespace, service);
    const replicaSets = await replicaSetsOf(api, deployment);
    const found = findEffect(request.key, deployment, replicaSets);
    if (found) {
      if (found.kind !== request.kind) throw new ToolRefused(`key ${request.key} already records a ${found.kind} of ${service}`, 'idempotency_key_conflict');
      return { effect: found, deduplicated: true };
    }
    const fence = fencesOf(deployment)[request.key];
    if (fence !== undefined && (request.sentAt === undefined || request.sentAt < fence)) {
      throw new ToolRefused(`key ${request.key} was fenced against requests sent before ${new Date(fence).toISOString()}`, 'idempotency_key_fenced');
    }
    const effect: StoredEffect = { kind: request.kind, effectId: `eff_${randomUUID()}`, idempotencyKey: request.key, appliedAt: new Date().toISOString() };
    const write = conditional(plan(deployment, replicaSets, effect), deployment);
    try {
      await api.patch(paths.deployment(namespace, service), write.body, write.kind);
      return { effect, deduplicated: false };
    } catch (err) {
      if (isConflict(err)) continue;
      throw err;
    }
  }
  throw new ToolRefused(`${service}: the Deployment changed under each of ${WRITE_ATTEMPTS} writes (409 Conflict each time), so none was applied`, 'conflict');
}

/** The read-back answer: applied (with the stored effect), or not, and then whether the key is now fenced. */
export type ReadBack = { applied: true; effect: StoredEffect } | { applied: false; fenced: boolean };

/**
 * Whether the effect under `key` is in the Deployment's history. With `fenceBefore`, a key not
 * found is fenced in the same conditional way before the answer: any request under it sent before
 * that time is refused from then on, so "not applied" is final.
 */
export async function readBack(ref: ServiceRef, key: string, fenceBefore?: number): Promise<ReadBack> {
  const { api, namespace, service } = ref;
  for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
    const deployment = await getDeployment(api, namespace, service);
    const found = findEffect(key, deployment, await replicaSetsOf(api, deployment));
    if (found) return { applied: true, effect: found };
    if (fenceBefore === undefined) return { applied: false, fenced: false };
    const fences = JSON.stringify(withFence(fencesOf(deployment), key, fenceBefore));
    const write = conditional({ kind: 'merge', body: { metadata: { annotations: { [FENCES_ANNOTATION]: fences } } } }, deployment);
    try {
      await api.patch(paths.deployment(namespace, service), write.body, write.kind);
      return { applied: false, fenced: true };
    } catch (err) {
      if (isConflict(err)) continue;
      throw err;
    }
  }
  throw new Error(`${service}: the Deployment changed under each of ${WRITE_ATTEMPTS} fences of ${key} (409 Conflict each time)`);
}

/**
 * The write, refused by the API server with 409 Conflict unless the Deployment is still at the
 * resourceVersion it was planned on: in a merge patch as `metadata.resourceVersion`, in a JSON
 * patch as a replace of it (a JSON patch `test` would answer 422, and say less).
 */
function conditional(write: Write, read: Deployment): Write {
  const resourceVersion = read.metadata.resourceVersion;
  if (!resourceVersion) throw new Error(`the Deployment ${read.metadata.name} was read without a resourceVersion`);
  if (write.kind === 'json') {
    return { kind: 'json', body: [{ op: 'replace', path: '/metadata/resourceVersion', value: resourceVersion }, ...(write.body as unknown[])] };
  }
  const body = write.body as { metadata?: Record<string, unknown> };
  return { kind: write.kind, body: { ...body, metadata: { ...body.metadata, resourceVersion } } };
}

function isConflict(err: unknown): boolean {
  return err instanceof KubernetesApiError && err.status === 409;
}
