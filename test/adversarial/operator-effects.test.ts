// What a Temporal operator can do to an effect in flight, done as an operator does it (the
// `temporal` CLI against the real dev server), judged by the world's own records. An activity
// completed by hand with a made-up result, an effect's timeout shortened under it, an attempt
// reset, a reset that re-applies (or a client that re-sends) an approval already spent: the world
// holds one reissue at most, and the run's last word matches what the world holds.
import { spawnSync } from 'node:child_process';
import { inject } from 'vitest';
import { describe, expect, it } from 'vitest';
import { seedTransfer } from '../../domains/world/seeds.js';
import { signDecision } from '../../client/sign.js';
import { resolveTemporalCli } from '../../temporal-dev/cli.js';
import { approveUpdate, stateQuery, type RunView } from '../../workflows/messages.js';
import { reissueCalls, reissuesOf, sleep, waitForRequest, watchRun, type AgentHandle } from '../support/adversarial.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { deleteAndForget, historyOf, taskOfFirstUpdate } from '../support/temporal-ops.js';
import { callsInFlight } from '../support/phase.js';

/** The `temporal` command an operator types, against the tests' dev server. */
function temporal(...args: string[]): string {
  const cli = resolveTemporalCli(() => {});
  if (cli.kind !== 'binary') throw new Error('the tests need the Temporal CLI binary');
  const run = spawnSync(cli.path, [...args, '--address', inject('temporalAddress')], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`temporal ${args.join(' ')} failed: ${run.stderr || run.stdout}`);
  return run.stdout;
}

/** The activity id of the run's latest activity of a type: its tool dispatch (invokeTool) by default. */
async function dispatchId(h: { client: Parameters<typeof historyOf>[0] }, workflowId: string, type = 'invokeTool'): Promise<string> {
  const events = await historyOf(h.client, workflowId);
  const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type).at(-1);
  const id = scheduled?.activityTaskScheduledEventAttributes?.activityId;
  if (!id) throw new Error(`no ${type} activity in the history yet`);
  return id;
}

async function viewUntil(handle: AgentHandle, what: string, done: (view: RunView) => boolean): Promise<RunView> {
  for (let i = 0; i < 1_200; i++) {
    const view = await handle.query(stateQuery);
    if (done(view)) return view;
    await sleep(50);
  }
  throw new Error(`the run never reached: ${what}`);
}

/** The world's word and the run's agree: "resolved" names the one reissue, anything else means none exists. */
async function lastWordMatchesWorld(world: Parameters<typeof reissuesOf>[0], transferId: string, terminal: { class: string; detail: string }): Promise<void> {
  const reissues = await reissuesOf(world, transferId);
  expect(reissues.length).toBeLessThanOrEqual(1);
  if (terminal.class === 'resolved') {
    expect(reissues).toHaveLength(1);
    expect(terminal.detail).toContain(reissues[0]?.effectId ?? '?');
  } else {
    expect(reissues).toHaveLength(0);
  }
}

