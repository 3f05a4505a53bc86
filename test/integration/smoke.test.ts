import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { describe, expect, inject, it } from 'vitest';
import { pingActivities } from '../../activities/ping.js';
import { pingWorkflow } from '../../workflows/ping.js';
import { bundleWorkflows } from '../../worker/bundle.js';
import { createTestWorker, uniqueTaskQueue, useClient } from '../support/temporal.js';

describe('real Temporal underneath', () => {
  const client = useClient();

  it('runs a workflow with an activity on a real worker, then replays its history', async () => {
    const taskQueue = uniqueTaskQueue('smoke');
    const { worker, close } = await createTestWorker({ taskQueue, activities: pingActivities });
    const workflowId = `smoke-${randomUUID()}`;
    const result = await worker.runUntil(client().workflow.execute(pingWorkflow, { taskQueue, workflowId, args: ['hello'] }));
    await close();
    expect(result).toBe('pong: hello (activity attempt 1)');

    const history = await client().workflow.getHandle(workflowId).fetchHistory();
    expect(history.events?.some((e) => e.activityTaskCompletedEventAttributes)).toBe(true);
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, workflowId);
  });

  it('fails replay when the workflow code changed incompatibly', async () => {
    const taskQueue = uniqueTaskQueue('smoke-neg');
    const { worker, close } = await createTestWorker({ taskQueue, activities: pingActivities });
    const workflowId = `smoke-neg-${randomUUID()}`;
    await worker.runUntil(client().workflow.execute(pingWorkflow, { taskQueue, workflowId, args: ['x'] }));
    await close();
    const history = await client().workflow.getHandle(workflowId).fetchHistory();

    // Same workflow type, but it now sleeps before the activity: a different command sequence.
    const changed = await bundleWorkflows(fileURLToPath(new URL('../fixtures/changed-ping-workflow.ts', import.meta.url)));
    await expect(Worker.runReplayHistory({ workflowBundle: changed }, history, workflowId)).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
