// The payments `rules` model: cheap replica first; anything short of a fresh authoritative
// answer sends it to the ledger and processor (in parallel); it claims only what the ledger
// says, reissues only a FAILED transfer, and escalates when the authority cannot be read.
import type { CompiledContext } from '../../workflows/public.js';
import { call, escalate, evidenceOf, finish, knownFacts, lastControl } from '../policy-helpers.js';

export function paymentsPolicy(context: CompiledContext): unknown {
  const transferId = context.caseId;
  const facts = knownFacts(context);
  const feedback = lastControl(context);
  if (feedback && ['probe_failed', 'probe_undecided', 'unsupported_finish'].includes(feedback.code)) {
    return escalate(`finish was rejected: ${feedback.message}`);
  }
  if (feedback?.code === 'approval_denied') return escalate(`reissue denied: ${feedback.message}`);

  const ledgerReads = evidenceOf(context, 'read_ledger');
  const ledger = facts.get('ledger.status');
  if (!ledger) {
    const timeouts = ledgerReads.filter((e) => e.status !== 'ok').length;
    if (timeouts >= 2) return escalate('the ledger did not answer; settlement cannot be established');
    if (timeouts === 1) return call({ tool: 'read_ledger', args: { transferId } });
    // Asked to plan, it reads everything it may need at once instead of the cheap replica first.
    if (context.shape === 'plan' && ledgerReads.length === 0) {
      return call(
        { tool: 'read_ledger', args: { transferId } },
        { tool: 'read_processor_ack', args: { transferId } },
        { tool: 'read_replica', args: { transferId } },
      );
    }
    if (!facts.has('replica.status') && evidenceOf(context, 'read_replica').length === 0) {
      return call({ tool: 'read_replica', args: { transferId } });
    }
    return call({ tool: 'read_ledger', args: { transferId } }, { tool: 'read_processor_ack', args: { transferId } });
  }

  switch (ledger.value) {
    case 'SETTLED':
      return finish({ transferStatus: 'SETTLED' }, [ledger.evidenceId], 'the ledger shows the transfer settled; no retry');
    case 'FAILED': {
      const reissued = facts.get('reissue.id');
      if (reissued) return finish({ transferStatus: 'FAILED' }, [ledger.evidenceId, reissued.evidenceId], 'failed transfer reissued once');
      // The ledger already paid a reissue (an earlier run of this case): nothing to move again.
      const earlier = facts.get('ledger.reissueId');
      if (earlier?.value) return finish({ transferStatus: 'FAILED' }, [earlier.evidenceId], `already reissued as ${String(earlier.value)} by an earlier run`);
      return call({ tool: 'reissue_transfer', args: { transferId, reason: 'ledger shows the original transfer FAILED' } });
    }
    default:
      return escalate(`the ledger says ${String(ledger.value)}; a person must follow up`);
  }
}