describe('Temporal operations on an effect in flight', () => {
  const h = useAgentHarness();

  async function reissueHeldAtTheProcessor(): Promise<{ transferId: string; handle: AgentHandle; holdId: string; watching: ReturnType<typeof watchRun> }> {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const { holdId } = await h.world.createHold({ op: 'payments.reissue', key: transferId, point: 'before_commit' });
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    // A careless approver: approves whatever the run asks, so only the engine decides what reaches the world.
    const watching = watchRun(handle, keys.alice);
    await h.world.waitForHold(holdId);
    return { transferId, handle, holdId, watching };
  }

  it('`temporal activity complete` with a made-up result: the reply is read back, the world holds no such reissue, the held request is refused', async () => {
    const { transferId, handle, holdId, watching } = await reissueHeldAtTheProcessor();
    const view = await handle.query(stateQuery);
    const call = callsInFlight(view.state)[0];
    const made = {
      status: 'ok',
      callId: call?.callId,
      output: { reissueId: 'rsi_manual_by_phone', transferId, destination: 'DE00', amountMinor: 1, currency: 'EUR', createdAt: new Date().toISOString() },
      attempt: 1,
      startedAt: Date.now(),
      finishedAt: Date.now(),
    };
    temporal(
      'activity',
      'complete',
      '--workflow-id',
      handle.workflowId,
      '--activity-id',
      await dispatchId(h, handle.workflowId),
      '--result',
      JSON.stringify(made),
    );

    // The engine does not take the reply's word: its readback fences the key and finds nothing.
    const contradicted = await viewUntil(handle, 'the reply read back', (v) => v.state.effects.some((e) => e.claim === 'contradicted'));
    expect(contradicted.state.effects[0]).toMatchObject({ status: 'not_applied', settledBy: 'readback', claim: 'contradicted' });
    // The request the worker had really sent now reaches the processor, after the fence: refused.
    await h.world.releaseHold(holdId);
    const { result } = await watching;

    const calls = await reissueCalls(h.world, transferId);
    expect(calls[0]?.outcome).toBe('rejected');
    expect(JSON.stringify(result)).not.toContain('rsi_manual_by_phone');
    await lastWordMatchesWorld(h.world, transferId, result.terminal);
  });

  /**
   * The reissue held at the processor, its attempt cut short so the run reads it back, and that
   * readback held too: the moment an operator (or anyone who reaches the frontend) can complete
   * the readback by hand with an answer of their own.
   */
  async function readbackHeld(): Promise<Awaited<ReturnType<typeof reissueHeldAtTheProcessor>> & { readbackHoldId: string; callId: string }> {
    const held = await reissueHeldAtTheProcessor();
    const call = callsInFlight((await held.handle.query(stateQuery)).state)[0];
    if (!call?.idempotencyKey) throw new Error('the reissue in flight has no idempotency key');
    const { holdId: readbackHoldId } = await h.world.createHold({ op: 'payments.reissue_readback', key: call.idempotencyKey, point: 'before_commit' });
    temporal(
      'activity',
      'update-options',
      '--workflow-id',
      held.handle.workflowId,
      '--activity-id',
      await dispatchId(h, held.handle.workflowId),
      '--start-to-close-timeout',
      '2s',
    );
    await h.world.waitForHold(readbackHoldId);
    return { ...held, readbackHoldId, callId: call.callId };
  }

  /** `temporal activity complete` on the run's readback in flight, with the answer given. */
  async function completeReadbackByHand(workflowId: string, answer: Record<string, unknown>): Promise<void> {
    temporal(
      'activity',
      'complete',
      '--workflow-id',
      workflowId,
      '--activity-id',
      await dispatchId(h, workflowId, 'readback'),
      '--result',
      JSON.stringify(answer),
    );
  }

  /** The effects the run's ledger says were applied match what the world holds, one for one. */
  async function ledgerMatchesWorld(view: RunView, transferId: string): Promise<void> {
    const applied = view.state.effects.filter((e) => e.tool === 'reissue_transfer' && e.status === 'applied');
    expect(applied).toHaveLength((await reissuesOf(h.world, transferId)).length);
  }

  it('a readback completed by hand saying "not applied, fenced" is a claim: a worker reads again and finds the reissue the world committed', async () => {
    const { transferId, handle, holdId, watching, readbackHoldId, callId } = await readbackHeld();
    // The held reissue commits while the worker's own readback still waits at the processor.
    await h.world.releaseHold(holdId);
    for (let i = 0; i < 200 && (await reissuesOf(h.world, transferId)).length === 0; i++) await sleep(50);
    expect(await reissuesOf(h.world, transferId)).toHaveLength(1);

    await completeReadbackByHand(handle.workflowId, { callId, outcome: 'not_applied', detail: 'fenced by hand', attempts: 1, fenced: true });
    const { result, view } = await watching;
    await h.world.releaseHold(readbackHoldId);

    // The run's record holds the reissue the world holds, and its last word names it.
    await ledgerMatchesWorld(view, transferId);
    await lastWordMatchesWorld(h.world, transferId, result.terminal);
    expect(view.state.effects.find((e) => e.callId === callId)).toMatchObject({ status: 'applied', settledBy: 'readback' });
  });

  it('a readback completed by hand saying "applied" is a claim: a worker reads again, fences the key, and no money is recorded as moved', async () => {
    const { transferId, handle, holdId, watching, readbackHoldId, callId } = await readbackHeld();
    const forged = { reissueId: 'rsi_forged_by_hand', transferId, destination: 'DE00', amountMinor: 1, currency: 'EUR', createdAt: new Date().toISOString() };
    await completeReadbackByHand(handle.workflowId, { callId, outcome: 'applied', output: forged, detail: 'found by hand', attempts: 1 });

    // A worker's readback fences the key: the held request, released now, is refused.
    await viewUntil(handle, 'the reissue read back by a worker', (v) =>
      v.state.effects.some((e) => e.callId === callId && e.status !== 'unknown' && e.status !== 'in_flight'),
    );
    await h.world.releaseHold(holdId);
    const { result, view } = await watching;
    await h.world.releaseHold(readbackHoldId);

    await ledgerMatchesWorld(view, transferId);
    await lastWordMatchesWorld(h.world, transferId, result.terminal);
    expect((await reissueCalls(h.world, transferId))[0]?.outcome).toBe('rejected');
    expect(JSON.stringify(view.state)).not.toContain('rsi_forged_by_hand');
    expect(view.state.effects.find((e) => e.callId === callId)).toMatchObject({ status: 'not_applied', settledBy: 'readback' });
  });

  it('`temporal activity update-options` shortens the effect under it: "not applied" is final only once the key is fenced', async () => {
    const { transferId, handle, holdId, watching } = await reissueHeldAtTheProcessor();
    temporal(
      'activity',
      'update-options',
      '--workflow-id',
      handle.workflowId,
      '--activity-id',
      await dispatchId(h, handle.workflowId),
      '--start-to-close-timeout',
      '2s',
    );

    // The attempt times out with the request still held; the readback fences the key.
    await viewUntil(handle, 'the effect read back', (v) => v.state.effects.some((e) => e.status === 'not_applied'));
    await h.world.releaseHold(holdId);
    const { result } = await watching;

    // The late request came after the fence and did not commit; whatever the run did next, the
    // world and its last word agree.
    const calls = await reissueCalls(h.world, transferId);
    expect(calls[0]?.outcome).toBe('rejected');
    await lastWordMatchesWorld(h.world, transferId, result.terminal);
  });

  it('`temporal activity reset` on the effect in flight: at most one reissue, and the last word matches the world', async () => {
    const { transferId, handle, holdId, watching } = await reissueHeldAtTheProcessor();
    temporal('activity', 'reset', '--workflow-id', handle.workflowId, '--activity-id', await dispatchId(h, handle.workflowId));
    await sleep(500);
    await h.world.releaseHold(holdId);
    const { result } = await watching;

    // Whether the held request or the reset's attempt commits depends on which the processor
    // sees first (the key dedupes the other; or, on a loaded machine, a fence refuses the held one
    // and the run spends its turns before it sends again, ending budget_exhausted): never both.
    expect((await reissuesOf(h.world, transferId)).length).toBeLessThanOrEqual(1);
    await lastWordMatchesWorld(h.world, transferId, result.terminal);
  });
});

