// Which build a run is on, as the server records it: under Worker Versioning (worker/deployment.ts)
// every execution belongs to a Worker Deployment Version (deployment name and build id) and is
// pinned to it or auto-upgrading, and may be moving to another one. `status`, `list` and the
// console show it, so an operator can tell whether a deploy may retire a build: the runs still
// pinned to it need its workers. The server's raw protobuf objects are read here field by field
// (plain objects, no client), so the console's views can use the words too.
import { defineSearchAttributeKey, SearchAttributeType, type TypedSearchAttributes } from '@temporalio/common';
import { z } from 'zod';

export const RunBuild = z.strictObject({
  deploymentName: z.string(),
  buildId: z.string(),
  /** How the run moves between builds: pinned (stays on this one) or auto_upgrade; null when not yet recorded. */
  behavior: z.enum(['pinned', 'auto_upgrade']).nullable(),
  /** Set when an operator pinned the run to a build by hand (a versioning override). */
  pinnedByOperator: z.boolean(),
  /** The build the run is moving to, while the server moves it. */
  movingTo: z.string().optional(),
});
export type RunBuild = z.infer<typeof RunBuild>;

// temporal.api.enums.v1.VersioningBehavior: the request and response carry numbers (or names, in JSON).
const BEHAVIORS: Record<string, RunBuild['behavior']> = {
  '1': 'pinned',
  '2': 'auto_upgrade',
  VERSIONING_BEHAVIOR_PINNED: 'pinned',
  VERSIONING_BEHAVIOR_AUTO_UPGRADE: 'auto_upgrade',
};

type Raw = Record<string, unknown> | null | undefined;

/**
 * The build of an execution from its versioning info (DescribeWorkflowExecution's
 * workflowExecutionInfo.versioningInfo, or a listed execution's); null for a run that is not
 * under Worker Versioning.
 */
export function buildOfVersioningInfo(info: unknown): RunBuild | null {
  const v = object(info);
  if (!v) return null;
  const override = object(v.versioningOverride);
  const pinnedOverride = object(override?.pinned);
  // An operator's pin wins over the build the run last completed a task on.
  const version = versionOf(pinnedOverride?.version) ?? versionOf(v.deploymentVersion) ?? versionOf(fromCanonical(v.version));
  if (!version) return null;
  const movingTo = versionOf(object(v.versionTransition)?.deploymentVersion);
  const behavior = BEHAVIORS[String(v.behavior ?? '')] ?? null;
  return RunBuild.parse({
    ...version,
    behavior: pinnedOverride ? 'pinned' : behavior,
    pinnedByOperator: !!pinnedOverride,
    ...(movingTo ? { movingTo: `${movingTo.deploymentName}.${movingTo.buildId}` } : {}),
  });
}

/**
 * The build of an execution the client described or listed: a description's raw response holds
 * it under workflowExecutionInfo, a listed execution's raw info holds it directly.
 */
export function buildOf(info: { raw: unknown; typedSearchAttributes: TypedSearchAttributes }): RunBuild | null {
  const raw = object(info.raw);
  return (
    buildOfVersioningInfo(object(raw?.workflowExecutionInfo)?.versioningInfo ?? raw?.versioningInfo) ?? buildOfSearchAttributes(info.typedSearchAttributes)
  );
}

// What the server's visibility store holds of a versioned execution (a listed one has no
// versioning info): the deployment, `deployment:build`, and `Pinned` or `AutoUpgrade`.
const deploymentKey = defineSearchAttributeKey('TemporalWorkerDeployment', SearchAttributeType.KEYWORD);
const versionKey = defineSearchAttributeKey('TemporalWorkerDeploymentVersion', SearchAttributeType.KEYWORD);
const behaviorKey = defineSearchAttributeKey('TemporalWorkflowVersioningBehavior', SearchAttributeType.KEYWORD);

/** The build of a listed execution, from the system search attributes the server keeps for versioned runs. */
export function buildOfSearchAttributes(sa: TypedSearchAttributes): RunBuild | null {
  const deploymentName = sa.get(deploymentKey);
  const version = sa.get(versionKey);
  if (!deploymentName || !version?.startsWith(`${deploymentName}:`)) return null;
  const behavior = sa.get(behaviorKey);
  return RunBuild.parse({
    deploymentName,
    buildId: version.slice(deploymentName.length + 1),
    behavior: behavior === 'Pinned' ? 'pinned' : behavior === 'AutoUpgrade' ? 'auto_upgrade' : null,
    pinnedByOperator: false,
  });
}

/** `payments-agents.4f2a9c1 (pinned)`: the build in an operator's words. */
export function buildWords(build: RunBuild): string {
  const how = build.pinnedByOperator ? 'pinned by an operator' : (build.behavior?.replace('_', '-') ?? 'versioning behaviour not yet recorded');
  return `${build.deploymentName}.${build.buildId} (${how}${build.movingTo ? `, moving to ${build.movingTo}` : ''})`;
}

/** The short form for a list's column: `4f2a9c1` or `4f2a9c1 pinned`. */
export function buildCell(build: RunBuild | null | undefined): string {
  if (!build) return '-';
  return build.behavior === 'pinned' ? `${build.buildId} pinned` : build.buildId;
}

function versionOf(raw: unknown): { deploymentName: string; buildId: string } | undefined {
  const v = object(raw);
  const deploymentName = typeof v?.deploymentName === 'string' ? v.deploymentName : '';
  const buildId = typeof v?.buildId === 'string' ? v.buildId : '';
  return deploymentName && buildId ? { deploymentName, buildId } : undefined;
}

/** The deprecated `deploymentName.buildId` string some servers still send alone. */
function fromCanonical(version: unknown): Raw {
  if (typeof version !== 'string') return undefined;
  const dot = version.indexOf('.');
  return dot > 0 ? { deploymentName: version.slice(0, dot), buildId: version.slice(dot + 1) } : undefined;
}

function object(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}
