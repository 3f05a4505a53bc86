// A team's own domain, written outside the engine's repository against its published package
// only: refunds that are paid once, small ones at once, large ones after a signed approval.
// Workflow code: deterministic, bundled into Temporal's sandbox.
import { defineDomain, defineTool, z } from 'bounded-react-temporal/workflow';

const RefundId = z.string().regex(/^R-[0-9A-Za-z-]{1,40}$/);
const Iso = z.iso.datetime({ offset: true });
const byRefund = z.strictObject({ refundId: RefundId });
const subject = (a) => `refund:${a.refundId}`;
const LARGE_CENTS = 10_000;

const Payout = z.object({ payoutId: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/), refundId: z.string(), paidAt: Iso });

/** Pay only a requested refund, read fresh from the refunds service, in the right size class. */
const payable = (large) => ({
  check(args, about) {
    const latest = [...about].reverse().find((e) => e.tool === 'read_refund' && e.status === 'ok');
    if (!latest || !latest.fresh) return { ok: false, reason: `refund ${args.refundId} has not been read fresh` };
    if (latest.facts['refund.status'] !== 'REQUESTED') return { ok: false, reason: `refund ${args.refundId} is ${latest.facts['refund.status']}` };
    const amount = Number(latest.facts['refund.amountCents']);
    if (large !== amount > LARGE_CENTS)
      return { ok: false, reason: `refund ${args.refundId} is ${amount} cents: use ${amount > LARGE_CENTS ? 'pay_large_refund' : 'pay_refund'}` };
    return { ok: true };
  },
  reread: { tool: 'read_refund', args: (a) => ({ refundId: a.refundId }) },
});

export const readRefund = defineTool({
  name: 'read_refund',
  description: 'The refund as the refunds service has it: status, amount, and a free-text note from the customer.',
  input: byRefund,
  output: z.object({ refundId: z.string(), status: z.enum(['REQUESTED', 'PAID']), amountCents: z.number().int(), note: z.string(), asOf: Iso }),
  kind: 'read',
  idempotent: true,
  source: 'refunds',
  authority: 'authoritative',
  maxAgeMs: 60_000,
  maxObservationBytes: 4_096,
  subject,
  facts: (o) => ({ 'refund.status': o.status, 'refund.amountCents': o.amountCents }),
  effectiveAt: (o) => o.asOf,
  freeText: (o) => (o.note ? [o.note] : []),
});

const payment = {
  input: byRefund,
  output: Payout,
  kind: 'effect',
  idempotent: false,
  source: 'refunds',
  authority: 'authoritative',
  maxAgeMs: 60_000,
  maxObservationBytes: 2_048,
  subject,
  // The refund is the case's own: the case vouches for it without a citation.
  caseArgs: ['refundId'],
  businessKey: (a) => `refund-${a.refundId}`,
  readback: 'payout_by_key',
  facts: (o) => ({ 'payout.id': o.payoutId }),
  effectiveAt: (o) => o.paidAt,
  freeText: () => [],
};

export const payRefund = defineTool({ ...payment, name: 'pay_refund', description: 'Pay a small refund (up to 100.00).', precondition: payable(false) });

export const payLargeRefund = defineTool({
  ...payment,
  name: 'pay_large_refund',
  description: 'Pay a refund over 100.00; a refunds approver must sign off.',
  precondition: payable(true),
  approval: { roles: ['refunds-approver'], timeoutMs: 3_600_000, onTimeout: 'escalate' },
});

export const refunds = defineDomain({
  name: 'refunds',
  caseId: RefundId,
  goal: (id) => `Refund ${id} was requested. Pay it exactly once if the refunds service says it is still requested.`,
  tools: [readRefund, payRefund, payLargeRefund],
  claim: z.strictObject({ paid: z.literal(true) }),
  claimSubject: (_claim, caseId) => `refund:${caseId}`,
  judgeEvidence: (_claim, cited) =>
    cited.some((e) => e.status === 'ok' && e.fresh && e.facts['payout.id']) ? { kind: 'supported' } : { kind: 'unsupported', reason: 'cite the payout' },
  judgeDone: (_claim, done) => (done.length > 0 ? { ok: true } : { ok: false, reason: 'this run paid nothing' }),
  defaults: {
    budgets: { turns: 6, toolCalls: 8, effects: 1, duplicates: 2, tokens: 50_000, deadlineMs: 5 * 60_000 },
    context: 'window_pinned',
    window: 6,
  },
});