/** `temporal workflow reset` to the task of the run's first Update, re-applying no Update after it. */
function resetLeavingUpdatesOut(workflowId: string, events: Awaited<ReturnType<typeof historyOf>>): void {
  temporal(
    'workflow',
    'reset',
    '--workflow-id',
    workflowId,
    '--event-id',
    String(taskOfFirstUpdate(events)),
    '--reason',
    'test: operator reset',
    '--reapply-exclude',
    'Update',
  );
}

describe('a signed approval decides one request once', () => {
  const h = useAgentHarness();

  /**
   * A run whose approved reissue the processor refused: the approval is spent. The run goes on
   * waiting (its requests last an hour) for a new decision, and is reset while it waits: no
   * short approval window for a busy machine to outrun.
   */
  async function spentApproval(): Promise<{ transferId: string; handle: AgentHandle; spent: ReturnType<typeof signDecision> }> {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    await h.world.injectFault({ op: 'payments.reissue', key: transferId, mode: 'reject', times: 1 });
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' }, approvalTimeoutMs: 3_600_000 });
    const awaiting = await waitForRequest(handle);
    const spent = signDecision(keys.alice, handle.workflowId, awaiting, 'approve', 'ok');
    await handle.executeUpdate(approveUpdate, { args: [spent] });
    await viewUntil(handle, 'the refused reissue', (v) => v.state.evidence.some((e) => e.tool === 'reissue_transfer'));
    const calls = await reissueCalls(h.world, transferId);
    expect(calls.map((c) => c.outcome)).toEqual(['fault:reject']);
    return { transferId, handle, spent };
  }

  it('a reset that re-applies the spent approval sends nothing: the request needs a new decision', async () => {
    const { transferId, handle } = await spentApproval();
    const events = await historyOf(h.client, handle.workflowId);
    temporal('workflow', 'reset', '--workflow-id', handle.workflowId, '--event-id', String(taskOfFirstUpdate(events)), '--reason', 'test: operator reset');
    const latest = h.client.workflow.getHandle(handle.workflowId);
    // Temporal re-applied the approval, and the engine did not send the reissue on its strength.
    const view = await viewUntil(latest, 'the re-applied approval refused at dispatch', (v) =>
      v.state.executions.some((e) => e.tool === 'reissue_transfer' && !e.accepted),
    );
    await latest.terminate('test: done');
    expect(view.state.approvals.some((a) => a.decision === 'approved' && a.afterResetOf)).toBe(true);
    expect(await reissueCalls(h.world, transferId)).toHaveLength(1);
    expect(await reissuesOf(h.world, transferId)).toEqual([]);
  });

  it('after a reset that leaves Updates out, the spent statement sent again is refused', async () => {
    const { transferId, handle, spent } = await spentApproval();
    const events = await historyOf(h.client, handle.workflowId);
    resetLeavingUpdatesOut(handle.workflowId, events);
    const latest = h.client.workflow.getHandle(handle.workflowId);
    await waitForRequest(latest);
    // Anyone who kept the statement sends it again within its lifetime.
    await latest.executeUpdate(approveUpdate, { args: [spent] }).catch(() => undefined);
    const view = await viewUntil(latest, 'the spent statement refused at dispatch', (v) => v.state.evidence.some((e) => e.tool === 'reissue_transfer'));
    await latest.terminate('test: done');

    expect(view.state.evidence.find((e) => e.tool === 'reissue_transfer')?.error?.message).toMatch(/already used by execution/);
    expect(await reissueCalls(h.world, transferId)).toHaveLength(1);
    expect(await reissuesOf(h.world, transferId)).toEqual([]);
  });

  it('after the spending execution is deleted, the statement sent again to a reset execution is refused by the system of record', async () => {
    const { transferId, handle, spent } = await spentApproval();
    const spender = (await handle.describe()).runId;
    const events = await historyOf(h.client, handle.workflowId);
    resetLeavingUpdatesOut(handle.workflowId, events);
    // The history that shows the statement spent is gone: the engine's own check finds nothing.
    await deleteAndForget(h.client, handle.workflowId, spender);
    const latest = h.client.workflow.getHandle(handle.workflowId);
    await waitForRequest(latest);
    await latest.executeUpdate(approveUpdate, { args: [spent] }).catch(() => undefined);
    const view = await viewUntil(latest, 'the reissue sent again', (v) => v.state.evidence.some((e) => e.tool === 'reissue_transfer'));
    await latest.terminate('test: done');
    expect(view.state.evidence.find((e) => e.tool === 'reissue_transfer')?.error?.message).toMatch(/statement_already_used/);

    // The reissue did reach the processor again, and the processor refused it on its own record.
    const calls = await reissueCalls(h.world, transferId);
    expect(calls.map((c) => c.outcome)).toEqual(['fault:reject', 'rejected']);
    expect(await reissuesOf(h.world, transferId)).toEqual([]);
  });
});
