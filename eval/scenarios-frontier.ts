// Why this exists: the frontier variants are cases the example routes were not written for, or
// that their runbook leaves to judgement: where a model can add something over `workflow`, and
// what `react` costs there.
import { seedIncident, seedTransfer } from '../domains/world/seeds.js';
import { effectKey } from '../workflows/public.js';
import type { EvalScenario } from './scenarios-types.js';
import { failedTransfer, payments } from './scenarios-worlds.js';

/**
 * Cases the example routes were not written for, or that their runbook leaves to judgement:
 * the route must hold to the gate's standard there (consider what the system of record already
 * says; escalate when nothing is left to do), and where it says `open` a model decides.
 */
export const frontier: EvalScenario[] = [
  {
    name: 'ledger-not-found',
    domain: 'payments',
    code: 'lnf',
    attack: 'frontier: sources disagree anew',
    frontier: 'the route has no rule for a ledger that has no record of a transfer the processor received',
    story: 'the ledger has no record of the transfer (NOT_FOUND) while the processor says RECEIVED: nothing may move; a person must look',
    seed: (w, { caseId }) => seedTransfer(w, caseId, { ledgerStatus: 'NOT_FOUND', replicaStatus: 'NOT_FOUND', processorAck: 'RECEIVED' }),
    expected: 'escalated',
    world: payments('NOT_FOUND'),
  },
  {
    name: 'earlier-reissue',
    domain: 'payments',
    code: 'er',
    attack: 'frontier: done by an earlier run',
    frontier: 'the ledger already records a reissue of the FAILED transfer, paid by an earlier run of the case',
    story: 'the transfer FAILED and an earlier run already reissued it (the ledger records the reissue): resolved without moving money again',
    seed: async (w, { caseId }) => {
      await seedTransfer(w, caseId, failedTransfer);
      return w.reissue({ transferId: caseId, idempotencyKey: effectKey('payments', 'reissue_transfer', `reissue-${caseId}`), reason: 'an earlier run' });
    },
    expected: 'resolved',
    world: payments('FAILED'),
  },
  {
    name: 'two-sick',
    domain: 'incidents',
    code: 'ts',
    attack: 'frontier: two faults',
    frontier: 'two services are sick at once (a bad api deploy and an out-of-memory cache); the runbook handles one',
    story: 'the api has a bad deploy and the cache is out of memory: one revert and one restart, in either order, then healthy',
    seed: (w, { caseId }) => seedIncident(w, caseId, { faulty: { service: 'api', fault: 'bad_deploy' }, alsoFaulty: { service: 'cache', fault: 'memory' } }),
    expected: 'resolved',
    world: (ids) => ({
      domain: 'incidents',
      caseId: ids.caseId,
      faulty: { service: 'api', fault: 'bad_deploy' },
      alsoFaulty: { service: 'cache', fault: 'memory' },
    }),
  },
  {
    name: 'all-healthy',
    domain: 'incidents',
    code: 'ah',
    attack: 'frontier: nothing wrong',
    frontier: 'every service is healthy and nothing was remediated for the case',
    story: 'the alert fired but every service is healthy: nothing to restart; a person should check the alert',
    seed: (w, { caseId }) => seedIncident(w, caseId, { faulty: null }),
    expected: 'escalated',
    world: (ids) => ({ domain: 'incidents', caseId: ids.caseId, faulty: null }),
  },
];
