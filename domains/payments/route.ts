// The payments runbook as a route: what a careful analyst does with a transfer the beneficiary
// says never arrived, decided from this transfer's facts alone. It reads the ledger and the
// processor at once, closes a SETTLED transfer, reissues a FAILED one that was never reissued
// (an approver still signs), and hands anything it has no rule for to whoever is asked next.
// The engine judges every step it takes as it judges a model's (gate, precondition, probe).
import type { DomainRoute, EvidenceView, RouteStep, RouteView } from '../../workflows/public.js';
import { latest, usable } from './evidence.js';

/** Only evidence about the case's own transfer: a read of any other transfer decides nothing here. */
function aboutCase(view: RouteView): EvidenceView[] {
  return view.evidence.filter((e) => e.subject === `transfer:${view.caseId}`);
}

export const paymentsRoute: DomainRoute = {
  first: (transferId) => [
    { tool: 'read_ledger', args: { transferId } },
    { tool: 'read_processor_ack', args: { transferId } },
  ],
  // What the ledger says once a reissue went out: the entry read before it no longer counts.
  after: (effect) => (effect.subject?.startsWith('transfer:') ? [{ tool: 'read_ledger', args: { transferId: effect.subject.slice('transfer:'.length) } }] : []),
  decide(view): RouteStep {
    const transferId = view.caseId;
    const about = aboutCase(view);
    const ledger = latest(about, (e) => usable(e) && e.tool === 'read_ledger' && 'ledger.status' in e.facts);
    if (!ledger) {
      const reads = about.filter((e) => e.tool === 'read_ledger');
      const unanswered = reads.filter((e) => e.status !== 'ok').length;
      if (unanswered >= 2) return { escalate: `the ledger did not answer ${unanswered} times; the settlement of ${transferId} cannot be established` };
      if (reads.length >= 3) return { open: [`the ledger was read ${reads.length} times and no fresh entry for ${transferId} came back`] };
      return { call: [{ tool: 'read_ledger', args: { transferId } }], why: 'only the ledger is authoritative on settlement' };
    }
    const status = ledger.facts['ledger.status'];
    const ack = latest(about, (e) => usable(e) && 'processor.ack' in e.facts)?.facts['processor.ack'];
    switch (status) {
      case 'SETTLED':
        // Two authorities that cannot both be right: no rule may pick a side.
        if (ack === 'REJECTED') return { escalate: `the ledger (${ledger.id}) says SETTLED but the processor rejected ${transferId}` };
        return { finish: { claim: { transferStatus: 'SETTLED' }, evidence: [ledger.id] }, why: 'the ledger shows it settled: nothing to move' };
      case 'FAILED':
        return onFailed(view, about, ledger);
      case 'PENDING':
        return { escalate: `the ledger (${ledger.id}) says ${transferId} is PENDING: still in flight, nothing to reissue; a person follows up` };
      default:
        return {
          open: [
            `the ledger (${ledger.id}) says ${String(status)} for ${transferId}${ack ? ` while the processor says ${String(ack)}` : ''}: the runbook has no rule for it`,
          ],
        };
    }
  },
};

/** A FAILED transfer is reissued once, unless the ledger itself says it already was. */
function onFailed(view: RouteView, about: EvidenceView[], ledger: EvidenceView): RouteStep {
  const transferId = view.caseId;
  const reissue = latest(about, (e) => e.status === 'ok' && typeof e.facts['reissue.id'] === 'string');
  if (view.done.some((d) => d.tool === 'reissue_transfer') && reissue) {
    return {
      finish: { claim: { transferStatus: 'FAILED' }, evidence: [ledger.id, reissue.id] },
      why: `reissued once as ${String(reissue.facts['reissue.id'])}`,
    };
  }
  if (!('ledger.reissueId' in ledger.facts)) return { open: [`the ledger entry ${ledger.id} does not say whether ${transferId} was already reissued`] };
  const earlier = ledger.facts['ledger.reissueId'];
  if (typeof earlier === 'string' && earlier) {
    return {
      finish: { claim: { transferStatus: 'FAILED' }, evidence: [ledger.id] },
      why: `the ledger records it already reissued as ${earlier}: nothing to move again`,
    };
  }
  const settled = about.find((e) => e.status === 'ok' && Object.entries(e.facts).some(([k, v]) => k.endsWith('.status') && v === 'SETTLED'));
  if (settled) return { open: [`the ledger (${ledger.id}) says FAILED but ${settled.source} (${settled.id}) says SETTLED`] };
  return {
    call: [{ tool: 'reissue_transfer', args: { transferId, reason: 'the ledger shows the original transfer FAILED and never reissued' } }],
    why: `the ledger (${ledger.id}) says FAILED`,
  };
}
