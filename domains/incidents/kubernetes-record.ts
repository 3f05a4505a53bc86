// Where a restart or a revert of the Kubernetes implementation is recorded, so it can be found
// again by its idempotency key with nothing but the API: the effect stamps its key, id, kind and
// time on the Deployment's pod template, and the deployment controller copies that template into
// the ReplicaSet of the revision it makes. The record is the cluster's own rollout history; no
// store of ours beside it. Also kept on the Deployment (its metadata, which rolls nothing out):
// the keys a readback fenced, each with the time before which a request under it is refused.
import type { Deployment, PodTemplateSpec, ReplicaSet } from '../../kubernetes/resources.js';

const PREFIX = 'incidents.example.com';
export const EFFECT_KEY_ANNOTATION = `${PREFIX}/effect-key`;
export const EFFECT_ID_ANNOTATION = `${PREFIX}/effect-id`;
export const EFFECT_KIND_ANNOTATION = `${PREFIX}/effect-kind`;
export const APPLIED_AT_ANNOTATION = `${PREFIX}/applied-at`;
/** Every annotation `stamp` writes. */
export const EFFECT_ANNOTATIONS: readonly string[] = [EFFECT_KEY_ANNOTATION, EFFECT_ID_ANNOTATION, EFFECT_KIND_ANNOTATION, APPLIED_AT_ANNOTATION];
/** On the Deployment's metadata: `{ [idempotency key]: fenced before (epoch ms) }`, as JSON. */
export const FENCES_ANNOTATION = `${PREFIX}/fences`;

export type EffectKind = 'restart' | 'revert';

/** An effect as the cluster holds it: what the readback answers, and what a repeat of its key gets back. */
export interface StoredEffect {
  kind: EffectKind;
  effectId: string;
  idempotencyKey: string;
  appliedAt: string;
}

/** The annotations that record `effect` on a pod template (each overwrites the previous effect's). */
export function stamp(effect: StoredEffect): Record<string, string> {
  return {
    [EFFECT_KEY_ANNOTATION]: effect.idempotencyKey,
    [EFFECT_ID_ANNOTATION]: effect.effectId,
    [EFFECT_KIND_ANNOTATION]: effect.kind,
    [APPLIED_AT_ANNOTATION]: effect.appliedAt,
  };
}

/** The effect a pod template records, if it records one whole. */
export function effectOf(template: PodTemplateSpec | undefined): StoredEffect | undefined {
  const a = template?.metadata?.annotations ?? {};
  const [idempotencyKey, effectId, kind, appliedAt] = [a[EFFECT_KEY_ANNOTATION], a[EFFECT_ID_ANNOTATION], a[EFFECT_KIND_ANNOTATION], a[APPLIED_AT_ANNOTATION]];
  if (!idempotencyKey || !effectId || !appliedAt || (kind !== 'restart' && kind !== 'revert')) return undefined;
  return { kind, effectId, idempotencyKey, appliedAt };
}

/**
 * The effect stored under `key`: on the Deployment's template (written, whether or not the
 * controller has made its ReplicaSet yet), else on the template of any ReplicaSet it still keeps
 * (a later effect overwrote the Deployment's). A revision pruned by `revisionHistoryLimit` takes
 * its record with it.
 */
export function findEffect(key: string, deployment: Deployment, replicaSets: ReplicaSet[]): StoredEffect | undefined {
  for (const template of [deployment.spec.template, ...[...replicaSets].reverse().map((rs) => rs.spec.template)]) {
    const effect = effectOf(template);
    if (effect?.idempotencyKey === key) return effect;
  }
  return undefined;
}

/** The Deployment's fences; an annotation that is not our JSON counts as none. */
export function fencesOf(deployment: Deployment): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(deployment.metadata.annotations?.[FENCES_ANNOTATION] ?? '{}');
    if (!parsed || typeof parsed !== 'object') return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
  } catch {
    return {};
  }
}

/** How long a fence is kept: far longer than any request could still be on its way. */
const FENCE_KEPT_MS = 24 * 60 * 60_000;

/** The fences with `key` fenced before `before` (a later fence of the same key wins), and old ones dropped. */
export function withFence(fences: Record<string, number>, key: string, before: number, now = Date.now()): Record<string, number> {
  const kept = Object.entries(fences).filter(([k, at]) => k !== key && at > now - FENCE_KEPT_MS);
  return Object.fromEntries([...kept, [key, Math.max(before, fences[key] ?? 0)]]);
}
