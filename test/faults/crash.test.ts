// Real worker processes, killed with SIGKILL at exact points of an effect's life. The world's
// call log and effect store are the ground truth: exactly one effect per key, whatever happens.
import { describe, expect, inject, it } from 'vitest';
import { PATIENCE_MS, waitUntil } from '../support/wait.js';
import { WorldClient } from '../../domains/world/client.js';
import { stateQuery } from '../../workflows/messages.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { spawnWorker } from '../support/crash.js';
import { seedIncident } from '../../domains/world/seeds.js';
import { uniqueTaskQueue, useClient } from '../support/temporal.js';

describe('effects exactly once across worker crashes', () => {
  const client = useClient();
  const world = new WorldClient(inject('worldUrl'));

  const restarts = async (caseId: string) => ({
    stored: (await world.effects({ key: caseId })).filter((e) => e.kind === 'restart'),
    requests: (await world.calls({ key: caseId, op: 'incidents.restart' })).length,
  });

  /**
   * An incident run whose worker is SIGKILLed while the restart request is parked at `point`;
   * `settle` then decides what became of that request, and a fresh worker finishes the run.
   */
  const crashDuringRestart = async (point: 'after_commit' | 'before_commit', settle: (holdId: string) => Promise<unknown>) => {
    const caseId = uniqueCase('INC');
    await seedIncident(world, caseId);
    const taskQueue = uniqueTaskQueue('crash');
    const { holdId } = await world.createHold({ op: 'incidents.restart', key: caseId, point });
    const first = await spawnWorker(taskQueue);
    const handle = await startRun({ client: client(), taskQueue }, { domain: 'incidents', caseId, model: { adapter: 'rules' } });

    await world.waitForHold(holdId, { timeoutMs: PATIENCE_MS });
    await first.kill();
    await settle(holdId);
    const second = await spawnWorker(taskQueue);
    const result = await handle.result();
    await second.stop();
    return { caseId, result };
  };

  it('killed right after the effect commits: reconciled by readback, never sent again', async () => {
    // The effect is stored; its reply goes to a dead socket.
    const { caseId, result } = await crashDuringRestart('after_commit', (holdId) => world.releaseHold(holdId));

    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(await restarts(caseId)).toMatchObject({ stored: [expect.anything()], requests: 1 });
    expect(result.effects).toEqual([expect.objectContaining({ tool: 'restart_service', status: 'applied', settledBy: 'readback', attempts: 1 })]);
  });

  it('killed before the effect reaches the system: read back as not applied, then it runs once', async () => {
    // As if the request never got through.
    const { caseId, result } = await crashDuringRestart('before_commit', (holdId) => world.dropHold(holdId));

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
    const handle = await startRun({ client: client(), taskQueue }, { domain: 'incidents', caseId, model: { adapter: 'rules', latencyMs: 1_500 } });

    // Turn 3 is the model deciding to restart; kill the worker while it "thinks".
    await waitUntil(async () => {
      const view = await handle.query(stateQuery);
      return view.state.phase.name === 'proposing' && view.state.turn === 3;
    }, 'turn 3');
    await new Promise((r) => setTimeout(r, 300));
    await first.kill();
    const second = await spawnWorker(taskQueue);
    const result = await handle.result();
    await second.stop();

    expect(result.terminal.class).toBe('resolved');
    expect(await restarts(caseId)).toMatchObject({ stored: [expect.anything()], requests: 1 });
    const history = await handle.fetchHistory();
    const proposeAttempts = (history.events ?? []).filter(
      (e) => e.activityTaskStartedEventAttributes && (e.activityTaskStartedEventAttributes.attempt ?? 1) > 1,
    );
    expect(proposeAttempts.length).toBeGreaterThanOrEqual(1);
  });
});
