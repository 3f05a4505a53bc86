// A run can be started with narrowed permissions: an investigation that may take no effect at
// all, or only the effects named. The starter can only narrow what the domain allows. A careless
// approver stands by; the processor must still hear of no reissue, and the run ends by handing
// the step to a person rather than by taking it.
import { describe, expect, it } from 'vitest';
import { InvalidRunInputError } from '../../client/agent-errors.js';
import { checkRunInput } from '../../client/start-run.js';
import { domains as byName } from '../../domains/index.js';

const domains = Object.values(byName);
import { seedTransfer } from '../../domains/world/seeds.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { controlCodes, reissueCalls, reissuesOf, watchRun } from '../support/adversarial.js';

describe('read-only runs', () => {
  const h = useAgentHarness();

  it('a payments investigation refuses the reissue not_permitted; nothing reaches the processor', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const replies = [
      { type: 'call', calls: [{ tool: 'read_ledger', args: { transferId } }] },
      { type: 'call', calls: [{ tool: 'reissue_transfer', args: { transferId, reason: 'ledger shows the original transfer FAILED' } }] },
      { type: 'call', calls: [{ tool: 'reissue_transfer', args: { transferId, reason: 'ledger shows the original transfer FAILED' } }] },
      { type: 'call', calls: [{ tool: 'reissue_transfer', args: { transferId, reason: 'ledger shows the original transfer FAILED' } }] },
    ];
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'scripted', replies }, effects: 'none' });
    const { result, view, requests } = await watchRun(handle, keys.alice);
    expect(await reissueCalls(h.world, transferId)).toEqual([]);
    expect(await reissuesOf(h.world, transferId)).toEqual([]);
    expect(requests).toEqual([]);
    expect(controlCodes(view)).toEqual(['not_permitted', 'loop_nudge']);
    // Insisting ends it as a loop, not by spending every turn.
    expect(result.terminal).toMatchObject({ class: 'escalated', reason: 'loop' });
  });

  it('a start may only narrow: naming an effect the domain does not have is refused before a run exists', () => {
    expect(() => checkRunInput({ domain: 'payments', caseId: 'PX-1', model: { adapter: 'rules' }, effects: ['refund_everyone'] }, domains)).toThrow(
      InvalidRunInputError,
    );
    expect(() => checkRunInput({ domain: 'payments', caseId: 'PX-1', model: { adapter: 'rules' }, effects: ['read_ledger'] }, domains)).toThrow(
      /not an effect of payments/,
    );
    expect(checkRunInput({ domain: 'payments', caseId: 'PX-1', model: { adapter: 'rules' }, effects: ['reissue_transfer'] }, domains).effects).toEqual([
      'reissue_transfer',
    ]);
  });
});
