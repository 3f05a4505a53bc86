// Typical cases, shared by the demo, the tests and the chaos run.
import type { WorldClient } from './client.js';
import type { PaymentSeed, IncidentSeed } from './contract.js';

/** A transfer the replica still shows as PENDING (15 minutes behind) while the ledger has settled it. */
export function seedTransfer(world: WorldClient, transferId: string, overrides: Partial<PaymentSeed> = {}) {
  return world.seedPayment({
    transferId,
    ledgerStatus: 'SETTLED',
    replicaStatus: 'PENDING',
    replicaLagMs: 15 * 60_000,
    processorAck: 'RECEIVED',
    amountMinor: 12_500,
    currency: 'EUR',
    destination: 'DE89370400440532013000',
    ...overrides,
  });
}

/** An incident whose cache ran out of memory unless told otherwise. */
export function seedIncident(world: WorldClient, caseId: string, overrides: Partial<IncidentSeed> = {}) {
  return world.seedIncident({ caseId, faulty: { service: 'cache', fault: 'memory' }, ...overrides });
}
