// Temporal's own cancellation request (`temporal workflow cancel`, the Web UI's "Request
// Cancellation", `handle.cancel()`) is a first-class stop: in every phase the run ends cleanly
// with terminal `cancelled` (or `unknown_outcome` naming the effect when a readback cannot
// decide), no workflow task fails, and an effect in flight is never abandoned: it finishes,
// is read back when its reply says nothing, and the world's own records agree with the run's.
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { signDecision } from '../../client/sign.js';
import { PATIENCE_MS, waitUntil } from '../support/wait.js';
import type { ModelAdapter } from '../../activities/model/index.js';
import type { agentWorkflow } from '../../domains/workflows.js';
import { seedIncident, seedTransfer } from '../../domains/world/seeds.js';
import { approveUpdate, stateQuery } from '../../workflows/messages.js';
import type { RunResult } from '../../workflows/messages.js';
import { waitForRequest } from '../support/adversarial.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { callsInFlight } from '../support/phase.js';

type Handle = WorkflowHandle<typeof agentWorkflow>;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A model whose calls wait until the test lets them go (or the activity is cancelled). */
function heldModel() {
  const entered = new Map<string, () => void>();
  const releases: Array<() => void> = [];
  const adapter: ModelAdapter = async (input) => {
    entered.get(input.caseId)?.();
    const cancelled = new Promise<void>((resolve) => Context.current().cancellationSignal.addEventListener('abort', () => resolve(), { once: true }));
    const released = new Promise<void>((resolve) => releases.push(resolve));
    await Promise.race([cancelled, released]);
    return { reply: { type: 'escalate', reason: 'the held model was let go' }, tokens: 1 };
  };
  return {
    adapter,
    /** Resolves once a model call for this case has started. */
    expect(caseId: string): Promise<void> {
      return new Promise<void>((resolve) => entered.set(caseId, resolve));
    },
    releaseAll: () => releases.splice(0).forEach((r) => r()),
  };
}

// metrics c1 -> e2; restart c3 -> e4; metrics c5 -> e6. A readback by the restart's key finds
// the case of an effect that committed, so holds and faults on it are keyed by the case.
const restartReplies = [
  { type: 'call', calls: [{ tool: 'get_metrics', args: { service: 'cache' } }] },
  { type: 'call', calls: [{ tool: 'restart_service', args: { service: 'cache' } }] },
  { type: 'call', calls: [{ tool: 'get_metrics', args: { service: 'cache' } }] },
  { type: 'finish', outcome: 'resolved', claim: { remediated: 'cache' }, evidence: ['e6'] },
];
/** The restart's idempotency key, as the run's effects ledger has it. */
const keyOf = (result: RunResult) => result.effects[0]?.key ?? 'no effect';

