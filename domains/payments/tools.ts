// Payments tools against the simulated systems of record. Sensitive fields of the reissue
// (destination, amount) are never sent: the processor takes them from the stored transfer.
import { implement } from '../../worker/public.js';
import { classifyWorldError } from '../world/classify.js';
import type { WorldDeps } from '../world/deps.js';
import { effectStamp } from '../world/stamp.js';
import { payments } from './domain.js';
import { paymentsPolicy } from './policy.js';

export const paymentsImplementation = implement(payments).with<WorldDeps>({
  tools: {
    read_replica: (args, ctx) => ctx.deps.world.getReplica(args.transferId, { timeoutMs: ctx.timeoutMs }),
    read_ledger: (args, ctx) => ctx.deps.world.getLedger(args.transferId, { timeoutMs: ctx.timeoutMs }),
    read_processor_ack: (args, ctx) => ctx.deps.world.getProcessorAck(args.transferId, { timeoutMs: ctx.timeoutMs }),
    reissue_transfer: (args, ctx) =>
      ctx.deps.world.reissue({ transferId: args.transferId, reason: args.reason, ...effectStamp(ctx) }, { timeoutMs: ctx.timeoutMs }),
  },
  readbacks: {
    // The ledger can fence a key: a "not applied" read this way is final, since a request still
    // on its way is refused when it arrives.
    read_reissue: async (key, ctx) => {
      const found =
        ctx.fenceBefore === undefined
          ? await ctx.deps.world.getReissueByKey(key, { timeoutMs: ctx.timeoutMs })
          : await ctx.deps.world.fenceReissueKey(key, { before: ctx.fenceBefore, transferId: ctx.caseId }, { timeoutMs: ctx.timeoutMs });
      if (found.applied && found.reissue) return { applied: true, output: found.reissue };
      return found.fenced ? { applied: false, fenced: true } : { applied: false };
    },
  },
  async probe(claim, ctx) {
    const [ledger, processor] = await Promise.all([
      ctx.deps.world.getLedger(ctx.caseId, { timeoutMs: ctx.timeoutMs }),
      ctx.deps.world.getProcessorAck(ctx.caseId, { timeoutMs: ctx.timeoutMs }),
    ]);
    const facts = { 'ledger.status': ledger.status, 'processor.ack': processor.ack, 'ledger.reissueId': ledger.reissueId ?? null };
    if (ledger.status === 'SETTLED' && processor.ack === 'REJECTED') {
      return { holds: false, conflict: true, decided: true, detail: 'ledger SETTLED but processor REJECTED', facts };
    }
    if (ledger.status !== claim.transferStatus) {
      return { holds: false, conflict: false, decided: true, detail: `ledger says ${ledger.status}, not ${claim.transferStatus}`, facts };
    }
    // A FAILED transfer is resolved only by its reissue: the ledger must have paid one.
    if (claim.transferStatus === 'FAILED' && !ledger.reissueId) {
      return { holds: false, conflict: false, decided: true, detail: 'ledger says FAILED and shows no reissue of it', facts };
    }
    return {
      holds: true,
      conflict: false,
      decided: true,
      detail: `ledger says ${ledger.status}${ledger.reissueId ? `, reissued as ${ledger.reissueId}` : ''}`,
      facts,
    };
  },
  policy: paymentsPolicy,
  classify: classifyWorldError,
});
