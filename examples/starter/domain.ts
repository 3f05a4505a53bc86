// The starter's domain, the one file that says what the agent may do: cancel an order that was
// placed twice, exactly once, and only with an approver's signed consent. Tools are contracts the
// engine enforces (strict input, typed output, read or effect, freshness, the facts it may
// reason about, the free text it must never obey). This is workflow code: Temporal bundles it
// into its sandbox, so no I/O, no clock, no randomness here; worker.ts does the I/O.
import { agentWorkflowFor, defineDomain, defineTool, z } from 'bounded-react-temporal/workflow';

const OrderId = z.string().regex(/^O-[0-9]{1,12}$/);
const byOrder = z.strictObject({ orderId: OrderId });
const subject = (args: { orderId: string }) => `order:${args.orderId}`;
const Iso = z.iso.datetime({ offset: true });

/** The one read: the order as the order book has it. */
export const readOrder = defineTool({
  name: 'read_order',
  description: "The order as the order book has it: status, amount and the customer's note.",
  input: byOrder,
  output: z.object({ orderId: z.string(), status: z.enum(['OPEN', 'SHIPPED', 'CANCELLED']), amountCents: z.number().int(), note: z.string(), asOf: Iso }),
  kind: 'read',
  source: 'orders',
  authority: 'authoritative',
  subject,
  facts: (o) => ({ 'order.status': o.status, 'order.amountCents': o.amountCents }),
  effectiveAt: (o) => o.asOf,
  freeText: (o) => (o.note ? [o.note] : []), // quoted to the model as data, never a fact
});

/** The one effect, behind a person's signed approval. */
export const cancelOrder = defineTool({
  name: 'cancel_order',
  description: 'Cancel an open order. An orders approver must sign off first.',
  input: byOrder,
  output: z.object({ cancellationId: z.string(), orderId: z.string(), cancelledAt: Iso }),
  kind: 'effect',
  source: 'orders',
  authority: 'authoritative',
  maxObservationBytes: 2_048,
  subject,
  caseArgs: ['orderId'], // the order is the case's own: the case vouches for it, no other can be named
  businessKey: (args) => args.orderId, // one cancellation per order, whichever run asks
  readback: 'cancellation_by_key', // how a lost reply is settled: by key, never by sending again
  precondition: {
    // Pure: only the run's evidence about this order, judged fresh now.
    check: (args, about) => {
      const order = about.filter((e) => e.tool === 'read_order' && e.status === 'ok').at(-1);
      if (!order || !order.fresh) return { ok: false, reason: `read order ${args.orderId} first` };
      const status = order.facts['order.status'];
      return status === 'OPEN' ? { ok: true } : { ok: false, reason: `order ${args.orderId} is ${String(status)}` };
    },
    reread: { tool: 'read_order', args: (args) => ({ orderId: args.orderId }) }, // read again after the approval
  },
  approval: { roles: ['orders-approver'], timeoutMs: 3_600_000, onTimeout: 'escalate' },
  facts: (o) => ({ 'order.cancellationId': o.cancellationId }),
  effectiveAt: (o) => o.cancelledAt,
  freeText: () => [],
});

export const orders = defineDomain({
  name: 'orders',
  caseId: OrderId,
  goal: (id) => `Order ${id} was placed twice. Cancel it exactly once if the order book says it is still open.`,
  tools: [readOrder, cancelOrder],
  claim: z.strictObject({ cancelled: z.literal(true) }),
  claimSubject: (_claim, caseId) => `order:${caseId}`,
  // A finish must cite fresh evidence of the cancellation, and the run must have made it.
  judgeEvidence: (_claim, cited) =>
    cited.some((e) => e.status === 'ok' && e.fresh && e.facts['order.cancellationId'])
      ? { kind: 'supported' }
      : { kind: 'unsupported', reason: 'cite the cancellation' },
  judgeDone: (_claim, done) => (done.length > 0 ? { ok: true } : { ok: false, reason: 'this run cancelled nothing' }),
  defaults: {
    budgets: { turns: 6, toolCalls: 8, effects: 1, duplicates: 2, tokens: 50_000, deadlineMs: 5 * 60_000 },
    context: 'window_pinned',
    window: 6,
  },
});

/** What the worker bundles (this file is its workflows module): the agent workflow over this domain. */
export const agentWorkflow = agentWorkflowFor([orders]);