describe('Temporal cancellation is a first-class stop', () => {
  const model = heldModel();
  // Tool calls may wait at a hold far longer than a normal call; the holds, not timeouts, decide.
  const h = useAgentHarness({ toolTimeoutMs: 20_000, models: { custom: { held: model.adapter } } });

  // This file's holds, released after each test. Only these: the world is shared by every test
  // file running beside this one, and releasing all holds would disarm theirs before they are reached.
  const mine: string[] = [];
  const hold = async (spec: Parameters<typeof h.world.createHold>[0]) => {
    const created = await h.world.createHold(spec);
    mine.push(created.holdId);
    return created;
  };

  afterEach(async () => {
    model.releaseAll();
    await Promise.all(mine.splice(0).map((id) => h.world.releaseHold(id).catch(() => undefined)));
  });

  /** The run ended, Completed, with no failed workflow task and the cancel request in its history. */
  async function endsCleanly(handle: Handle): Promise<{ result: RunResult; events: HistoryEvent[] }> {
    const result = await handle.result();
    const { status } = await handle.describe();
    expect(status.name).toBe('COMPLETED');
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
    expect(events.some((e) => e.workflowExecutionCancelRequestedEventAttributes)).toBe(true);
    return { result, events };
  }

  /** The worker has finished a workflow task after the event `seen` picks out. */
  async function taken(handle: Handle, seen: (e: HistoryEvent) => unknown, what: string): Promise<void> {
    await waitUntil(async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      const at = events.findIndex((e) => seen(e));
      return at >= 0 && events.slice(at + 1).some((e) => e.workflowTaskCompletedEventAttributes);
    }, what);
  }
  const cancelTaken = (handle: Handle) => taken(handle, (e) => e.workflowExecutionCancelRequestedEventAttributes, 'the run to take the cancel');

  function expectCancelled(result: RunResult): void {
    expect(result.terminal).toMatchObject({ class: 'cancelled', reason: 'operator_cancel' });
    expect(result.terminal.detail).toContain('temporal-cancel');
  }

  it('proposing: a model call in flight is cut short and nothing runs', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    const calling = model.expect(caseId);
    const handle = await startRun(h, { domain: 'incidents', caseId, model: { adapter: 'custom', name: 'held' } });
    await calling;
    await handle.cancel();
    const { result } = await endsCleanly(handle);

    expectCancelled(result);
    expect(result.turns).toBe(1);
    const view = await handle.query(stateQuery);
    expect(view.state.decisions).toEqual([]); // the reply, if any, was never judged
    expect(await h.world.effects({ key: caseId })).toEqual([]);
  });

  it('acting: a read in flight is cut short, and no evidence is made of it', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    const { holdId } = await hold({ op: 'incidents.metrics', key: caseId, point: 'before_commit' });
    const handle = await startRun(h, { domain: 'incidents', caseId, model: { adapter: 'scripted', replies: restartReplies } });
    await h.world.waitForHold(holdId, { timeoutMs: PATIENCE_MS });
    await handle.cancel();
    const { result } = await endsCleanly(handle);

    expectCancelled(result);
    const view = await handle.query(stateQuery);
    expect(view.state.evidence).toEqual([]);
    expect(callsInFlight(view.state)).toEqual([]);
    expect(await h.world.effects({ key: caseId })).toEqual([]);
  });

  it('awaiting approval: the request is closed as cancelled, and the reissue never runs', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    await waitForRequest(handle);
    await handle.cancel();
    const { result } = await endsCleanly(handle);

    expectCancelled(result);
    const view = await handle.query(stateQuery);
    expect(view.state.approvals).toEqual([expect.objectContaining({ decision: 'cancelled', by: 'temporal-cancel' })]);
    expect(result.effects).toEqual([]);
    expect(await h.world.calls({ key: transferId, op: 'payments.reissue' })).toEqual([]);
  });

  it('reconciling: the readback in flight finishes and is recorded; the effect is applied, once', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    await h.world.injectFault({ op: 'incidents.restart', key: caseId, mode: 'commit_then_500' });
    const { holdId } = await hold({ op: 'incidents.effect_readback', key: caseId, point: 'before_commit' });
    const handle = await startRun(h, { domain: 'incidents', caseId, model: { adapter: 'scripted', replies: restartReplies } });
    await h.world.waitForHold(holdId, { timeoutMs: PATIENCE_MS });
    await handle.cancel();
    await cancelTaken(handle);
    await h.world.releaseHold(holdId);
    const { result } = await endsCleanly(handle);

    expectCancelled(result);
    expect(result.terminal.detail).toContain(`restart_service (key ${keyOf(result)}) applied (read back)`);
    expect(result.effects).toEqual([expect.objectContaining({ status: 'applied', settledBy: 'readback' })]);
    expect(await h.world.effects({ key: caseId })).toHaveLength(1);
    expect(await h.world.calls({ key: caseId, op: 'incidents.restart' })).toHaveLength(1);
  });

  it('verifying: the probe is cut short; the terminal says the restart was applied', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    const { holdId } = await hold({ op: 'incidents.verify', key: caseId, point: 'before_commit' });
    const handle = await startRun(h, { domain: 'incidents', caseId, model: { adapter: 'scripted', replies: restartReplies } });
    await h.world.waitForHold(holdId, { timeoutMs: PATIENCE_MS });
    expect((await handle.query(stateQuery)).state.phase.name).toBe('verifying');
    await handle.cancel();
    const { result } = await endsCleanly(handle);

    expectCancelled(result);
    expect(result.terminal.detail).toContain(`restart_service (key ${keyOf(result)}) applied`);
    expect(result.effects).toEqual([expect.objectContaining({ status: 'applied', settledBy: 'response' })]);
    expect(await h.world.effects({ key: caseId })).toHaveLength(1);
  });

  it('an effect held before commit: the cancel does not abandon it; it commits, and the run says so', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    const { holdId } = await hold({ op: 'incidents.restart', key: caseId, point: 'before_commit' });
    const handle = await startRun(h, { domain: 'incidents', caseId, model: { adapter: 'scripted', replies: restartReplies } });
    await h.world.waitForHold(holdId, { timeoutMs: PATIENCE_MS });
    await handle.cancel();
    await cancelTaken(handle);
    await h.world.releaseHold(holdId); // after the cancel, the world commits the restart
    const { result } = await endsCleanly(handle);

    expectCancelled(result);
    expect(result.terminal.detail).toContain(`restart_service (key ${keyOf(result)}) applied`);
    // Learnt from the effect's own reply: the run waited for it rather than guessing early.
    expect(result.effects).toEqual([expect.objectContaining({ status: 'applied', settledBy: 'response' })]);
    expect(await h.world.effects({ key: caseId })).toHaveLength(1);
    expect(await h.world.calls({ key: caseId, op: 'incidents.restart' })).toHaveLength(1);
  });

  it('an effect held before commit and then lost: read back as not applied, never sent again', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    const { holdId } = await hold({ op: 'incidents.restart', key: caseId, point: 'before_commit' });
    const handle = await startRun(h, { domain: 'incidents', caseId, model: { adapter: 'scripted', replies: restartReplies } });
    await h.world.waitForHold(holdId, { timeoutMs: PATIENCE_MS });
    await handle.cancel();
    await cancelTaken(handle);
    await h.world.dropHold(holdId); // the request never gets through
    const { result } = await endsCleanly(handle);

    expectCancelled(result);
    expect(result.terminal.detail).toContain(`restart_service (key ${keyOf(result)}) not applied (read back)`);
    expect(result.effects).toEqual([expect.objectContaining({ status: 'not_applied', settledBy: 'readback', attempts: 1 })]);
    expect(await h.world.effects({ key: caseId })).toEqual([]);
    expect(await h.world.calls({ key: caseId, op: 'incidents.restart' })).toHaveLength(1);
    expect(await h.world.calls({ key: keyOf(result), op: 'incidents.effect_readback' })).not.toEqual([]);
  });

  it('an effect held after commit: the cancel waits for its reply, and the world has it once', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    const { holdId } = await hold({ op: 'incidents.restart', key: caseId, point: 'after_commit' });
    const handle = await startRun(h, { domain: 'incidents', caseId, model: { adapter: 'scripted', replies: restartReplies } });
    await h.world.waitForHold(holdId, { timeoutMs: PATIENCE_MS });
    await handle.cancel();
    await cancelTaken(handle);
    await h.world.releaseHold(holdId);
    const { result } = await endsCleanly(handle);

    expectCancelled(result);
    expect(result.terminal.detail).toContain(`restart_service (key ${keyOf(result)}) applied`);
    expect(result.effects).toEqual([expect.objectContaining({ status: 'applied', settledBy: 'response', attempts: 1 })]);
    const effects = await h.world.effects({ key: caseId });
    expect(effects).toHaveLength(1);
    expect(effects[0]?.idempotencyKey).toBe(keyOf(result));
  });

  it('an effect whose reply is lost and whose readback cannot decide: unknown_outcome, naming it', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    await h.world.injectFault({ op: 'incidents.restart', key: caseId, mode: 'commit_then_500' });
    await h.world.injectFault({ op: 'incidents.effect_readback', key: caseId, mode: 'error500', times: -1 });
    const { holdId } = await hold({ op: 'incidents.restart', key: caseId, point: 'after_commit' });
    const handle = await startRun(h, { domain: 'incidents', caseId, model: { adapter: 'scripted', replies: restartReplies } });
    await h.world.waitForHold(holdId, { timeoutMs: PATIENCE_MS });
    await handle.cancel();
    await cancelTaken(handle);
    await h.world.releaseHold(holdId);
    const { result } = await endsCleanly(handle);

    expect(result.terminal).toMatchObject({ class: 'unknown_outcome', reason: 'cancelled_with_effect_in_doubt' });
    expect(result.terminal.detail).toContain('temporal-cancel');
    expect(result.terminal.detail).toContain(`restart_service (key ${keyOf(result)})`);
    expect(result.effects).toEqual([expect.objectContaining({ status: 'unknown', key: keyOf(result) })]);
    expect(await h.world.calls({ key: caseId, op: 'incidents.restart' })).toHaveLength(1);
    expect(await h.world.calls({ key: keyOf(result), op: 'incidents.effect_readback' })).not.toEqual([]);
  });

  it('an approved reissue whose reply is lost: the money moved once, and the cancelled run records it', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    await h.world.injectFault({ op: 'payments.reissue', key: transferId, mode: 'commit_then_500' });
    const { holdId } = await hold({ op: 'payments.reissue', key: transferId, point: 'after_commit' });
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const waiting = await waitUntil(async () => {
      const awaiting = (await handle.query(stateQuery)).awaiting;
      return awaiting && awaiting.eligible.length > 0 && awaiting;
    }, 'the approval request');
    await handle.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, handle.workflowId, waiting, 'approve', 'checked the ledger')] });
    await h.world.waitForHold(holdId, { timeoutMs: PATIENCE_MS });
    await handle.cancel();
    await cancelTaken(handle);
    await h.world.releaseHold(holdId); // committed; the reply says 500
    const { result } = await endsCleanly(handle);

    expectCancelled(result);
    expect(result.terminal.detail).toContain(`reissue_transfer (key ${keyOf(result)}) applied (read back)`);
    expect(result.effects).toEqual([expect.objectContaining({ status: 'applied', settledBy: 'readback', attempts: 1 })]);
    const reissues = await h.world.effects({ key: transferId });
    expect(reissues).toHaveLength(1);
    expect(reissues[0]?.idempotencyKey).toBe(keyOf(result));
    expect(await h.world.calls({ key: transferId, op: 'payments.reissue' })).toHaveLength(1);
  });

  it("the project's own cancel ends the same way: an effect in doubt is read back first", async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    await h.world.injectFault({ op: 'incidents.restart', key: caseId, mode: 'commit_then_500' });
    const { holdId } = await hold({ op: 'incidents.restart', key: caseId, point: 'after_commit' });
    const handle = await startRun(h, { domain: 'incidents', caseId, model: { adapter: 'scripted', replies: restartReplies } });
    await h.world.waitForHold(holdId, { timeoutMs: PATIENCE_MS });
    const agent = new AgentClient({ client: h.client, taskQueue: h.taskQueue });
    await agent.cancel(handle.workflowId, { by: 'oncall@ops', reason: 'wrong incident' });
    await taken(handle, (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'cancel', 'the run to take the cancel signal');
    await h.world.releaseHold(holdId); // the restart committed, and its reply says 500
    const result = await handle.result();

    expect(result.terminal).toMatchObject({ class: 'cancelled', reason: 'operator_cancel' });
    expect(result.terminal.detail).toContain('cancelled by oncall@ops: wrong incident');
    expect(result.terminal.detail).toContain(`restart_service (key ${keyOf(result)}) applied (read back)`);
    expect(result.effects).toEqual([expect.objectContaining({ status: 'applied', settledBy: 'readback', readbacks: 1 })]);
    expect(await h.world.calls({ key: keyOf(result), op: 'incidents.effect_readback' })).toHaveLength(1);
    expect(await h.world.effects({ key: caseId })).toHaveLength(1);
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
  });
});
