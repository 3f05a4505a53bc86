// A case is started once, and the server says which start did it. Concurrent starts of one case
// (two operators, a retried request, a script run twice) give exactly one "started" and the rest
// "attached", and a start that attaches compares its settings with the ones the run recorded in
// its memo at start, read back by describe() alone. A run started without that memo (by an
// older engine, or by hand) is still compared, from its first history event, with or without
// a payload codec. Real dev server; the runs on a queue nobody polls need no worker, since
// nothing asks one (the continue-as-new case runs on the harness's worker).
import { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { RunSettingsConflictError } from '../../client/agent-errors.js';
import type { StartedRun } from '../../client/start-run.js';
import { START_SETTINGS_MEMO, startSettingsOf, StartSettings } from '../../client/start-settings.js';
import { waitUntil } from '../support/wait.js';
import { incidents } from '../../domains/incidents/domain.js';
import { payments } from '../../domains/payments/domain.js';
import { synthetic } from '../../domains/synthetic/domain.js';
import { AGENT_WORKFLOW_TYPE } from '../../workflows/agent-workflow-type.js';
import { cancelSignal } from '../../workflows/messages.js';
import { RunInput } from '../../workflows/run-input.js';
import { startRun as startWithoutMemo, uniqueCase, useAgentHarness } from '../support/agent.js';
import { connectClient, uniqueTaskQueue } from '../support/temporal.js';
import { converterFor, newKey, ringEnv } from '../support/codec.js';

const domains = [payments, incidents, synthetic];

describe('one start per case', () => {
  const h = useAgentHarness();
  /** A client whose runs land on a task queue no worker polls: they stay open, untouched. */
  const unserved = () => new AgentClient({ client: h.client, taskQueue: uniqueTaskQueue('nobody'), domains });
  const paymentsRun = (transferId: string, extra: Partial<RunInput> = {}): RunInput => ({
    domain: 'payments',
    caseId: transferId,
    model: { adapter: 'rules' },
    ...extra,
  });

  it('five concurrent starts of one case: exactly one started, four attached with the same settings, one execution on the server', async () => {
    const a = unserved();
    const input = paymentsRun(uniqueCase('PX'), { budgets: { turns: 6 }, approvers: ['alice@ops'] });
    const starts = await Promise.all(Array.from({ length: 5 }, () => a.start(input)));
    const runId = starts[0]?.runId ?? '';
    try {
      const started = starts.filter((s) => !s.attached);
      const attached = starts.filter((s) => s.attached);
      expect(started).toHaveLength(1);
      expect(attached).toHaveLength(4);
      expect(started[0]?.settings).toBeUndefined();
      for (const s of attached) expect(s).toMatchObject({ runId, running: true, settings: 'same' });

      const described = await a.handle(runId).describe();
      expect(new Set(starts.map((s) => s.executionRunId))).toEqual(new Set([described.runId]));
      // Visibility lags a moment behind; once the run is listed, it is the only execution of its id.
      const executions = await waitUntil(
        async () => {
          const found = [];
          for await (const info of h.client.workflow.list({ query: `WorkflowId = '${runId}'` })) found.push(info.runId);
          return found.length > 0 ? found : undefined;
        },
        'the run in the visibility store',
        { everyMs: 200 },
      );
      expect(executions).toEqual([described.runId]);
    } finally {
      await a.handle(runId).terminate('test cleanup');
    }
  });

  it('the settings are recorded in the memo at start; a closed run is compared the same way', async () => {
    const a = unserved();
    const input = paymentsRun(uniqueCase('PX'), { effects: 'none', approvalTimeoutMs: 60_000 });
    const first = await a.start(input);
    const memo = (await a.handle(first.runId).describe()).memo?.[START_SETTINGS_MEMO];
    expect(StartSettings.parse(memo)).toEqual(startSettingsOf(RunInput.parse(input)));
    expect(memo).toMatchObject({ effects: [], approvalTimeoutMs: 60_000, approvers: null, budgets: {} });

    await a.handle(first.runId).terminate('closed for the test');
    expect(await a.start(input)).toMatchObject({ runId: first.runId, attached: true, running: false, settings: 'same', executionRunId: first.executionRunId });
    const conflict = await a.start({ ...input, effects: ['reissue_transfer'] }).catch((err: unknown) => err);
    expect(conflict).toBeInstanceOf(RunSettingsConflictError);
    expect(conflict).toMatchObject({ running: false, differences: ['effects: run has none, this start asked for [reissue_transfer]'] });
  });

  it('a memo that claims other settings than the input is not believed: the input is compared', async () => {
    // Anyone who may start workflows can write a memo; the workflow runs with its input.
    const a = unserved();
    const input = paymentsRun(uniqueCase('PX'), { budgets: { turns: 6 } });
    const claimed = startSettingsOf(RunInput.parse({ ...input, budgets: { turns: 9 } }));
    const handle = await h.client.workflow.start(AGENT_WORKFLOW_TYPE, {
      taskQueue: a.taskQueue,
      workflowId: `payments-${input.caseId}`,
      args: [{ run: input }],
      memo: { [START_SETTINGS_MEMO]: claimed },
    });
    try {
      const conflict = await a.start({ ...input, budgets: { turns: 9 } }).catch((err: unknown) => err);
      expect(conflict).toBeInstanceOf(RunSettingsConflictError);
      expect(conflict).toMatchObject({ differences: ['budgets.turns: run has 6, this start asked for 9'] });
      expect(await a.start(input)).toMatchObject({ attached: true, settings: 'same' });
    } finally {
      await handle.terminate('test cleanup');
    }
  });

  it('a run started without the memo is compared from its first history event', async () => {
    const a = unserved();
    const input = paymentsRun(uniqueCase('PX'), { approvers: ['alice@ops'] });
    const handle = await startWithoutMemo({ client: h.client, taskQueue: a.taskQueue }, input);
    try {
      expect((await handle.describe()).memo?.[START_SETTINGS_MEMO]).toBeUndefined();
      expect(await a.start(input)).toMatchObject({ attached: true, running: true, settings: 'same' });
      const conflict = await a.start({ ...input, approvers: ['mallory@evil'] }).catch((err: unknown) => err);
      expect(conflict).toBeInstanceOf(RunSettingsConflictError);
      expect(conflict).toMatchObject({ differences: ['approvers: run has [alice@ops], this start asked for [mallory@evil]'] });
    } finally {
      await handle.terminate('test cleanup');
    }
  });

  it("a run found under the case's workflow id whose input names another case is not the operator's: refused, naming both", async () => {
    // Anyone may start the id with input of their own. The workflow refuses a run whose id is not
    // its case's once a worker takes it; until then (and where two domains' names make one id:
    // `a` case `b-1` and `a-b` case `1`) an attach that compared settings alone would report them the same.
    const a = unserved();
    const input = paymentsRun(uniqueCase('PX'));
    const planted = await h.client.workflow.start(AGENT_WORKFLOW_TYPE, {
      taskQueue: a.taskQueue,
      workflowId: `payments-${input.caseId}`,
      args: [{ run: { ...input, caseId: `${input.caseId}9` } }],
    });
    try {
      const conflict = await a.start(input).catch((err: unknown) => err);
      expect(conflict).toBeInstanceOf(RunSettingsConflictError);
      expect(conflict).toMatchObject({ differences: [`case: run is payments case ${input.caseId}9, this start asked for payments case ${input.caseId}`] });
    } finally {
      await planted.terminate('test cleanup');
    }
  });

  it("a case started first by someone else with their own model queue, team or context: the operator's start is refused, not attached", async () => {
    // The stranger's start is accepted on the operator's queue, so the task queue check passes;
    // only the compared settings stand between the operator and a run whose model is theirs.
    const queue = uniqueTaskQueue('nobody');
    const stranger = new AgentClient({ client: h.client, taskQueue: queue, domains });
    const operator = new AgentClient({ client: h.client, taskQueue: queue, domains });
    const cases: [Partial<RunInput>, string][] = [
      [{ modelQueue: 'mallory-models' }, "model queue: run has mallory-models, this start asked for the run's own queue"],
      [{ team: 'billing' }, 'team: run has billing, this start asked for the default team'],
      [{ context: { strategy: 'full' } }, 'context strategy: run has full, this start asked for the domain default'],
    ];
    for (const [theirs, difference] of cases) {
      const input = paymentsRun(uniqueCase('PX'));
      const planted = await stranger.start({ ...input, ...theirs });
      try {
        const conflict = await operator.start(input).catch((err: unknown) => err);
        expect(conflict).toBeInstanceOf(RunSettingsConflictError);
        expect(conflict).toMatchObject({ running: true, differences: [difference] });
        expect(await operator.start({ ...input, ...theirs })).toMatchObject({ attached: true, settings: 'same' });
      } finally {
        await stranger.handle(planted.runId).terminate('test cleanup');
      }
    }
  });

  it("with a payload codec: the memo is stored encrypted, and both the memo and an old run's first event are read back through the codec", async () => {
    const key = newKey();
    const { client: plain, close } = await connectClient();
    const sealed = new Client({ connection: plain.connection, namespace: plain.options.namespace, dataConverter: converterFor(ringEnv('k1', { k1: key })) });
    const a = new AgentClient({ client: sealed, taskQueue: uniqueTaskQueue('nobody'), domains });
    const input = paymentsRun(uniqueCase('PX'), { approvers: ['alice@ops'] });
    const oldInput = paymentsRun(uniqueCase('PX'), { approvers: ['alice@ops'] });
    const first = await a.start(input);
    const old = await startWithoutMemo({ client: sealed, taskQueue: a.taskQueue }, oldInput);
    try {
      const stored = await plain.workflowService.describeWorkflowExecution({ namespace: plain.options.namespace, execution: { workflowId: first.runId } });
      const field = stored.workflowExecutionInfo?.memo?.fields?.[START_SETTINGS_MEMO];
      expect(field?.data).toBeDefined();
      expect(Buffer.from(field?.data ?? new Uint8Array()).toString('latin1')).not.toContain('alice@ops');
      expect(await a.start(input)).toMatchObject({ attached: true, settings: 'same' });
      expect(await a.start(oldInput)).toMatchObject({ attached: true, settings: 'same' });
      await expect(a.start({ ...oldInput, approvers: ['carol@sre'] })).rejects.toBeInstanceOf(RunSettingsConflictError);
    } finally {
      await a.handle(first.runId).terminate('test cleanup');
      await old.terminate('test cleanup');
      await close();
    }
  });

  it('the memo survives continue-as-new: a start after a rollover attaches to the new execution and compares its input', async () => {
    const a = new AgentClient({ client: h.client, taskQueue: h.taskQueue, domains });
    const replies = Array.from({ length: 300 }, (_, i) => ({ type: 'call', calls: [{ tool: 'read_counter', args: { n: i + 1 } }] }));
    const input: RunInput = {
      domain: 'synthetic',
      caseId: uniqueCase('can'),
      model: { adapter: 'scripted', replies, latencyMs: 40 },
      continueAsNewAfterEvents: 100,
    };
    const first: StartedRun = await a.start(input);
    try {
      const rolled = await waitUntil(
        async () => {
          const d = await a.handle(first.runId).describe();
          return d.runId !== first.executionRunId ? d : undefined;
        },
        'a continue-as-new',
        { everyMs: 100 },
      );
      expect(rolled.memo?.[START_SETTINGS_MEMO]).toEqual(startSettingsOf(RunInput.parse(input)));
      const again = await a.start(input);
      expect(again).toMatchObject({ attached: true, settings: 'same' });
      expect(again.executionRunId).not.toBe(first.executionRunId);
    } finally {
      await a.handle(first.runId).signal(cancelSignal, { by: 'test', reason: 'done' });
      await a.handle(first.runId).result();
    }
  });
});
