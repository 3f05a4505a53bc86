// AgentClient, the typed API the CLI is built on, against the real dev server: an in-process
// agent worker on a private task queue trusting the test approver directory, the seeded world
// behind it, decisions signed with the test keys. No mocks. The scenarios run concurrently;
// each owns its own case. What a program sees is asserted: typed results, typed errors, and
// what happened in the world (a reissue exactly once, or not at all).
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import type { PendingApproval } from '../../client/run-view.js';
import {
  InvalidRequestError,
  InvalidRunInputError,
  RequestNotPendingError,
  RequestRejectedError,
  RunClosedWithoutTerminalError,
  RunEndedError,
  RunNotFoundError,
  RunSettingsConflictError,
  RunUnavailableError,
  WorkerTimeoutError,
} from '../../client/agent-errors.js';
import { abandonedEffects } from '../../client/run-report.js';
import { RunExport } from '../../client/export-schema.js';
import { PATIENCE_MS, untilAwaiting, waitUntil } from '../support/wait.js';
import type { WatchItem } from '../../client/watch-cursor.js';
import { incidents } from '../../domains/incidents/domain.js';
import { payments } from '../../domains/payments/domain.js';
import { synthetic } from '../../domains/synthetic/domain.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { agentWorkflow } from '../../domains/workflows.js';
import type { RunInput } from '../../workflows/run-input.js';
import { uniqueCase, useAgentHarness, type AgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { uniqueTaskQueue } from '../support/temporal.js';

const domains = [payments, incidents, synthetic];

describe.concurrent('AgentClient', () => {
  const h = useAgentHarness();
  const agent = () => new AgentClient({ client: h.client, taskQueue: h.taskQueue, domains });
  /** A client whose runs land on a task queue no worker polls. */
  const unserved = (options: { queryTimeoutMs?: number } = {}) =>
    new AgentClient({ client: h.client, taskQueue: uniqueTaskQueue('nobody'), domains, ...options });
  const paymentsRun = (transferId: string, extra: Partial<RunInput> = {}): RunInput => ({
    domain: 'payments',
    caseId: transferId,
    model: { adapter: 'rules' },
    ...extra,
  });

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
    const awaiting = await untilAwaiting(() => a.state(started.runId));
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
    expect(conflict).toMatchObject({
      runId: first.runId,
      domain: 'payments',
      caseId: transferId,
      differences: ['budgets.turns: run has 6, this start asked for domain default'],
    });
    expect((conflict as Error).message).toMatch(
      /with different settings \(budgets\.turns: run has 6, this start asked for domain default\); it was not changed$/,
    );

    const items = await collect(a.watch(first.runId, { pollMs: 50 }));
    expect(items[0]).toMatchObject({ type: 'decision', turn: 1, accepted: true });
    expect(items.at(-1)).toMatchObject({ type: 'terminal', class: 'resolved', reason: 'probe_confirmed' });
    expect(items.filter((i) => i.type === 'terminal')).toHaveLength(1);
    const receipts = items.filter((i) => i.type === 'decision' || i.type === 'execution');
    const turns = receipts.map((i) => i.turn);
    expect(turns).toEqual([...turns].sort((x, y) => x - y));
    expect(items.some((i) => i.type === 'execution' && i.tool === 'read_ledger' && i.result === 'final' && i.error === undefined)).toBe(true);

    // What a program reads (RunView), and the receipts behind it in the state query's own answer.
    expect(await a.state(first.runId)).toMatchObject({ phase: 'terminal', terminal: { class: 'resolved' }, budgets: { limits: { turns: 6 } } });
    const view = await a.queryState(first.runId);
    expect(view.state).toMatchObject({ phase: { name: 'terminal' }, terminal: { class: 'resolved' }, budgets: { turns: 6 } });
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
      { everyMs: 200 },
    );
    expect(row).toMatchObject({
      domain: 'payments',
      caseId: transferId,
      phase: 'terminal',
      terminal: 'resolved',
      stopReason: 'probe_confirmed',
      status: 'COMPLETED',
    });
    expect(await a.describe(first.runId)).toMatchObject({
      runId: first.runId,
      status: 'COMPLETED',
      domain: 'payments',
      caseId: transferId,
      taskQueue: h.taskQueue,
    });
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
    expect((bob as Error).message).toMatch(/^approve rejected: the signer may not decide reissue_transfer/);
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

    expect((await a.state(runId)).approvals).toMatchObject([
      { requestId: awaiting.requestId, decision: 'approved', by: 'alice@ops', comment: 'ledger says FAILED' },
    ]);
    const view = await a.queryState(runId);
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
    const view = await a.queryState(runId);
    expect(view.state.transcript).toContainEqual(expect.objectContaining({ kind: 'control', code: 'approval_denied' }));
    expect((await a.state(runId)).approvals).toMatchObject([{ decision: 'denied', by: 'alice@ops' }]);
    expect(await h.world.effects({ key: transferId })).toEqual([]);
  });

  it('cancel: the run ends cancelled with no effect; a second cancel and an unknown run are typed errors', async () => {
    const a = agent();
    const { transferId, runId } = await awaitingApproval(a);
    expect(await a.cancel(runId, { by: 'tester', reason: 'duplicate ticket' })).toEqual({
      runId,
      cancelRequested: true,
      by: 'tester',
      reason: 'duplicate ticket',
    });
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
      // The bound is the mechanism: the error names it (times belong in benchmarks, not here).
      const err = await a.state(started.runId).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkerTimeoutError);
      expect(err).toMatchObject({ runId: started.runId, what: 'state query', timeoutMs: 1_500 });
      // Domain and case are set when the run is started, so the server knows them before any worker does.
      expect(await a.describe(started.runId)).toMatchObject({
        runId: started.runId,
        status: 'RUNNING',
        domain: 'payments',
        caseId: transferId,
        terminal: null,
        taskQueue: a.taskQueue,
      });
      // The settings come from the run's memo (describe), not from a worker: no worker, still compared.
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
    expect(closed).toMatchObject({ status: 'TERMINATED' });
    expect((closed as Error).message).toMatch(
      new RegExp(`^run ${runId} closed \\(terminated\\) without a terminal record: at \\S+ by \\S+: test: closed from outside$`),
    );
  });
});

