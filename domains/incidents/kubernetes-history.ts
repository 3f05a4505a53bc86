// A service's deploy history, read from its ReplicaSets, and the revert it allows. The version is
// the tag of the pod template's first container image (`registry.example/api:v1.4.2`); the
// current version is the Deployment's template's. The ReplicaSets are claims, not a record: anyone
// who may create a ReplicaSet in the namespace can name the Deployment its controller (or have it
// adopted, by its labels) and give it any revision number and any template. So a ReplicaSet
// counts as a version of the service only when its template is the Deployment's current one apart
// from image tags and the annotations a restart or an effect stamps (same repositories, no other
// container, command or volume), and a revert copies nothing from it: it moves the current
// template's images to the previous version's tag, in their own repository. The revert then runs
// exactly what that version ran with this template. What a planted copy can still do is name
// another tag of the service's own repository as the previous version.
// The previous version is that of the newest such ReplicaSet whose version differs. A restart
// makes a revision but deploys nothing, so "previous" skips the revisions a restart made: a revert
// after a restart still goes back to the last other version, as `get_deploys` promises.
import { ToolRefused } from '../../worker/public.js';
import { POD_TEMPLATE_HASH_LABEL, type Deployment, type PodTemplateSpec, type ReplicaSet } from '../../kubernetes/resources.js';
import { RESTARTED_AT_ANNOTATION } from '../../kubernetes/rollout.js';
import { EFFECT_ANNOTATIONS } from './kubernetes-record.js';

/** The version shape the incidents contract accepts (domains/incidents/domain.ts). */
const VERSION = /^v\d{1,4}(\.\d{1,4}){0,2}$/;

export interface DeployHistory {
  current: string;
  /** The last other version; the current one when there is none (nothing to revert to). */
  previous: string;
  /** When the current version was first rolled out (its oldest ReplicaSet in the current run of it). */
  deployedAt: string;
}

/** An image reference's repository and tag (`registry.example/api`, `v1.4.2`); a digest after '@' is not part of either. */
function imageOf(image: string): { repository: string; tag: string | undefined } {
  const name = image.split('@')[0] ?? '';
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? { repository: name.slice(0, colon), tag: name.slice(colon + 1) } : { repository: name, tag: undefined };
}

/** The version tag of a pod template's first image, if it has one. */
function tagOf(template: PodTemplateSpec): string | undefined {
  const { tag } = imageOf(template.spec.containers[0]?.image ?? '');
  return tag !== undefined && VERSION.test(tag) ? tag : undefined;
}

/** The version a pod template runs; refused when its image carries no version tag. */
export function versionOf(template: PodTemplateSpec): string {
  const tag = tagOf(template);
  if (tag === undefined)
    throw new ToolRefused(`image ${JSON.stringify(template.spec.containers[0]?.image ?? '')} has no version tag such as v1.4.2`, 'image_not_versioned');
  return tag;
}

/** Annotations a template gains without a deploy: a restart's, an effect's record. */
const NOT_A_DEPLOY = new Set([RESTARTED_AT_ANNOTATION, ...EFFECT_ANNOTATIONS]);

/**
 * A pod template as a deploy made it, in one text: every image by its repository alone, without
 * the controller's pod-template-hash label and the annotations of NOT_A_DEPLOY. Two templates
 * with the same shape differ at most in their images' tags and in restarts.
 */
function shapeOf(template: PodTemplateSpec): string {
  const t = structuredClone(template) as PodTemplateSpec & { spec: Record<string, unknown> };
  const labels = Object.entries(t.metadata?.labels ?? {}).filter(([k]) => k !== POD_TEMPLATE_HASH_LABEL);
  const annotations = Object.entries(t.metadata?.annotations ?? {}).filter(([k]) => !NOT_A_DEPLOY.has(k));
  t.metadata = {
    ...t.metadata,
    labels: labels.length ? Object.fromEntries(labels) : undefined,
    annotations: annotations.length ? Object.fromEntries(annotations) : undefined,
  };
  for (const list of ['containers', 'initContainers', 'ephemeralContainers']) {
    const containers = t.spec[list];
    if (Array.isArray(containers)) for (const c of containers as Array<{ image?: unknown }>) c.image = imageOf(String(c.image ?? '')).repository;
  }
  return canonical(t);
}

/** JSON with every object's keys in order and undefined members left out, so equal objects give equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * `replicaSets` oldest revision first, as kubernetes/rollout.ts's replicaSetsOf returns them. Only
 * those of the current template's shape count; of them, an older revision whose image has no
 * version tag is no version to go back to, and is passed over.
 */
export function historyOf(deployment: Deployment, replicaSets: ReplicaSet[]): DeployHistory {
  const current = versionOf(deployment.spec.template);
  const shape = shapeOf(deployment.spec.template);
  const newestFirst = replicaSets.filter((rs) => shapeOf(rs.spec.template) === shape).reverse();
  const previousSet = newestFirst.find((rs) => {
    const tag = tagOf(rs.spec.template);
    return tag !== undefined && tag !== current;
  });
  // The run of current-version revisions since the previous version (empty before the controller's first).
  const sinceThen = (previousSet ? newestFirst.slice(0, newestFirst.indexOf(previousSet)) : newestFirst).filter((rs) => tagOf(rs.spec.template) === current);
  const deployedAt = sinceThen.at(-1)?.metadata.creationTimestamp ?? deployment.metadata.creationTimestamp ?? new Date().toISOString();
  return { current, previous: previousSet ? versionOf(previousSet.spec.template) : current, deployedAt };
}

/**
 * The revert's change of `template`: each container running the current version's image moved to
 * `version`, in the same repository (a digest pinning the current build names no other, so it is
 * dropped), as a strategic merge patch's container list (keyed by name, so no other container or
 * field of theirs changes).
 */
export function retagged(template: PodTemplateSpec, version: string): Array<{ name: string; image: string }> {
  if (!VERSION.test(version)) throw new ToolRefused(`${JSON.stringify(version)} is not a version such as v1.4.2`, 'revert_target_invalid');
  const now = imageOf(template.spec.containers[0]?.image ?? '');
  return template.spec.containers
    .filter((c) => {
      const image = imageOf(c.image);
      return image.repository === now.repository && image.tag === now.tag;
    })
    .map((c) => ({ name: c.name, image: `${now.repository}:${version}` }));
}
