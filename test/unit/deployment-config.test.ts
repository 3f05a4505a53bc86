// Worker Versioning is configured from the environment or from code, and is off unless both
// halves of a version are given; a half-given or misspelt setting stops the worker in one
// line. The build a run is on is read from what the server sends (a description's versioning
// info, a listed execution's system search attributes), field by field. No server here.
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { buildCell, buildOf, buildOfSearchAttributes, buildOfVersioningInfo, buildWords } from '../../client/run-build.js';
import { deploymentFromEnv, DeploymentConfigError, versionName, workerDeploymentOptions } from '../../worker/deployment.js';

describe('deployment settings', () => {
  it('are off when nothing is set, and default to pinned when both halves are', () => {
    expect(deploymentFromEnv({})).toBeUndefined();
    const deployment = deploymentFromEnv({ AGENT_DEPLOYMENT_NAME: 'payments-agents', AGENT_BUILD_ID: '4f2a9c1' });
    expect(deployment).toEqual({ deploymentName: 'payments-agents', buildId: '4f2a9c1' });
    expect(workerDeploymentOptions(deployment as NonNullable<typeof deployment>)).toEqual({
      useWorkerVersioning: true,
      version: { deploymentName: 'payments-agents', buildId: '4f2a9c1' },
      defaultVersioningBehavior: 'PINNED',
    });
    expect(versionName({ deploymentName: 'payments-agents', buildId: '4f2a9c1' })).toBe('payments-agents.4f2a9c1');
    const auto = deploymentFromEnv({ AGENT_DEPLOYMENT_NAME: 'd', AGENT_BUILD_ID: 'b', AGENT_VERSIONING_BEHAVIOR: 'auto_upgrade' });
    expect(workerDeploymentOptions(auto as NonNullable<typeof auto>).defaultVersioningBehavior).toBe('AUTO_UPGRADE');
  });

  it('refuse half a version, an unknown behaviour and a deployment name with a dot', () => {
    const refused = (env: Record<string, string>) => {
      try {
        deploymentFromEnv(env);
      } catch (err) {
        expect(err).toBeInstanceOf(DeploymentConfigError);
        return (err as Error).message;
      }
      throw new Error(`accepted ${JSON.stringify(env)}`);
    };
    expect(refused({ AGENT_BUILD_ID: 'b' })).toMatch(/AGENT_DEPLOYMENT_NAME is not/);
    expect(refused({ AGENT_DEPLOYMENT_NAME: 'd' })).toMatch(/AGENT_BUILD_ID is not/);
    expect(refused({ AGENT_VERSIONING_BEHAVIOR: 'PINNED' })).toMatch(/set both/);
    expect(refused({ AGENT_DEPLOYMENT_NAME: 'd', AGENT_BUILD_ID: 'b', AGENT_VERSIONING_BEHAVIOR: 'sometimes' })).toMatch(/PINNED or AUTO_UPGRADE/);
    expect(refused({ AGENT_DEPLOYMENT_NAME: 'pay.ments', AGENT_BUILD_ID: 'b' })).toMatch(/dot/);
  });
});

describe('the build a run is on', () => {
  it('comes from a description: the version it is on, pinned by the worker or by an operator, and where it is moving', () => {
    const pinned = buildOfVersioningInfo({ behavior: 1, deploymentVersion: { deploymentName: 'd', buildId: 'a' } });
    expect(pinned).toEqual({ deploymentName: 'd', buildId: 'a', behavior: 'pinned', pinnedByOperator: false });
    expect(buildWords(pinned as NonNullable<typeof pinned>)).toBe('d.a (pinned)');
    expect(buildCell(pinned)).toBe('a pinned');
    const moving = buildOfVersioningInfo({
      behavior: 2,
      deploymentVersion: { deploymentName: 'd', buildId: 'a' },
      versionTransition: { deploymentVersion: { deploymentName: 'd', buildId: 'b' } },
    });
    expect(buildWords(moving as NonNullable<typeof moving>)).toBe('d.a (auto-upgrade, moving to d.b)');
    const byHand = buildOfVersioningInfo({
      behavior: 2,
      deploymentVersion: { deploymentName: 'd', buildId: 'b' },
      versioningOverride: { pinned: { version: { deploymentName: 'd', buildId: 'a' } } },
    });
    expect(byHand).toMatchObject({ buildId: 'a', behavior: 'pinned', pinnedByOperator: true });
    // Only the deprecated canonical string: still read.
    expect(buildOfVersioningInfo({ behavior: 'VERSIONING_BEHAVIOR_PINNED', version: 'd.a' })).toMatchObject({
      deploymentName: 'd',
      buildId: 'a',
      behavior: 'pinned',
    });
    // Not versioned.
    expect(buildOfVersioningInfo(undefined)).toBeNull();
    expect(buildOfVersioningInfo({ behavior: 0 })).toBeNull();
    expect(buildCell(null)).toBe('-');
    expect(
      buildOf({
        raw: { workflowExecutionInfo: { versioningInfo: { behavior: 1, deploymentVersion: { deploymentName: 'd', buildId: 'a' } } } },
        typedSearchAttributes: new TypedSearchAttributes(),
      }),
    ).toMatchObject({ buildId: 'a' });
  });

  it('comes from a listed execution: the system search attributes the server keeps for versioned runs', () => {
    const keyword = (name: string) => defineSearchAttributeKey(name, SearchAttributeType.KEYWORD);
    const sa = new TypedSearchAttributes([
      { key: keyword('TemporalWorkerDeployment'), value: 'd' },
      { key: keyword('TemporalWorkerDeploymentVersion'), value: 'd:build:with:colons' },
      { key: keyword('TemporalWorkflowVersioningBehavior'), value: 'AutoUpgrade' },
    ]);
    expect(buildOfSearchAttributes(sa)).toEqual({ deploymentName: 'd', buildId: 'build:with:colons', behavior: 'auto_upgrade', pinnedByOperator: false });
    expect(buildOf({ raw: {}, typedSearchAttributes: sa })).toMatchObject({ buildId: 'build:with:colons' });
    expect(buildOfSearchAttributes(new TypedSearchAttributes())).toBeNull();
  });
});
