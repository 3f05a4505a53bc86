// Payments exception: a transfer left one account and the beneficiary says it never arrived.
// The cheap replica lags, the ledger is the authority on settlement, the processor can confirm
// receipt but not settlement. Workflow-safe: the controller checks proposals against this.
import { z } from 'zod';
import { defineDomain, defineTool, routeHint, type EvidenceView, type SummaryView } from '../../workflows/public.js';
import { latest, usable } from './evidence.js';
import { paymentsRoute } from './route.js';

const TransferId = z.string().regex(/^[A-Z]{2}-[0-9A-Za-z-]{1,40}$/, 'a transfer id such as PX-1042');
const TransferStatus = z.enum(['PENDING', 'SETTLED', 'FAILED', 'NOT_FOUND']);
const Iso = z.iso.datetime({ offset: true });
// Identifiers that become facts are held to a strict shape, so no free text rides in on them.
const RecordId = z.string().regex(/^[A-Za-z0-9_-]{1,80}$/);

const byTransfer = z.strictObject({ transferId: TransferId });
/** Every payments call is about one transfer. */
const transferSubject = (args: { transferId: string }) => `transfer:${args.transferId}`;

export const readReplica = defineTool({
  name: 'read_replica',
  subject: transferSubject,
  answers: transferSubject,
  description: 'Transfer status from the reporting replica: cheap and fast, may lag by many minutes.',
  input: byTransfer,
  output: z.object({ transferId: z.string(), status: TransferStatus, asOf: Iso, note: z.string() }),
  kind: 'read',
  source: 'reporting_replica',
  facts: (o) => ({ [`replica.status`]: o.status }),
  effectiveAt: (o) => o.asOf,
  freeText: (o) => (o.note ? [o.note] : []),
});

export const readLedger = defineTool({
  name: 'read_ledger',
  subject: transferSubject,
  answers: transferSubject,
  description: 'Transfer status from the authoritative ledger: slower, the source of truth for settlement.',
  input: byTransfer,
  output: z.object({
    transferId: z.string(),
    status: TransferStatus,
    postedAt: Iso.nullable(),
    asOf: Iso,
    amountMinor: z.number().int(),
    currency: z.string(),
    receiptId: RecordId.nullable(),
    /** The reissue the ledger has already paid for this transfer, if any (older ledgers omit it). */
    reissueId: RecordId.nullable().optional(),
    /** The beneficiary's account, where a reissue would go (older ledgers omit it). */
    destination: z.string().optional(),
  }),
  kind: 'read',
  source: 'ledger',
  authority: 'authoritative',
  maxAgeMs: 5 * 60_000,
  facts: (o) => ({
    'ledger.status': o.status,
    'ledger.receiptId': o.receiptId,
    ...(o.reissueId !== undefined ? { 'ledger.reissueId': o.reissueId } : {}),
    // What a reissue would move, for the approver's card: codes and account ids, never text.
    'ledger.amountMinor': o.amountMinor,
    ...(/^[A-Z]{3}$/.test(o.currency) ? { 'ledger.currency': o.currency } : {}),
    ...(o.destination !== undefined && RecordId.safeParse(o.destination).success ? { 'ledger.beneficiary': o.destination } : {}),
  }),
  effectiveAt: (o) => o.asOf,
  freeText: () => [],
});

export const readProcessorAck = defineTool({
  name: 'read_processor_ack',
  subject: transferSubject,
  answers: transferSubject,
  description: "The payment processor's acknowledgement: confirms receipt, cannot prove settlement.",
  input: byTransfer,
  output: z.object({
    transferId: z.string(),
    ack: z.enum(['RECEIVED', 'REJECTED', 'NONE']),
    ackAt: Iso.nullable(),
    asOf: Iso,
  }),
  kind: 'read',
  source: 'processor',
  authority: 'authoritative',
  maxAgeMs: 5 * 60_000,
  facts: (o) => ({ 'processor.ack': o.ack }),
  effectiveAt: (o) => o.asOf,
  freeText: () => [],
});