async function collect(items: AsyncIterable<WatchItem>): Promise<WatchItem[]> {
  const out: WatchItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/**
 * A client that counts the state queries it sends (a real client interceptor): a report that
 * says "the state query was not sent" can be checked against what actually went out.
 */
function countingClient(h: AgentHarness): { client: Client; queried: string[] } {
  const queried: string[] = [];
  const client = new Client({
    connection: h.client.connection,
    namespace: h.client.options.namespace,
    interceptors: {
      workflow: [
        {
          query: (input, next) => {
            queried.push(input.workflowExecution.workflowId);
            return next(input);
          },
        },
      ],
    },
  });
  return { client, queried };
}

describe.concurrent('AgentClient.inspect: what the server knows wins', () => {
  // Tool calls wait a minute here, so an effect held in the world stays in flight while the run is terminated.
  const h = useAgentHarness({ toolTimeoutMs: 60_000 });
  const paymentsRun = (transferId: string): RunInput => ({ domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });

  it('a run no worker polls: the server answers, the state query is never sent; export, watch and list say which queue', async () => {
    const { client, queried } = countingClient(h);
    const queue = uniqueTaskQueue('nobody');
    const nobody = new AgentClient({ client, taskQueue: queue, domains });
    const served = new AgentClient({ client, taskQueue: h.taskQueue, domains });
    const transferId = uniqueCase('PX');
    const parked = await nobody.start(paymentsRun(transferId));
    const settledCase = uniqueCase('PX');
    await seedTransfer(h.world, settledCase, { ledgerStatus: 'SETTLED' });
    const answered = await served.start(paymentsRun(settledCase));
    try {
      const report = await nobody.inspect(parked.runId);
      expect(report).toMatchObject({
        runId: parked.runId,
        status: 'RUNNING',
        taskQueue: queue,
        domain: 'payments',
        caseId: transferId,
        phase: 'running',
        pollers: { checked: true, recent: 0 },
        answeredBy: 'server',
        workerAsked: false,
        unanswered: { kind: 'no_poller' },
        view: null,
        closed: null,
        workflowTaskFailure: null,
      });
      expect(report.notices).toEqual([`no worker is polling task queue ${queue}; showing what the server knows (the state query was not sent)`]);

      const exported = await nobody.export(parked.runId).catch((e: unknown) => e);
      expect(exported).toBeInstanceOf(RunUnavailableError);
      expect(exported).toMatchObject({ reason: 'no_poller', taskQueue: queue });
      expect((exported as Error).message).toBe(`cannot export run ${parked.runId}: no worker is polling task queue ${queue}`);
      const watched = await collect(nobody.watch(parked.runId)).catch((e: unknown) => e);
      expect(watched).toBeInstanceOf(RunUnavailableError);
      expect((watched as Error).message).toBe(`run ${parked.runId}: no worker is polling task queue ${queue}`);

      // Neither inspect, export nor watch asked the run: the only state queries sent went to the served run.
      expect(queried.filter((id) => id === parked.runId)).toEqual([]);
      const served1 = await served.inspect(answered.runId);
      expect(served1).toMatchObject({ answeredBy: 'worker', workerAsked: true, taskQueue: h.taskQueue, unanswered: null });
      expect(served1.pollers.recent).toBeGreaterThan(0);
      expect(served1.view?.state.caseId).toBe(settledCase);
      expect(queried).toContain(answered.runId);

      const row = await waitUntil(
        async () => (await nobody.list({ domain: 'payments', phase: 'running', limit: 1_000 })).find((r) => r.runId === parked.runId),
        'the parked run in the list',
        { everyMs: 200 },
      );
      expect(row).toMatchObject({ taskQueue: queue, status: 'RUNNING' });
      expect((await nobody.rowNotices([row])).get(row)).toBe(`no worker is polling task queue ${queue}`);
    } finally {
      await nobody.handle(parked.runId).terminate('test cleanup');
    }
  });

  it('terminated with a reissue in flight: inspect says terminated, by whom and why, and calls the effect abandoned, not in flight', async () => {
    const a = new AgentClient({ client: h.client, taskQueue: h.taskQueue, domains });
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED' });
    const { runId } = await a.start(paymentsRun(transferId));
    const awaiting = await untilAwaiting(() => a.state(runId));
    // The processor parks the reissue before it commits: the run's effect stays in flight.
    const { holdId } = await h.world.createHold({ op: 'payments.reissue', key: transferId, point: 'before_commit' });
    try {
      await a.approve(runId, awaiting.requestId, keys.alice);
      await h.world.waitForHold(holdId, { timeoutMs: PATIENCE_MS });
      await waitUntil(async () => (await a.state(runId)).effects.some((e) => e.status === 'in_flight'), 'the effect in flight');
      await a.handle(runId).terminate('test: terminated mid-reissue');
    } finally {
      await h.world.dropHold(holdId).catch(() => undefined);
    }
    const report = await a.inspect(runId);
    expect(report).toMatchObject({ status: 'TERMINATED', answeredBy: 'worker', closed: { as: 'terminated', reason: 'test: terminated mid-reissue' } });
    expect(report.closed?.by).toBeTruthy();
    // The worker replays the run as it was: no terminal, the effect in flight. The report does not leave it at that.
    expect(report.view?.state.terminal).toBeUndefined();
    expect(report.view?.state.effects).toMatchObject([{ tool: 'reissue_transfer', status: 'in_flight' }]);
    expect(abandonedEffects(report)).toMatchObject([{ tool: 'reissue_transfer' }]);
    expect(report.notices[0]).toMatch(/^terminated at \S+ by \S+: test: terminated mid-reissue; the run recorded no outcome and will not move again$/);
    const watched = await collect(a.watch(runId)).catch((e: unknown) => e);
    expect(watched).toBeInstanceOf(RunClosedWithoutTerminalError);
    expect((watched as Error).message).toMatch(
      new RegExp(`^run ${runId} closed \\(terminated\\) without a terminal record: at \\S+ by \\S+: test: terminated mid-reissue$`),
    );
    const exported = RunExport.parse(await a.export(runId));
    expect(exported.execution).toMatchObject({ status: 'TERMINATED', closed: { as: 'terminated', reason: 'test: terminated mid-reissue' } });
    expect(exported.execution?.notices[0]).toMatch(/^terminated at /);
  });

  it('a workflow task that keeps failing, a failed run, a run that timed out, a run that continued as new: each said in words', async () => {
    const { client, queried } = countingClient(h);
    const a = new AgentClient({ client, taskQueue: h.taskQueue, domains });
    const stamp = uniqueCase('x');
    // An input the workflow code cannot even read (a TypeError, not a refusal): every workflow task fails.
    const failing = await h.client.workflow.start(agentWorkflow, {
      taskQueue: h.taskQueue,
      workflowId: `payments-failing-${stamp}`,
      // A first attempt that times out on a loaded machine leaves the later failures unrecorded
      // (transient attempts); a long task timeout keeps this run on the recorded-failure path.
      workflowTaskTimeout: '60s',
      args: [null as never],
    });
    // An input the workflow refuses: the execution fails.
    const refused = await h.client.workflow.start(agentWorkflow, {
      taskQueue: h.taskQueue,
      workflowId: `payments-refused-${stamp}`,
      args: [{ run: { domain: 'payments' } as never }],
    });
    const nobodyQueue = uniqueTaskQueue('nobody');
    const expired = await h.client.workflow.start(agentWorkflow, {
      taskQueue: nobodyQueue,
      workflowId: `payments-expired-${stamp}`,
      workflowExecutionTimeout: '1s',
      args: [{ run: paymentsRun(uniqueCase('PX')) }],
    });
    const read = (n: number) => ({ type: 'call', calls: [{ tool: 'read_counter', args: { n } }] });
    const rolled = await a.start({
      domain: 'synthetic',
      caseId: uniqueCase('can'),
      model: { adapter: 'scripted', replies: Array.from({ length: 14 }, (_, i) => read(i + 1)) },
      continueAsNewAfterEvents: 100,
    });
    try {
      const failingReport = await waitUntil(async () => {
        const r = await a.inspect(failing.workflowId);
        return r.workflowTaskFailure ? r : undefined;
      }, 'the workflow task to fail');
      expect(failingReport).toMatchObject({ status: 'RUNNING', answeredBy: 'server', workerAsked: false, unanswered: { kind: 'workflow_task_failing' } });
      expect(failingReport.workflowTaskFailure?.attempt).toBeGreaterThan(1);
      expect(failingReport.notices[0]).toBe(
        `the run's workflow task is failing: Cannot read properties of null (reading 'run') (is another worker with other workflow code polling task queue ${h.taskQueue}?)`,
      );
      // Once the server shows the failure, nothing sends the run a query (before it, the first looks did).
      const asked = () => queried.filter((id) => id === failing.workflowId).length;
      const before = asked();
      expect((await a.inspect(failing.workflowId)).workerAsked).toBe(false);
      const watchedFailing = await collect(a.watch(failing.workflowId)).catch((e: unknown) => e);
      expect(watchedFailing).toBeInstanceOf(RunUnavailableError);
      expect(watchedFailing).toMatchObject({ reason: 'workflow_task_failing', taskQueue: h.taskQueue });
      expect(asked()).toBe(before);

      await expect(refused.result()).rejects.toThrow();
      const refusedReport = await a.inspect(refused.workflowId);
      expect(refusedReport).toMatchObject({ status: 'FAILED', closed: { as: 'failed' } });
      expect(refusedReport.notices[0]).toMatch(/^failed at \S+: invalid run input: .*; the run recorded no outcome and will not move again$/);

      await waitUntil(async () => ((await expired.describe()).status.name === 'TIMED_OUT' ? true : undefined), 'the execution to time out');
      const expiredReport = await a.inspect(expired.workflowId);
      expect(expiredReport).toMatchObject({ status: 'TIMED_OUT', closed: { as: 'timed_out' }, workerAsked: false });
      expect(expiredReport.notices).toEqual([
        expect.stringMatching(/^timed out at \S+: the execution's time limit passed; the run recorded no outcome and will not move again$/),
        `no worker is polling task queue ${nobodyQueue}; showing what the server knows (the state query was not sent)`,
      ]);

      await a.handle(rolled.runId).result();
      const first = await a.describe(rolled.runId).then(async () => {
        const history = await h.client.workflow.getHandle(rolled.runId, rolled.executionRunId).fetchHistory();
        return history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
      });
      expect(first).toBeTruthy();
      const olderReport = await a.inspect(rolled.runId, { executionRunId: rolled.executionRunId });
      expect(olderReport).toMatchObject({ executionRunId: rolled.executionRunId, status: 'CONTINUED_AS_NEW', closed: { as: 'continued_as_new', next: first } });
      expect(olderReport.notices).toEqual([`continued as new at ${olderReport.closed?.at}: execution ${first} carries the run on`]);
      // The latest execution is the run as operators know it: it ended, and says how.
      const latest = await a.inspect(rolled.runId);
      expect(latest.executionRunId).not.toBe(rolled.executionRunId);
      expect(latest.view?.state.terminal).toBeDefined();
      expect(latest.notices).toEqual([]);
      const rows = await waitUntil(async () => {
        const all = (await a.list({ domain: 'synthetic', limit: 1_000 })).filter((r) => r.runId === rolled.runId);
        return all.some((r) => r.status === 'CONTINUED_AS_NEW') ? all : undefined;
      }, 'the older execution in the list');
      const notices = await a.rowNotices(rows);
      expect(rows.filter((r) => r.status === 'CONTINUED_AS_NEW').map((r) => notices.get(r))).toContain(
        'continued as new: a later execution carries the run on',
      );
    } finally {
      await failing.terminate('test cleanup').catch(() => undefined);
    }
  });
});
