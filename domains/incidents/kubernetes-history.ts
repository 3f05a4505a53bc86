// A service's deploy history, read from its ReplicaSets: the version is the tag of the pod
// template's first container image (`registry.example/api:v1.4.2`), the current version is the
// Deployment's template's, and the previous version is that of the newest ReplicaSet whose version
// differs. A restart makes a revision but deploys nothing, so "previous" skips the revisions a
// restart made: a revert after a restart still goes back to the last other version, as
// `get_deploys` promises. The ReplicaSet holding it is what a revert rolls back to.
import { ToolRefused } from '../../worker/public.js';
import type { Deployment, PodTemplateSpec, ReplicaSet } from '../../kubernetes/resources.js';

/** The version shape the incidents contract accepts (domains/incidents/domain.ts). */
const VERSION = /^v\d{1,4}(\.\d{1,4}){0,2}$/;

export interface DeployHistory {
  current: string;
  /** The last other version; the current one when there is none (nothing to revert to). */
  previous: string;
  /** The newest ReplicaSet of the previous version: a revert's template. */
  previousSet?: ReplicaSet;
  /** When the current version was first rolled out (its oldest ReplicaSet in the current run of it). */
  deployedAt: string;
}

/** The version tag of a pod template's first image, if it has one. */
function tagOf(template: PodTemplateSpec): string | undefined {
  const image = template.spec.containers[0]?.image ?? '';
  const name = image.split('@')[0] ?? '';
  const tag = name.lastIndexOf(':') > name.lastIndexOf('/') ? name.slice(name.lastIndexOf(':') + 1) : '';
  return VERSION.test(tag) ? tag : undefined;
}

/** The version a pod template runs; refused when its image carries no version tag. */
export function versionOf(template: PodTemplateSpec): string {
  const tag = tagOf(template);
  if (tag === undefined)
    throw new ToolRefused(`image ${JSON.stringify(template.spec.containers[0]?.image ?? '')} has no version tag such as v1.4.2`, 'image_not_versioned');
  return tag;
}

/**
 * `replicaSets` oldest revision first, as kubernetes/rollout.ts's replicaSetsOf returns them. An
 * older revision whose image has no version tag is no version to go back to, and is passed over.
 */
export function historyOf(deployment: Deployment, replicaSets: ReplicaSet[]): DeployHistory {
  const current = versionOf(deployment.spec.template);
  const newestFirst = [...replicaSets].reverse();
  const previousSet = newestFirst.find((rs) => {
    const tag = tagOf(rs.spec.template);
    return tag !== undefined && tag !== current;
  });
  // The run of current-version revisions since the previous version (empty before the controller's first).
  const sinceThen = (previousSet ? newestFirst.slice(0, newestFirst.indexOf(previousSet)) : newestFirst).filter((rs) => tagOf(rs.spec.template) === current);
  const deployedAt = sinceThen.at(-1)?.metadata.creationTimestamp ?? deployment.metadata.creationTimestamp ?? new Date().toISOString();
  return { current, previous: previousSet ? versionOf(previousSet.spec.template) : current, ...(previousSet ? { previousSet } : {}), deployedAt };
}