const ReissueInput = z.strictObject({ transferId: TransferId, reason: z.string().min(3).max(200) });

export const reissueTransfer = defineTool({
  name: 'reissue_transfer',
  description: 'Reissue a failed transfer to the same beneficiary. The destination and amount come from the system of record, never from these arguments.',
  input: ReissueInput,
  output: z.object({
    reissueId: RecordId,
    transferId: z.string(),
    destination: z.string(),
    amountMinor: z.number().int(),
    currency: z.string(),
    createdAt: Iso,
  }),
  // Not idempotent, as effects are by default: the processor dedupes by idempotency key, but a
  // money movement gets one attempt anyway; an unclear outcome is read back, never retried blind.
  kind: 'effect',
  source: 'processor',
  authority: 'authoritative',
  maxAgeMs: 5 * 60_000,
  subject: transferSubject,
  // Keyed by what it moves: a second run for the same transfer (even under a new workflow id)
  // reaches the processor with the same key and is answered with the first reissue.
  businessKey: (a) => `reissue-${a.transferId}`,
  narrativeArgs: ['reason'],
  // The transfer is the case's own: the case vouches for it, and no other transfer can be named.
  caseArgs: ['transferId'],
  readback: 'read_reissue',
  // Money moves: the processor's reply is a claim until the ledger's record by key confirms it.
  confirmByReadback: true,
  approval: { roles: ['payments-approver'], timeoutMs: 24 * 3_600_000, onTimeout: 'escalate' },
  precondition: {
    check: reissuePrecondition,
    // Hours may pass between the request and the approval: ask the ledger again first.
    reread: { tool: 'read_ledger', args: (a) => ({ transferId: a.transferId }) },
  },
  facts: (o) => ({ 'reissue.id': o.reissueId }),
  effectiveAt: (o) => o.createdAt,
  freeText: () => [],
  display: reissueDisplay,
});

/**
 * The approver's card: what will move, to whom, what the ledger said when it was asked, and what
 * the processor said. A processor that RECEIVED the original argues against moving the money
 * again (the original may still settle, and the reissue would pay twice): that line is marked
 * `against: `, so the card shows it apart, above the fold. It is signed with the call like every line.
 */
function reissueDisplay(args: { transferId: string }, about: EvidenceView[]): Record<string, string> {
  const ledger = latest(about, (e) => e.tool === 'read_ledger' && e.status === 'ok');
  const processor = processorLine(latest(about, (e) => e.tool === 'read_processor_ack' && e.status === 'ok'));
  if (!ledger) return { transfer: args.transferId, 'ledger state': 'not read in this run', ...processor };
  const f = ledger.facts;
  const amount = f['ledger.amountMinor'];
  const currency = f['ledger.currency'];
  const reissued = f['ledger.reissueId'];
  return {
    transfer: args.transferId,
    ...(typeof amount === 'number' ? { amount: typeof currency === 'string' ? majorUnits(amount, currency) : `${amount} (minor units)` } : {}),
    ...(typeof currency === 'string' ? { currency } : {}),
    ...(typeof f['ledger.beneficiary'] === 'string' ? { beneficiary: f['ledger.beneficiary'] } : {}),
    'ledger state': `${String(f['ledger.status'])} (${ledger.id}, ${ledger.fresh ? 'fresh' : 'stale'}; ${reissued ? `already reissued as ${String(reissued)}` : 'never reissued'})`,
    ...processor,
  };
}

/** The processor's word on the original transfer, when it was read; marked against the reissue when it RECEIVED it. */
function processorLine(ack: EvidenceView | undefined): Record<string, string> {
  if (!ack) return {};
  const said = ack.facts['processor.ack'];
  const seen = `(${ack.id}, ${ack.fresh ? 'fresh' : 'stale'})`;
  if (said === 'RECEIVED') return { 'against: processor ack': `RECEIVED ${seen}: the processor has the original; if it still settles, a reissue pays twice` };
  return { 'processor ack': `${String(said)} ${seen}` };
}

