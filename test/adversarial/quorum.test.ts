// Four eyes: the synthetic domain's `dual_touch` needs two distinct approvers, neither of them
// the person who (verifiably) started the run. One approval must leave the run waiting, the same
// approver twice must not count twice, the starter must not count at all, and a run whose start
// was not signed (or was forged) cannot have its starter excluded, so nobody may approve it.
// The synthetic tools run in the worker's process, so here (and only here) the effect is read
// from the run's own record rather than from the world service.
import { describe, expect, inject, it } from 'vitest';
import { signDecision, signStart } from '../../client/sign.js';
import { approveUpdate, cancelSignal, stateQuery } from '../../workflows/messages.js';
import type { RunInput } from '../../workflows/run-input.js';
import { runBinding } from '../../workflows/trust/run-binding.js';
import { signStatement, type SignedStart } from '../../workflows/trust/statement.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { expectRefused, waitForRequest, type AgentHandle, type Awaiting } from '../support/adversarial.js';
import { callsInFlight, dispatchOf } from '../support/phase.js';

const replies = [
  { type: 'call', calls: [{ tool: 'read_counter', args: { n: 1 } }] }, // c1 -> e2
  { type: 'call', calls: [{ tool: 'dual_touch', args: { n: 1 } }] }, // c3 -> e4, after two approvals
  { type: 'finish', outcome: 'resolved', claim: { done: true }, evidence: ['e2'] },
];

describe('quorum: dual_touch needs two distinct approvers other than the starter', () => {
  const h = useAgentHarness();

  const start = async (signer?: (workflowId: string, bound: string) => SignedStart): Promise<AgentHandle> => {
    const caseId = uniqueCase('Q');
    const workflowId = `synthetic-${caseId}`;
    const settings: RunInput = { domain: 'synthetic', caseId, model: { adapter: 'scripted', replies } };
    const run: RunInput = { ...settings, ...(signer ? { start: signer(workflowId, runBinding(inject('temporalNamespace'), settings)) } : {}) };
    const handle = await startRun(h, run);
    expect(handle.workflowId).toBe(workflowId);
    return handle;
  };
  const approveAs = (handle: AgentHandle, key: typeof keys.sam, awaiting: Awaiting) =>
    handle.executeUpdate(approveUpdate, { args: [signDecision(key, handle.workflowId, awaiting, 'approve', `${key.id} agrees`)] });
  const touches = async (handle: AgentHandle) => (await handle.query(stateQuery)).state.effects.filter((e) => e.tool === 'dual_touch');
  const expectStillWaiting = async (handle: AgentHandle, approvedBy: string[]) => {
    const view = await handle.query(stateQuery);
    expect(view.awaiting?.approvedBy).toEqual(approvedBy);
    expect(view.state.phase.name).toBe('awaiting_approval');
    expect(dispatchOf(view.state)).toBeUndefined();
    expect(callsInFlight(view.state)).toEqual([]);
    expect(await touches(handle)).toEqual([]);
  };
  const cancel = async (handle: AgentHandle) => {
    await handle.signal(cancelSignal, { by: 'test', reason: 'done probing' });
    return handle.result();
  };

  it('one approval leaves it waiting; the same approver twice is refused; a second distinct approver runs it once', async () => {
    const handle = await start((id, bound) => signStart(keys.alice, id, { bound }));
    const awaiting = await waitForRequest(handle);
    expect(awaiting).toMatchObject({ tool: 'dual_touch', quorum: 2, approvedBy: [] });

    // The Update answers once the controller has taken the decision: the state read after it is
    // the controller's verdict, and a run that would dispatch shows it there already.
    const first = await approveAs(handle, keys.sam, awaiting);
    expect(first.outcome).toMatch(/1 of 2/);
    await expectStillWaiting(handle, ['sam@bench']);

    await expectRefused(approveAs(handle, keys.sam, awaiting), /already approved/);
    expect((await handle.query(stateQuery)).awaiting?.approvedBy).toEqual(['sam@bench']);
    expect(await touches(handle)).toEqual([]);

    await approveAs(handle, keys.tess, awaiting);
    const result = await handle.result();
    expect(result.terminal.class).toBe('resolved');
    const done = result.effects.filter((e) => e.tool === 'dual_touch');
    expect(done).toHaveLength(1);
    expect(done[0]?.status).toBe('applied');
    const view = await handle.query(stateQuery);
    expect(view.state.approvals).toEqual([expect.objectContaining({ decision: 'approved', by: 'sam@bench, tess@bench' })]);
  });

  it('the signed starter is refused as an approver; the other approver alone is not enough', async () => {
    const handle = await start((id, bound) => signStart(keys.sam, id, { bound }));
    const awaiting = await waitForRequest(handle);
    await expectRefused(approveAs(handle, keys.sam, awaiting), /sam@bench started this run/);
    const tess = await approveAs(handle, keys.tess, awaiting);
    expect(tess.outcome).toMatch(/1 of 2/);
    await expectStillWaiting(handle, ['tess@bench']);
    const result = await cancel(handle);
    expect(result.terminal.class).toBe('cancelled');
    expect(result.effects).toEqual([]);
  });

  it('a run started unsigned: every dual_touch approval is refused', async () => {
    const handle = await start();
    const awaiting = await waitForRequest(handle);
    await expectRefused(approveAs(handle, keys.sam, awaiting), /start was not signed/);
    await expectRefused(approveAs(handle, keys.tess, awaiting), /start was not signed/);
    expect((await handle.query(stateQuery)).awaiting?.approvedBy).toEqual([]);
    const result = await cancel(handle);
    expect(result.effects).toEqual([]);
  });

  it("a forged start (mallory's key, claiming to be carol) counts as unsigned", async () => {
    const handle = await start((id, bound) =>
      signStatement({ v: 1, kind: 'start', runId: id, by: keys.carol.id, expiresAt: Date.now() + 600_000, bound }, keys.mallory.secretKey),
    );
    const awaiting = await waitForRequest(handle);
    await expectRefused(approveAs(handle, keys.sam, awaiting), /start was not signed/);
    await expectRefused(approveAs(handle, keys.tess, awaiting), /start was not signed/);
    const result = await cancel(handle);
    expect(result.effects).toEqual([]);
  });
});
