// Worker Versioning for agent workers: which Worker Deployment Version (deployment name and
// build id) a worker belongs to, and how its runs move between builds. Off unless configured,
// so a worker without a deployment polls exactly as before.
//
// The default is PINNED: a run stays on the build that started it, so a deploy never replays a
// run's history on code it was not written by, and an approval that waits for hours is decided
// on the code that asked for it. A pinned run moves to the new build only at the engine's own
// continue-as-new (workflows/agent.ts, at a quiet point, when the server says the deployment's
// current version is no longer the run's), and moves with its folded state, which the new
// build loads (and migrates) like any carried state. AUTO_UPGRADE is there for a team that
// guards every workflow change with patched() and wants no old builds kept; see
// docs/operations.md, "Deploying new code: Worker Versioning".
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import { z } from 'zod';
import { AgentWorkerError } from '../activities/worker-error.js';

export const VersioningBehaviorSetting = z.enum(['PINNED', 'AUTO_UPGRADE']);

/** A worker's place in a Worker Deployment. */
export const AgentDeployment = z.strictObject({
  /** The deployment, e.g. `payments-agents`: the same for every build of these workers. */
  deploymentName: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[^.]+$/, 'may not contain a dot (Temporal joins name and build id with one)'),
  /** This build, e.g. a git sha or image tag: a new one for every change to workflow code. */
  buildId: z.string().trim().min(1).max(200),
  /** How runs on this worker move between builds (default PINNED, see above). */
  behavior: VersioningBehaviorSetting.default('PINNED'),
});
export type AgentDeployment = z.input<typeof AgentDeployment>;

/** A deployment setting that cannot be used, named by where it came from. */
export class DeploymentConfigError extends AgentWorkerError {
  static override readonly errorName: string = 'DeploymentConfigError';
}

/** The Worker.create option for a deployment (checked here, so a typo fails at start, in one line). */
export function workerDeploymentOptions(deployment: AgentDeployment): WorkerDeploymentOptions {
  const parsed = AgentDeployment.safeParse(deployment);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DeploymentConfigError(`worker deployment: ${issue?.path.join('.') || 'value'} ${issue?.message ?? 'is invalid'}`);
  }
  const { deploymentName, buildId, behavior } = parsed.data;
  return { useWorkerVersioning: true, version: { deploymentName, buildId }, defaultVersioningBehavior: behavior };
}

/**
 * AGENT_DEPLOYMENT_NAME and AGENT_BUILD_ID (both, or neither: versioning off), and
 * AGENT_VERSIONING_BEHAVIOR (PINNED, the default, or AUTO_UPGRADE).
 */
export function deploymentFromEnv(env: Readonly<Record<string, string | undefined>>): AgentDeployment | undefined {
  const name = env.AGENT_DEPLOYMENT_NAME?.trim();
  const buildId = env.AGENT_BUILD_ID?.trim();
  const behavior = env.AGENT_VERSIONING_BEHAVIOR?.trim().toUpperCase();
  if (!name && !buildId) {
    if (behavior)
      throw new DeploymentConfigError(
        'AGENT_VERSIONING_BEHAVIOR is set but AGENT_DEPLOYMENT_NAME and AGENT_BUILD_ID are not: set both to run under Worker Versioning',
      );
    return undefined;
  }
  if (!name) throw new DeploymentConfigError('AGENT_BUILD_ID is set but AGENT_DEPLOYMENT_NAME is not: a build belongs to a deployment, set both');
  if (!buildId)
    throw new DeploymentConfigError('AGENT_DEPLOYMENT_NAME is set but AGENT_BUILD_ID is not: set the build id of this code (a git sha, an image tag)');
  const checkedBehavior = behavior ? VersioningBehaviorSetting.safeParse(behavior) : undefined;
  if (checkedBehavior && !checkedBehavior.success) throw new DeploymentConfigError(`AGENT_VERSIONING_BEHAVIOR must be PINNED or AUTO_UPGRADE, got ${behavior}`);
  const deployment: AgentDeployment = { deploymentName: name, buildId, ...(checkedBehavior?.success ? { behavior: checkedBehavior.data } : {}) };
  workerDeploymentOptions(deployment); // the same checks as an option given in code
  return deployment;
}

/** `payments-agents.4f2a9c1`: Temporal's canonical name of a version, as operators see it in its CLI and UI. */
export function versionName(deployment: Pick<AgentDeployment, 'deploymentName' | 'buildId'>): string {
  return `${deployment.deploymentName}.${deployment.buildId}`;
}
