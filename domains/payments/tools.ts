// Payments tools against the simulated systems of record. Sensitive fields of the reissue
// (destination, amount) are never sent: the processor takes them from the stored transfer.
import type { DomainImplementation, ToolContext } from '../implementation.js';
import type { PaymentsClaim } from './domain.js';
import type { z } from 'zod';
import { paymentsPolicy } from './policy.js';

type ByTransfer = { transferId: string };

export const paymentsImplementation: DomainImplementation = {
  tools: {
    read_replica: (args: ByTransfer, ctx: ToolContext) => ctx.world.getReplica(args.transferId, { timeoutMs: ctx.timeoutMs }),
    read_ledger: (args: ByTransfer, ctx: ToolContext) => ctx.world.getLedger(args.transferId, { timeoutMs: ctx.timeoutMs }),
    read_processor_ack: (args: ByTransfer, ctx: ToolContext) => ctx.world.getProcessorAck(args.transferId, { timeoutMs: ctx.timeoutMs }),
    reissue_transfer: (args: ByTransfer & { reason: string }, ctx: ToolContext) =>
      ctx.world.reissue(
        { transferId: args.transferId, reason: args.reason, idempotencyKey: requireKey(ctx) },
        { timeoutMs: ctx.timeoutMs },
      ),
  },
  readbacks: {
    read_reissue: async (key, ctx) => {
      const found = await ctx.world.getReissueByKey(key, { timeoutMs: ctx.timeoutMs });
      return found.applied && found.reissue ? { applied: true, output: found.reissue } : { applied: false };
    },
  },
  async probe(claim, ctx) {
    const { transferStatus } = claim as z.infer<typeof PaymentsClaim>;
    const [ledger, processor] = await Promise.all([
      ctx.world.getLedger(ctx.caseId, { timeoutMs: ctx.timeoutMs }),
      ctx.world.getProcessorAck(ctx.caseId, { timeoutMs: ctx.timeoutMs }),
    ]);
    const facts = { 'ledger.status': ledger.status, 'processor.ack': processor.ack };
    if (ledger.status === 'SETTLED' && processor.ack === 'REJECTED') {
      return { holds: false, conflict: true, decided: true, detail: 'ledger SETTLED but processor REJECTED', facts };
    }
    const holds = ledger.status === transferStatus;
    return { holds, conflict: false, decided: true, detail: `ledger says ${ledger.status}${holds ? '' : `, not ${transferStatus}`}`, facts };
  },
  policy: paymentsPolicy,
};

function requireKey(ctx: ToolContext): string {
  if (!ctx.idempotencyKey) throw new Error('bug: an effect was dispatched without an idempotency key');
  return ctx.idempotencyKey;
}
