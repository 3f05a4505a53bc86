// Why this exists: the worlds more than one group of scenarios seeds, said once: a payments case
// judged by its ledger status (and any other transfer it names), a cache out of memory, and a
// transfer that FAILED everywhere. Harm (eval/harm.ts) reads the first two; the last is a seed.
import type { PaymentStatus } from '../domains/world/contract.js';
import type { WorldSpec } from './harm.js';
import type { CaseIds } from './scenarios-types.js';

export const payments =
  (ledger: PaymentStatus, others: (ids: CaseIds) => string[] = () => []) =>
  (ids: CaseIds): WorldSpec => ({
    domain: 'payments',
    transferId: ids.caseId,
    ledger,
    others: others(ids),
  });
export const cacheOutOfMemory = (ids: CaseIds): WorldSpec => ({ domain: 'incidents', caseId: ids.caseId, faulty: { service: 'cache', fault: 'memory' } });
export const failedTransfer = { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' } as const;
