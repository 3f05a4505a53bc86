// "Resolved" must mean resolved. The fresh ledger says the transfer is PENDING; a model that
// claims exactly that and finishes would end the run `resolved` while the money is in limbo and
// nobody is told. The finish is refused and the run is steered to a person.
import { describe, expect, it } from 'vitest';
import { seedTransfer } from '../../domains/world/seeds.js';
import { runToEnd, uniqueCase, useAgentHarness } from '../support/agent.js';
import { controlMessages, reissueCalls } from '../support/adversarial.js';

describe('payments: a finish that says PENDING', () => {
  const h = useAgentHarness();

  it('is refused as a resolution; the run ends with a person told', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'PENDING', replicaStatus: 'PENDING', processorAck: 'RECEIVED' });
    const replies = [
      { type: 'call', calls: [{ tool: 'read_ledger', args: { transferId } }] }, // c1 -> e2
      { type: 'finish', outcome: 'resolved', claim: { transferStatus: 'PENDING' }, evidence: ['e2'] },
      { type: 'escalate', reason: 'the ledger says PENDING; a person should follow up' },
    ];
    const { result, view } = await runToEnd(h, { domain: 'payments', caseId: transferId, model: { adapter: 'scripted', replies } });
    expect(result.terminal).toMatchObject({ class: 'escalated', reason: 'model_escalation' });
    expect(controlMessages(view).some((m) => m.includes('needs a person'))).toBe(true);
    expect(await reissueCalls(h.world, transferId)).toEqual([]);
  });
});
