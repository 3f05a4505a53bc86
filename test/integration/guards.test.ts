import { describe, expect, it } from 'vitest';
import { useAgentHarness, runToEnd, uniqueCase } from '../support/agent.js';
import { seedTransfer } from '../../domains/world/seeds.js';

const read = (tool: string, transferId: unknown) => ({ type: 'call', calls: [{ tool, args: { transferId } }] });

describe('guards around a misbehaving model (real dev server and world)', () => {
  const h = useAgentHarness();

  it('a model that repeats the same read ends escalated/loop after one nudge', async () => {
    const id = uniqueCase('PX');
    await seedTransfer(h.world, id);
    const replies = [read('read_replica', id), read('read_replica', id), read('read_replica', id), read('read_replica', id)];
    const { result, view } = await runToEnd(h, { domain: 'payments', caseId: id, model: { adapter: 'scripted', replies } });
    expect(result.terminal).toMatchObject({ class: 'escalated', reason: 'loop' });
    expect(view.state.transcript.filter((t) => t.kind === 'control').map((t) => (t.kind === 'control' ? t.code : ''))).toEqual(['loop_nudge']);
    expect((await h.world.calls({ key: id, op: 'payments.replica' })).length).toBe(1);
  });

  it('a model that never stops ends budget_exhausted and names the budget', async () => {
    const id = uniqueCase('PX');
    await seedTransfer(h.world, id);
    const replies = [read('read_replica', id), read('read_ledger', id), read('read_processor_ack', id), read('read_replica', id), read('read_ledger', id)];
    const { result } = await runToEnd(h, { domain: 'payments', caseId: id, model: { adapter: 'scripted', replies }, budgets: { turns: 3 } });
    expect(result.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:turns' });
    expect(result.turns).toBe(3);
  });

  it('an unknown tool and invalid arguments never reach the world; garbage replies are fed back', async () => {
    const id = uniqueCase('PX');
    await seedTransfer(h.world, id);
    const replies = [
      { type: 'call', calls: [{ tool: 'wire_money', args: { to: 'attacker' } }] },
      read('read_ledger', 42),
      'this is not a decision',
      { type: 'call', calls: [{ tool: 'reissue_transfer', args: { transferId: id, reason: 'because', destination: 'XX00' } }] },
      read('read_ledger', id),
      { type: 'finish', outcome: 'resolved', claim: { transferStatus: 'SETTLED' }, evidence: ['e2'] },
    ];
    const { result, view } = await runToEnd(h, { domain: 'payments', caseId: id, model: { adapter: 'scripted', replies } });
    expect(result.terminal.class).toBe('resolved');
    const codes = view.state.transcript.flatMap((t) => (t.kind === 'control' ? [t.code] : []));
    expect(codes).toEqual(['unknown_tool', 'invalid_arguments', 'invalid_proposal', 'invalid_arguments']);
    expect(view.state.decisions.filter((d) => !d.accepted)).toHaveLength(4);
    // The world saw the ledger read and the probe, and nothing else.
    const ops = (await h.world.calls({ key: id })).map((c) => c.op);
    expect(ops.filter((o) => o === 'payments.reissue')).toEqual([]);
    expect(ops).toContain('payments.ledger');
    expect(view.state.used.toolCalls).toBe(1);
  });

  it('a scripted model that runs out of replies fails the run loudly', async () => {
    const id = uniqueCase('PX');
    await seedTransfer(h.world, id);
    const { result } = await runToEnd(h, { domain: 'payments', caseId: id, model: { adapter: 'scripted', replies: [read('read_replica', id)] } });
    expect(result.terminal).toMatchObject({ class: 'failed', reason: 'model_error' });
    expect(result.terminal.detail).toContain('scripted model has 1 replies');
  });
});
