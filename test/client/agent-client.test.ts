// AgentClient, the typed API the CLI is built on, against the real dev server: an in-process
// agent worker on a private task queue trusting the test approver directory, the seeded world
// behind it, decisions signed with the test keys. No mocks. The scenarios run concurrently;
// each owns its own case. What a program sees is asserted: typed results, typed errors, and
// what happened in the world (a reissue exactly once, or not at all).
import { WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { AgentClient, type PendingApproval } from '../../client/agent-client.js';
import {
  InvalidRequestError,
  InvalidRunInputError,
  RequestNotPendingError,
  RequestRejectedError,
  RunClosedWithoutTerminalError,
  RunEndedError,
  RunNotFoundError,
  RunSettingsConflictError,
  WorkerTimeoutError,
} from '../../client/agent-errors.js';
import { RunExport } from '../../client/export-schema.js';
import { waitUntil } from '../../client/wait.js';
import type { WatchItem } from '../../client/watch-cursor.js';
import { incidents } from '../../domains/incidents/domain.js';
import { payments } from '../../domains/payments/domain.js';
import { synthetic } from '../../domains/synthetic/domain.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import type { RunInput } from '../../workflows/run-input.js';
import { uniqueCase, useAgentHarness } from '../helpers/agent.js';
import { keys } from '../helpers/keys.js';
import { uniqueTaskQueue } from '../helpers/temporal.js';

const domains = [payments, incidents, synthetic];

describe.concurrent('AgentClient', { timeout: 120_000 }, () => {
  const h = useAgentHarness();
  const agent = () => new AgentClient({ client: h.client, taskQueue: h.taskQueue, domains });
  /** A client whose runs land on a task queue no worker polls. */
  const unserved = (options: { queryTimeoutMs?: number } = {}) => new AgentClient({ client: h.client, taskQueue: uniqueTaskQueue('nobody'), domains, ...options });
  const paymentsRun = (transferId: string, extra: Partial<RunInput> = {}): RunInput => ({ domain: 'payments', caseId: transferId, model: { adapter: 'rules' }, ...extra });

  async function collect(items: AsyncIterable<WatchItem>): Promise<WatchItem[]> {
    const out: WatchItem[] = [];
    for await (const item of items) out.push(item);
    return out;
  }

  /** A FAILED-ledger case: the rules model proposes a reissue, which waits for approval. */
  async function awaitingApproval(a: AgentClient): Promise<{ transferId: string; runId: string; awaiting: PendingApproval }> {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED' });
    const started = await a.start(paymentsRun(transferId));
    expect(started).toMatchObject({ runId: `payments-${transferId}`, attached: false, running: true });
    const awaiting = await waitUntil(
      async () => {
        const view = await a.state(started.runId);
        return view.awaiting && view.awaiting.eligible.length > 0 ? view.awaiting : undefined;
      },
      'the approval request and its approvers',
      { timeoutMs: 20_000, everyMs: 100 },
    );
    expect(awaiting).toMatchObject({ tool: 'reissue_transfer', subject: `transfer:${transferId}`, eligible: ['alice@ops'] });
    return { transferId, runId: started.runId, awaiting };
  }

  it('start, attach with the same settings, refuse other settings; state, watch in order to the terminal, export, list', async () => {
    const a = agent();
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'SETTLED' });
    const input = paymentsRun(transferId, { budgets: { turns: 6 } });
    const first = await a.start(input);
    expect(first).toMatchObject({ runId: `payments-${transferId}`, attached: false, running: true });
    expect(first.settings).toBeUndefined();

    const again = await a.start(input);
    expect(again).toMatchObject({ runId: first.runId, attached: true, settings: 'same', executionRunId: first.executionRunId });
    const conflict = await a.start(paymentsRun(transferId)).catch((err: unknown) => err);
    expect(conflict).toBeInstanceOf(RunSettingsConflictError);
    expect(conflict).toMatchObject({ runId: first.runId, domain: 'payments', caseId: transferId, differences: ['budgets.turns: run has 6, this start asked for domain default'] });
    expect((conflict as Error).message).toMatch(/with different settings \(budgets\.turns: run has 6, this start asked for domain default\); it was not changed$/);

    const items = await collect(a.watch(first.runId, { pollMs: 50 }));
    expect(items[0]).toMatchObject({ type: 'decision', turn: 1, accepted: true });
    expect(items.at(-1)).toMatchObject({ type: 'terminal', class: 'resolved', reason: 'probe_confirmed' });
    expect(items.filter((i) => i.type === 'terminal')).toHaveLength(1);
    const receipts = items.filter((i) => i.type === 'decision' || i.type === 'execution');
    const turns = receipts.map((i) => i.turn);
    expect(turns).toEqual([...turns].sort((x, y) => x - y));
    expect(items.some((i) => i.type === 'execution' && i.tool === 'read_ledger' && i.result === 'final' && i.error === undefined)).toBe(true);

    const view = await a.state(first.runId);
    expect(view.state).toMatchObject({ phase: 'terminal', terminal: { class: 'resolved' }, budgets: { turns: 6 } });
    expect(items.filter((i) => i.type === 'decision')).toHaveLength(view.state.decisions.length);
    expect(items.filter((i) => i.type === 'execution')).toHaveLength(view.state.executions.length);
    // The refused start changed nothing.
    expect(view.input?.budgets).toEqual({ turns: 6 });

    const record = RunExport.parse(await a.export(first.runId));
    expect(record).toMatchObject({ runId: first.runId, domain: 'payments', caseId: transferId, terminal: { class: 'resolved' }, effects: [], approvals: [] });

    // A closed case is reported, not run again.
    expect(await a.start(input)).toMatchObject({ runId: first.runId, attached: true, running: false, settings: 'same' });
    const closedConflict = await a.start(paymentsRun(transferId, { budgets: { turns: 7 } })).catch((err: unknown) => err);
    expect(closedConflict).toBeInstanceOf(RunSettingsConflictError);
    expect(closedConflict).toMatchObject({ running: false });
    expect((closedConflict as Error).message).toMatch(/already ran with different settings/);

    // Visibility is eventually consistent: the run shows up under its outcome after a moment.
    const row = await waitUntil(
      async () => (await a.list({ domain: 'payments', terminal: 'resolved', limit: 1_000 })).find((r) => r.runId === first.runId),
      'the run in the list',
      { timeoutMs: 15_000, everyMs: 200 },
    );
    expect(row).toMatchObject({ domain: 'payments', caseId: transferId, phase: 'terminal', terminal: 'resolved', stopReason: 'probe_confirmed', status: 'COMPLETED' });
    expect(await a.describe(first.runId)).toMatchObject({ runId: first.runId, status: 'COMPLETED', domain: 'payments', caseId: transferId, taskQueue: h.taskQueue });
  });

  it('approve: wrong request and ineligible keys are refused with typed errors; alice releases the reissue exactly once; notes signed and unsigned', async () => {
    const a = agent();
    const { transferId, runId, awaiting } = await awaitingApproval(a);

    const [wrong, bob, unsigned, trusted, both] = await Promise.all([
      a.approve(runId, `${awaiting.requestId}-nope`, keys.alice).catch((err: unknown) => err),
      a.approve(runId, awaiting.requestId, keys.bob).catch((err: unknown) => err),
      a.note(runId, 'customer called again', { by: 'carl@desk' }),
      a.note(runId, 'ledger checked by phone', { key: keys.alice }),
      a.note(runId, 'who am I', { key: keys.alice, by: 'carl@desk' }).catch((err: unknown) => err),
    ]);
    expect(wrong).toBeInstanceOf(RequestNotPendingError);
    expect((wrong as Error).message).toMatch(/is not pending on run .* \(the pending request is /);
    expect(bob).toBeInstanceOf(RequestRejectedError);
    expect(bob).toMatchObject({ request: 'approve' });
    expect((bob as Error).message).toMatch(/^approve rejected: bob@support may not decide reissue_transfer/);
    expect(unsigned).toEqual({ runId, accepted: true, trusted: false, signed: false, by: 'carl@desk' });
    expect(trusted).toEqual({ runId, accepted: true, trusted: true, signed: true, by: 'alice@ops' });
    expect(both).toBeInstanceOf(InvalidRequestError);
    expect(await h.world.effects({ key: transferId })).toEqual([]);

    const approved = await a.approve(runId, awaiting.requestId, keys.alice, { comment: 'ledger says FAILED', validForMs: 120_000 });
    expect(approved).toMatchObject({
      runId,
      requestId: awaiting.requestId,
      decision: 'approved',
      tool: 'reissue_transfer',
      args: { transferId },
      subject: `transfer:${transferId}`,
      by: 'alice@ops',
      digest: awaiting.digest,
    });
    expect(approved.expiresAt).toBeGreaterThan(Date.now());
    const result = await a.handle(runId).result();
    expect(result.terminal.class).toBe('resolved');
    expect(await h.world.effects({ key: transferId })).toHaveLength(1);

    const twice = await a.approve(runId, awaiting.requestId, keys.alice).catch((err: unknown) => err);
    expect(twice).toBeInstanceOf(RunEndedError);
    expect(await h.world.effects({ key: transferId })).toHaveLength(1);

    const view = await a.state(runId);
    expect(view.state.approvals).toMatchObject([{ requestId: awaiting.requestId, decision: 'approved', by: 'alice@ops', comment: 'ledger says FAILED' }]);
    expect(view.state.transcript.filter((t) => t.kind === 'note').map((t) => t.kind === 'note' && [t.by, t.trusted])).toEqual(
      expect.arrayContaining([
        ['carl@desk', false],
        ['alice@ops', true],
      ]),
    );
  });

  it('deny: the model hears the denial and escalates; nothing moves', async () => {
    const a = agent();
    const { transferId, runId, awaiting } = await awaitingApproval(a);
    const denied = await a.deny(runId, awaiting.requestId, keys.alice, { comment: 'beneficiary bank is down' });
    expect(denied).toMatchObject({ decision: 'denied', requestId: awaiting.requestId, by: 'alice@ops' });
    const result = await a.handle(runId).result();
    expect(result.terminal).toMatchObject({ class: 'escalated', reason: 'model_escalation' });
    expect(result.terminal.detail).toContain('beneficiary bank is down');
    const view = await a.state(runId);
    expect(view.state.transcript).toContainEqual(expect.objectContaining({ kind: 'control', code: 'approval_denied' }));
    expect(view.state.approvals).toMatchObject([{ decision: 'denied', by: 'alice@ops' }]);
    expect(await h.world.effects({ key: transferId })).toEqual([]);
  });

  it('cancel: the run ends cancelled with no effect; a second cancel and an unknown run are typed errors', async () => {
    const a = agent();
    const { transferId, runId } = await awaitingApproval(a);
    expect(await a.cancel(runId, { by: 'tester', reason: 'duplicate ticket' })).toEqual({ runId, cancelRequested: true, by: 'tester', reason: 'duplicate ticket' });
    const result = await a.handle(runId).result();
    expect(result.terminal).toMatchObject({ class: 'cancelled', reason: 'operator_cancel' });
    expect(result.terminal.detail).toContain('duplicate ticket');
    expect(await h.world.effects({ key: transferId })).toEqual([]);

    const missing = `payments-${uniqueCase('PX')}`;
    const [again, unknownCancel, unknownState, unknownDescribe, unknownHistory, noAuthor] = await Promise.all([
      a.cancel(runId, { by: 'tester' }).catch((err: unknown) => err),
      a.cancel(missing, { by: 'tester' }).catch((err: unknown) => err),
      a.state(missing).catch((err: unknown) => err),
      a.describe(missing).catch((err: unknown) => err),
      a.history(missing).catch((err: unknown) => err),
      a.cancel(runId, { by: '' }).catch((err: unknown) => err),
    ]);
    expect(again).toBeInstanceOf(RunEndedError);
    expect((again as Error).message).toBe(`run ${runId} is not running (completed)`);
    for (const err of [unknownCancel, unknownState, unknownDescribe, unknownHistory]) {
      expect(err).toBeInstanceOf(RunNotFoundError);
      expect((err as Error).message).toBe(`run ${missing} not found`);
    }
    expect(noAuthor).toBeInstanceOf(InvalidRequestError);
  });

  it('start with an invalid case id or domain throws before any run exists', async () => {
    const a = agent();
    const caseId = uniqueCase('not-a-transfer');
    const bad = await a.start(paymentsRun(caseId)).catch((err: unknown) => err);
    expect(bad).toBeInstanceOf(InvalidRunInputError);
    expect((bad as Error).message).toMatch(new RegExp(`^${caseId} is not a payments case id`));
    await expect(h.client.workflow.getHandle(`payments-${caseId}`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);

    const unknownDomain = await a.start({ domain: 'no-such-domain', caseId: 'PX-1', model: { adapter: 'rules' } }).catch((err: unknown) => err);
    expect(unknownDomain).toBeInstanceOf(InvalidRunInputError);
    await expect(h.client.workflow.getHandle('no-such-domain-PX-1').describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    await expect(a.list({ phase: 'sleeping' })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(a.list({ domain: "payments' OR 1=1" })).rejects.toThrow(/may not contain quotes/);
  });

  it('no worker: the state query is a WorkerTimeoutError within its bound; describe still answers from the server; a start still compares settings', async () => {
    const a = unserved({ queryTimeoutMs: 1_500 });
    const transferId = uniqueCase('PX');
    const started = await a.start(paymentsRun(transferId));
    try {
      const t0 = Date.now();
      const err = await a.state(started.runId).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkerTimeoutError);
      expect(err).toMatchObject({ runId: started.runId, what: 'state query', timeoutMs: 1_500 });
      expect(Date.now() - t0).toBeLessThan(5_000);
      // Domain and case are set when the run is started, so the server knows them before any worker does.
      expect(await a.describe(started.runId)).toMatchObject({ runId: started.runId, status: 'RUNNING', domain: 'payments', caseId: transferId, terminal: null, taskQueue: a.taskQueue });
      // The settings come from the run's history, not from a worker: no worker, still compared.
      const same = await a.start(paymentsRun(transferId));
      expect(same).toMatchObject({ runId: started.runId, attached: true, settings: 'same' });
      const conflict = await a.start({ ...paymentsRun(transferId), budgets: { turns: 3 } }).catch((e: unknown) => e);
      expect(conflict).toBeInstanceOf(RunSettingsConflictError);
      expect(String((conflict as Error).message)).toMatch(/budgets\.turns: run has domain default, this start asked for 3/);
    } finally {
      await a.handle(started.runId).terminate('test cleanup');
    }
  });

  it('watch: a failed read shows its cause; a run closed from outside ends the watch with RunClosedWithoutTerminalError', async () => {
    const a = agent();
    // Nothing seeded: every read of this transfer is a 404 from the system of record.
    const missing = uniqueCase('PX');
    const started = await a.start(paymentsRun(missing));
    const items = await collect(a.watch(started.runId, { pollMs: 50 }));
    const failed = items.filter((i): i is Extract<WatchItem, { type: 'execution' }> => i.type === 'execution' && i.result === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.find((i) => i.tool === 'read_ledger')?.error?.message).toMatch(/404 transfer_not_found/);
    expect(items.at(-1)).toMatchObject({ type: 'terminal' });

    // Terminated while waiting for a person: no terminal record is ever written.
    const { runId } = await awaitingApproval(a);
    await a.handle(runId).terminate('test: closed from outside');
    const closed = await collect(a.watch(runId, { pollMs: 20 })).catch((err: unknown) => err);
    expect(closed).toBeInstanceOf(RunClosedWithoutTerminalError);
    expect((closed as Error).message).toBe(`run ${runId} closed (terminated) without a terminal record`);
  });
});
