// Execution shapes on a real dev server, worker and world: what the route decides reaches the
// world only through the same activities as a model's proposal, the model is called only where
// the route is open, and the world's own records say what happened.
import { describe, expect, it } from 'vitest';
import { seedIncident, seedTransfer } from '../../domains/world/seeds.js';
import { runToEnd, startRun, uniqueCase, useAgentHarness } from '../support/agent.js';

describe('execution shapes (real dev server and world)', () => {
  const h = useAgentHarness({ toolTimeoutMs: 800 });

  it('hybrid: a settled transfer is closed by the route, with no model call', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId);
    // The rules model would read the replica first: any call to it shows the model was asked.
    const { result, view } = await runToEnd(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' }, shape: 'hybrid' });
    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(result).toMatchObject({ shape: 'hybrid', modelCalls: 0 });
    expect(view.state.decisions.map((d) => d.by)).toEqual(['route', 'route']);
    const ops = (await h.world.calls({ key: transferId })).map((c) => c.op);
    expect(ops).not.toContain('payments.replica');
    expect(ops).not.toContain('payments.reissue');
  });

  it('hybrid: memory exhaustion is fixed once by the route and confirmed by the probe', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    const { result } = await runToEnd(h, { domain: 'incidents', caseId, model: { adapter: 'rules' }, shape: 'hybrid' });
    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(result.modelCalls).toBe(0);
    const effects = await h.world.effects({ key: caseId });
    expect(effects.map((e) => [e.kind, e.details.service])).toEqual([['restart', 'cache']]);
  });

  it('workflow: a ledger with no record of the transfer is outside the route: escalated, nothing moved', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'NOT_FOUND' });
    const { result, view } = await runToEnd(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' }, shape: 'workflow' });
    expect(result.terminal).toMatchObject({ class: 'escalated', reason: 'route_undecided' });
    expect(result.modelCalls).toBe(0);
    expect(view.state.decisions.at(-1)?.open?.join(' ')).toMatch(/NOT_FOUND/);
    expect((await h.world.calls({ key: transferId })).map((c) => c.op)).not.toContain('payments.reissue');
  });

  it('workflow on a domain without a route is refused at its start, not run', async () => {
    const handle = await startRun(h, { domain: 'synthetic', caseId: uniqueCase('SYN'), model: { adapter: 'rules' }, shape: 'workflow' });
    await expect(handle.result()).rejects.toThrow(/Workflow execution failed/);
    const history = await handle.fetchHistory();
    const failed = history.events?.find((e) => e.workflowExecutionFailedEventAttributes)?.workflowExecutionFailedEventAttributes;
    expect(failed?.failure?.message).toMatch(/shape workflow needs the domain's route, and synthetic declares none/);
    expect(history.events?.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);
  });

  it('hybrid: the same case asks the model exactly where the route is open', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'NOT_FOUND' });
    const { result, view } = await runToEnd(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' }, shape: 'hybrid' });
    expect(result.terminal.class).toBe('escalated');
    expect(result.modelCalls).toBeGreaterThanOrEqual(1);
    const asked = view.state.decisions.filter((d) => d.by === 'model');
    expect(asked[0]?.open?.join(' ')).toMatch(/NOT_FOUND/);
  });
});
