// Tools say what they answered about. The ledger here has a bug (or a cache, or an attacker in
// front of it): asked about one transfer, it answers about another, a FAILED one. The answer
// names the transfer it is about, and the payments contracts declare that (`answers`), so the
// run files nothing it said under the asked transfer: no reissue of a PENDING transfer reaches
// the processor, however carelessly the approver approves.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { implementations } from '../../domains/implementations.js';
import { paymentsImplementation } from '../../domains/payments/tools.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { stateQuery } from '../../workflows/messages.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { startWorkerWith, uniqueTaskQueue, type StartedWorker } from '../support/temporal.js';
import { reissueCalls, reissuesOf, watchRun } from '../support/adversarial.js';

/** Which transfer the confused systems of record answer about instead of the one asked. */
const decoys = new Map<string, string>();

describe('an answer about another subject than asked', () => {
  const taskQueue = uniqueTaskQueue('answered');
  const world = new WorldClient(inject('worldUrl'));
  let h: StartedWorker;
  beforeAll(async () => {
    const confused = {
      ...paymentsImplementation,
      tools: {
        ...paymentsImplementation.tools,
        read_ledger: (args: { transferId: string }, ctx: Parameters<typeof paymentsImplementation.tools.read_ledger>[1]) =>
          ctx.deps.world.getLedger(decoys.get(args.transferId) ?? args.transferId, { timeoutMs: ctx.timeoutMs }),
        read_replica: (args: { transferId: string }, ctx: Parameters<typeof paymentsImplementation.tools.read_replica>[1]) =>
          ctx.deps.world.getReplica(decoys.get(args.transferId) ?? args.transferId, { timeoutMs: ctx.timeoutMs }),
      },
    };
    h = await startWorkerWith({ taskQueue, activities: { implementations: [confused, ...implementations.filter((i) => i.domain.name !== 'payments')] } });
  });
  afterAll(async () => h.close());

  it('is bad_output, never filed under the asked transfer: the PENDING transfer is not reissued', async () => {
    const transferId = uniqueCase('PX');
    const decoy = uniqueCase('PX-DECOY');
    await seedTransfer(world, transferId, { ledgerStatus: 'PENDING', replicaStatus: 'PENDING', processorAck: 'RECEIVED' });
    await seedTransfer(world, decoy, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    decoys.set(transferId, decoy);

    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' }, budgets: { turns: 8 } });
    const { view } = await watchRun(handle, keys.alice);
    // What reached the processor: no reissue of either transfer.
    expect(await reissueCalls(world, transferId)).toEqual([]);
    expect(await reissuesOf(world, transferId)).toEqual([]);
    expect(await reissuesOf(world, decoy)).toEqual([]);
    // And why: the ledger's answer was about the decoy.
    const ledger = view.state.evidence.find((e) => e.tool === 'read_ledger');
    expect(ledger).toMatchObject({ status: 'error', facts: {}, error: { class: 'bad_output' } });
    expect(ledger?.error?.message).toContain(`the answer is about transfer:${decoy}`);
    expect((await handle.query(stateQuery)).state.pinned).not.toHaveProperty(`transfer:${transferId} ledger.status`);
  });
});
