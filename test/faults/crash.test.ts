// Real worker processes, killed with SIGKILL at exact points of an effect's life. The world's
// call log and effect store are the ground truth: exactly one effect per key, whatever happens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { inject } from 'vitest';
import { WorldClient } from '../../domains/world/client.js';
import { agentWorkflow } from '../../workflows/agent.js';
import { stateQuery } from '../../workflows/messages.js';
import type { RunInput } from '../../workflows/run-input.js';
import { uniqueCase } from '../helpers/agent.js';
import { spawnWorker, waitUntil } from '../helpers/crash.js';
import { seedIncident } from '../../domains/world/seeds.js';
import { connectClient, uniqueTaskQueue } from '../helpers/temporal.js';

describe('effects exactly once across worker crashes', () => {
  let client: Client;
  let close: () => Promise<void>;
  const world = new WorldClient(inject('worldUrl'));
  beforeAll(async () => {
    ({ client, close } = await connectClient());
  });
  afterAll(async () => {
    await close();
  });

  const start = (taskQueue: string, run: RunInput) =>
    client.workflow.start(agentWorkflow, { taskQueue, workflowId: `${run.domain}-${run.caseId}`, args: [{ run }] });
  const restarts = async (caseId: string) => ({
    stored: (await world.effects({ key: caseId })).filter((e) => e.kind === 'restart'),
    requests: (await world.calls({ key: caseId, op: 'incidents.restart' })).length,
  });

  it('killed right after the effect commits: reconciled by readback, never sent again', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(world, caseId);
    const taskQueue = uniqueTaskQueue('crash-after');
    const { holdId } = await world.createHold({ op: 'incidents.restart', key: caseId, point: 'after_commit' });
    const first = await spawnWorker(taskQueue);
    const handle = await start(taskQueue, { domain: 'incidents', caseId, model: { adapter: 'rules' } });

    await world.waitForHold(holdId, { timeoutMs: 30_000 });
    await first.kill();
    await world.releaseHold(holdId); // the effect is stored; its reply goes to a dead socket
    const second = await spawnWorker(taskQueue);
    const result = await handle.result();
    await second.stop();

    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(await restarts(caseId)).toMatchObject({ stored: [expect.anything()], requests: 1 });
    expect(result.effects).toEqual([expect.objectContaining({ tool: 'restart_service', status: 'applied', settledBy: 'readback', attempts: 1 })]);
  });

  it('killed before the effect reaches the system: read back as not applied, then it runs once', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(world, caseId);
    const taskQueue = uniqueTaskQueue('crash-before');
    const { holdId } = await world.createHold({ op: 'incidents.restart', key: caseId, point: 'before_commit' });
    const first = await spawnWorker(taskQueue);
    const handle = await start(taskQueue, { domain: 'incidents', caseId, model: { adapter: 'rules' } });

    await world.waitForHold(holdId, { timeoutMs: 30_000 });
    await first.kill();
    await world.dropHold(holdId); // as if the request never got through
    const second = await spawnWorker(taskQueue);
    const result = await handle.result();
    await second.stop();

    expect(result.terminal.class).toBe('resolved');
    const { stored } = await restarts(caseId);
    expect(stored).toHaveLength(1);
    expect(result.effects.map((e) => [e.status, e.settledBy])).toEqual([
      ['not_applied', 'readback'],
      ['applied', 'response'],
    ]);
    expect(stored[0]?.idempotencyKey).toBe(result.effects[1]?.key);
  });

  it('killed during a model call: the run resumes on a new worker and nothing is duplicated', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(world, caseId);
    const taskQueue = uniqueTaskQueue('crash-model');
    const first = await spawnWorker(taskQueue);
    const handle = await start(taskQueue, { domain: 'incidents', caseId, model: { adapter: 'rules', latencyMs: 1_500 } });

    // Turn 3 is the model deciding to restart; kill the worker while it "thinks".
    await waitUntil(async () => {
      const view = await handle.query(stateQuery);
      return view.state.phase === 'proposing' && view.state.turn === 3;
    }, 'turn 3');
    await new Promise((r) => setTimeout(r, 300));
    await first.kill();
    const second = await spawnWorker(taskQueue);
    const result = await handle.result();
    await second.stop();

    expect(result.terminal.class).toBe('resolved');
    expect(await restarts(caseId)).toMatchObject({ stored: [expect.anything()], requests: 1 });
    const history = await handle.fetchHistory();
    const proposeAttempts = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes && (e.activityTaskStartedEventAttributes.attempt ?? 1) > 1);
    expect(proposeAttempts.length).toBeGreaterThanOrEqual(1);
  });
});