/** Currencies whose minor unit is the unit itself (ISO 4217 exponent 0). */
const WHOLE_UNIT_CURRENCIES = ['JPY', 'KRW', 'CLP', 'ISK', 'VND', 'XAF', 'XOF', 'UGX'];

/** 12500 EUR minor units -> `125.00`: integer arithmetic, no float rounding. */
export function majorUnits(minor: number, currency: string): string {
  if (WHOLE_UNIT_CURRENCIES.includes(currency)) return String(minor);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * The headline's words: what the run did to the transfer and what the ledger says of it. The
 * world keeps the original transfer FAILED once reissued (the reissue is a new payment), so the
 * line says both, rather than a bare "ledger says FAILED" beside "resolved".
 */
function summarize({ caseId, evidence, done }: SummaryView): string | undefined {
  const ledger = latest(evidence, (e) => e.tool === 'read_ledger' && e.status === 'ok' && 'ledger.status' in e.facts);
  const status = ledger ? String(ledger.facts['ledger.status']) : undefined;
  const reissue = latest(evidence, (e) => e.tool === 'reissue_transfer' && e.status === 'ok' && typeof e.facts['reissue.id'] === 'string');
  if (done.some((d) => d.tool === 'reissue_transfer')) {
    const as = reissue ? ` as ${String(reissue.facts['reissue.id'])}` : '';
    const f = ledger?.facts ?? {};
    const what =
      typeof f['ledger.amountMinor'] === 'number' && typeof f['ledger.currency'] === 'string'
        ? ` (${majorUnits(f['ledger.amountMinor'], f['ledger.currency'])} ${f['ledger.currency']})`
        : '';
    return `reissued ${caseId}${what}${as}; ${status ? `the ledger has the original ${status}` : 'the ledger was not read'}`;
  }
  if (!status) return `${caseId}: the ledger was not read; nothing reissued`;
  return `${caseId} is ${status} on the ledger; nothing reissued`;
}

/**
 * Money moves again only for this case's transfer, only when a fresh ledger entry says FAILED,
 * only when nothing (however unreliable) shows it settled, and only if it was never reissued.
 */
function reissuePrecondition(args: z.infer<typeof ReissueInput>, about: EvidenceView[], run: { caseId: string }) {
  if (args.transferId !== run.caseId) return refused(`transfer ${args.transferId} is not this case's transfer (${run.caseId})`);
  const ledger = latest(about, (e) => e.tool === 'read_ledger' && e.status === 'ok');
  if (!ledger) return refused(`no ledger entry for ${args.transferId} has been read`);
  if (!ledger.fresh) return refused(`the ledger entry for ${args.transferId} (${ledger.id}) is no longer fresh; read it again`);
  if (ledger.facts['ledger.status'] !== 'FAILED') return refused(`the ledger says ${String(ledger.facts['ledger.status'])}, not FAILED`);
  if (!('ledger.reissueId' in ledger.facts)) return refused(`the ledger entry ${ledger.id} does not say whether ${args.transferId} was already reissued`);
  if (ledger.facts['ledger.reissueId']) return refused(`the ledger shows it already reissued as ${String(ledger.facts['ledger.reissueId'])}`);
  const settledSomewhere = about.find((e) => e.status === 'ok' && Object.entries(e.facts).some(([k, v]) => k.endsWith('.status') && v === 'SETTLED'));
  if (settledSomewhere) return refused(`${settledSomewhere.source} (${settledSomewhere.id}) shows it SETTLED; a person must resolve that first`);
  const reissued = about.find((e) => e.status === 'ok' && e.facts['reissue.id']);
  if (reissued) return refused(`it was already reissued in this run (${String(reissued.facts['reissue.id'])})`);
  return { ok: true as const };
}

/**
 * The reissue an earlier run made, as fresh authoritative ledger evidence shows it: the ledger
 * records one reissue per transfer, whichever run (or execution after a reset) paid it.
 */
function reissuedEarlier(evidence: EvidenceView[]): string | undefined {
  const ledger = latest(evidence, (e) => usable(e) && e.tool === 'read_ledger' && 'ledger.status' in e.facts);
  const id = ledger?.facts['ledger.reissueId'];
  if (!ledger || ledger.facts['ledger.status'] !== 'FAILED' || typeof id !== 'string' || !id) return undefined;
  return `already reissued as ${id} by an earlier run (ledger ${ledger.id})`;
}

function refused(reason: string) {
  return { ok: false as const, reason };
}

export const PaymentsClaim = z.strictObject({ transferStatus: z.enum(['SETTLED', 'FAILED', 'PENDING']) });

function judgeEvidence(claim: z.infer<typeof PaymentsClaim>, cited: EvidenceView[], all: EvidenceView[]) {
  const latest = (key: string) => [...all].reverse().find((e) => usable(e) && key in e.facts)?.facts[key];

  // Two authoritative sources that cannot both be right: no model may pick a side.
  if (latest('ledger.status') === 'SETTLED' && latest('processor.ack') === 'REJECTED') {
    return { kind: 'conflict' as const, reason: 'ledger says SETTLED but the processor rejected the transfer' };
  }
  const backs = (e: EvidenceView) => usable(e) && e.facts['ledger.status'] === claim.transferStatus;
  if (!cited.some(backs)) {
    // Name the evidence that would back it, if there is any: models often cite the wrong id.
    const would = [...all].reverse().find(backs);
    return {
      kind: 'unsupported' as const,
      reason: `no cited fresh authoritative ledger evidence says ${claim.transferStatus}${would ? ` (${would.id} does: cite it)` : ''}`,
    };
  }
  return { kind: 'supported' as const };
}

export const payments = defineDomain({
  name: 'payments',
  // A case is one transfer.
  caseId: TransferId,
  goal: (caseId) =>
    `Transfer ${caseId} left the sender's account but the beneficiary says it never arrived. Establish its true status from a fresh authoritative source and prevent a duplicate transfer. Reissue only if the ledger says FAILED.`,
  tools: [readReplica, readLedger, readProcessorAck, reissueTransfer],
  claim: PaymentsClaim,
  // A claim is about the case's transfer: evidence about any other transfer cannot back it.
  claimSubject: (_claim, caseId) => `transfer:${caseId}`,
  judgeEvidence,
  // The runbook (route.ts): the route decides with it in shapes workflow and hybrid; in react
  // the model is shown its step as a hint.
  route: paymentsRoute,
  nextStep: routeHint(paymentsRoute),
  summarize,
  // Establishing that a transfer FAILED is half the job: the case is done once it was reissued,
  // by this run or (the ledger says so) by an earlier one.
  judgeDone: (claim, done, view) => {
    const status = claim.transferStatus;
    // A transfer the ledger calls PENDING is not resolved: a person must follow it
    // up, and a finish would tell nobody.
    if (status === 'PENDING') {
      return { ok: false, reason: `the transfer is ${status}: that is not a resolution, it needs a person; escalate with what the ledger says` };
    }
    if (status !== 'FAILED' || done.some((d) => d.tool === 'reissue_transfer')) return { ok: true };
    const reason =
      'the transfer FAILED and this run has not reissued it: a failed transfer is resolved by reissuing it (reissue_transfer, which an approver signs), then finish';
    const earlier = reissuedEarlier(view.evidence);
    return earlier ? { ok: false, reason, doneEarlier: earlier } : { ok: false, reason };
  },
  defaults: {
    budgets: { turns: 8, toolCalls: 10, effects: 1, duplicates: 2, tokens: 60_000, deadlineMs: 10 * 60_000 },
    context: 'window_pinned',
    window: 6,
  },
});
