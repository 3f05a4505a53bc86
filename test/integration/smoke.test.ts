import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { describe, expect, inject, it } from 'vitest';
import { pingActivities } from '../../activities/ping.js';
import { pingWorkflow } from '../../workflows/ping.js';
import { bundleWorkflows } from '../../worker/bundle.js';
import { queryEnded } from '../support/replay-evidence.js';
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

  it('a query of an ended run whose replay fails says what the history held around the event named', async () => {
    const taskQueue = uniqueTaskQueue('smoke-query');
    const first = await createTestWorker({ taskQueue, activities: pingActivities });
    const workflowId = `smoke-query-${randomUUID()}`;
    await first.worker.runUntil(client().workflow.execute(pingWorkflow, { taskQueue, workflowId, args: ['x'] }));
    await first.close();
    // A worker with the incompatible code answers the query: it replays the run and fails.
    const changed = await createTestWorker(
      { taskQueue, activities: pingActivities },
      fileURLToPath(new URL('../fixtures/changed-ping-workflow.ts', import.meta.url)),
    );
    const handle = client().workflow.getHandle(workflowId);
    const failure = await changed.worker.runUntil(
      queryEnded(handle, () => handle.query('__stack_trace')).then(
        () => undefined,
        (err: unknown) => err,
      ),
    );
    await changed.close();
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/Nondeterminism error: .*HistoryEvent\(id: \d+/);
    expect((failure as Error).message).toMatch(/the history around event \d+ \(all of it in .*\.json\):\n\s+\d+ \w+Attributes/);
  });
});
