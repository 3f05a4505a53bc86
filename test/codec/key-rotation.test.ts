// Key rotation with a run in flight: a payments run started under key k1 waits for approval; the
// worker and the client are stopped and started again with a ring whose current key is k2 (and
// which still holds k1). The new worker replays the whole k1 history, the approval and everything
// after it are sealed under k2, and the run finishes. A ring without k1 cannot read the old run.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, inject, it } from 'vitest';
import { signDecision } from '../../client/sign.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { approveUpdate, stateQuery, type RunView } from '../../workflows/messages.js';
import { loadPayloadCodec, payloadKeyId, UnknownPayloadKeyError } from '../../worker/payload-codec.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { codecPayloadsOf, newKey, rawHistory, ringEnv, startStack } from '../support/codec.js';

const world = new WorldClient(inject('worldUrl'));
const k1 = newKey();
const k2 = newKey();

async function awaitingView(query: () => Promise<RunView>): Promise<RunView> {
  for (;;) {
    const view = await query();
    if (view.state.terminal) throw new Error(`the run ended before asking: ${view.state.terminal.reason}`);
    if (view.awaiting) return view;
    await sleep(50);
  }
}

describe('key rotation with a run in flight (real dev server, real worker restarted)', () => {
  it('a run started under k1 finishes under k2 after the worker and client restart on the rotated ring', async () => {
    const taskQueue = uniqueTaskQueue('rotate');
    const transferId = uniqueCase('PX');
    await seedTransfer(world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });

    const before = await startStack(taskQueue, ringEnv('k1', { k1 }));
    const handle = await startRun({ client: before.client, taskQueue }, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const workflowId = handle.workflowId;
    await awaitingView(() => handle.query(stateQuery));
    const historyBefore = await rawHistory(before.raw, workflowId);
    await before.close();
    const sealedBefore = codecPayloadsOf(historyBefore);
    expect(new Set(sealedBefore.map((p) => payloadKeyId(p.payload)))).toEqual(new Set(['k1']));

    // A ring that dropped k1 cannot read the run: a typed error naming the key, not garbage.
    const lostError = await loadPayloadCodec(ringEnv('k2', { k2 }))!
      .decode([sealedBefore[0]!.payload])
      .catch((e: unknown) => e);
    expect(lostError).toBeInstanceOf(UnknownPayloadKeyError);
    expect(lostError).toMatchObject({ keyId: 'k1' });

    const after = await startStack(taskQueue, ringEnv('k2', { k1, k2 }));
    try {
      const resumed = after.client.workflow.getHandle(workflowId);
      // The query is answered by the new worker, which replayed every k1 payload to get here.
      const view = await awaitingView(() => resumed.query(stateQuery));
      const ack = await resumed.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, workflowId, view.awaiting!, 'approve', 'after rotation')] });
      expect(ack.decision).toBe('approved');
      const result = await resumed.result();
      expect(result.terminal.class).toBe('resolved');
      expect(await world.calls({ key: transferId, op: 'payments.reissue' })).toHaveLength(1);

      const history = await rawHistory(after.raw, workflowId);
      const found = codecPayloadsOf(history);
      const keyAt = (path: string) => found.filter((p) => p.path.startsWith(path)).map((p) => payloadKeyId(p.payload));
      const events = history.events ?? [];
      const index = (pick: (e: (typeof events)[number]) => unknown) => events.findIndex((e) => pick(e));
      // Written before the restart: k1, still there and still read.
      expect(keyAt('events.0.')).toEqual(['k1']);
      const accepted = index((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
      const completed = index((e) => e.workflowExecutionCompletedEventAttributes);
      // Written after it: the update's input, its outcome and the run's result are k2.
      expect(keyAt(`events.${accepted}.`)).toEqual(['k2']);
      expect(keyAt(`events.${completed}.`)).toEqual(['k2']);
      const ids = found.map((p) => payloadKeyId(p.payload));
      expect(ids.every((id) => id === 'k1' || id === 'k2')).toBe(true);
      expect(ids.indexOf('k2')).toBeGreaterThan(ids.lastIndexOf('k1'));
    } finally {
      await after.close();
    }
  });
});
