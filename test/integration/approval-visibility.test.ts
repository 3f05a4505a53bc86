// A client that approves the moment it sees a request must never be told "try again": the run
// shows a signed request as awaiting only once it can judge a decision on it (its approver
// directory is loaded). The worker here loads its directory slowly, so the window in which the
// request exists but cannot yet be judged is wide, and the test looks inside it.
import { setTimeout as sleep } from 'node:timers/promises';
import { inject, describe, expect, it, beforeAll, afterAll } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { signDecision } from '../../client/sign.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { approveUpdate, stateQuery, type RunView } from '../../workflows/messages.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { startWorkerWith, uniqueTaskQueue, type StartedWorker } from '../support/temporal.js';
import { pendingRequest } from '../support/phase.js';

/** How long the worker takes to hand over its directory: the window the test looks into. */
const SLOW_DIRECTORY_MS = 1_500;

describe('approve as soon as the request is visible', () => {
  const taskQueue = uniqueTaskQueue('visible');
  const world = new WorldClient(inject('worldUrl'));
  let h: StartedWorker;
  let directoryLoads = 0;

  beforeAll(async () => {
    h = await startWorkerWith({
      taskQueue,
      swap: (built) => ({
        async loadApprovers() {
          directoryLoads++;
          await sleep(SLOW_DIRECTORY_MS);
          return built.loadApprovers();
        },
      }),
    });
  });
  afterAll(async () => h.close());

  const failedTransfer = async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    return transferId;
  };

  it('hides a raised request until its directory has loaded, then accepts an immediate raw approval', async () => {
    const transferId = await failedTransfer();
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });

    // Poll as a hurried client would. Every view in which the run has raised its request but not
    // yet loaded the directory must show no `awaiting`; the first view that shows it is approved
    // on the spot with a raw Update, as an integration that skips AgentClient would.
    let sawLoadingWindow = false;
    let shown: RunView | undefined;
    while (!shown) {
      const view = await handle.query(stateQuery);
      if (view.state.terminal) throw new Error(`the run ended before asking: ${view.state.terminal.reason}`);
      const raised = pendingRequest(view.state);
      if (raised && !raised.eligible) {
        sawLoadingWindow = true;
        expect(view.awaiting).toBeUndefined();
      }
      if (view.awaiting) shown = view;
      else await sleep(20);
    }
    expect(sawLoadingWindow).toBe(true);
    expect(shown.awaiting?.eligible).toContain(keys.alice.id);
    const ack = await handle.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, handle.workflowId, shown.awaiting!, 'approve', 'at once')] });
    expect(ack.decision).toBe('approved');

    const result = await handle.result();
    expect(result.terminal.class).toBe('resolved');
    // What reached the world: exactly one reissue.
    expect(await world.calls({ key: transferId, op: 'payments.reissue' })).toHaveLength(1);
  });

  it('AgentClient.approve sent while the directory loads waits for it and is accepted', async () => {
    const transferId = await failedTransfer();
    const agent = new AgentClient({ client: h.client, taskQueue: h.taskQueue });
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const loadsBefore = directoryLoads;
    // The moment the run is in awaiting_approval by its own state, before the directory is in.
    let requestId: string | undefined;
    while (!requestId) {
      const view = await handle.query(stateQuery);
      requestId = pendingRequest(view.state)?.requestId;
      if (!requestId) await sleep(20);
    }
    const decided = await agent.approve(handle.workflowId, requestId, keys.alice, { comment: 'hurried' });
    expect(decided.decision).toBe('approved');
    expect(directoryLoads).toBeGreaterThan(loadsBefore);
    expect((await handle.result()).terminal.class).toBe('resolved');
    expect(await world.calls({ key: transferId, op: 'payments.reissue' })).toHaveLength(1);
  });
});
