// A look-alike run from anyone who can start a workflow: named like the engine's workflow, with
// the engine's search attributes, on a task queue of its own whose worker (the attacker's) answers
// the state query with a copy of a real pending request whose card says "0.01 EUR" while the real
// request reissues 9,999,999.00 EUR. Whatever an approver signs from that card and sends it, the
// attacker replays at the real run. The engine's clients must not list it as one of its runs,
// build no card from it, sign nothing from a card whose values do not give the digest its run
// reports, and the real run must refuse what was signed over other lines: judged on the world's
// own records, no reissue happens.
import { fileURLToPath } from 'node:url';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { InvalidRequestError } from '../../client/agent-errors.js';
import { list } from '../../client/commands/list.js';
import { status } from '../../client/commands/status.js';
import { Flags, type CommandContext } from '../../client/commands/types.js';
import { signShownDecision, type ShownRequest } from '../../client/sign.js';
import { InboxReader } from '../../console/inbox.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { approvalDigest } from '../../workflows/controller/approval-request.js';
import { approveUpdate, stateQuery, type RunView as StateAnswer } from '../../workflows/messages.js';
import { runSearchAttributes, stopReasonKey, terminalKey } from '../../workflows/search-attributes.js';
import type { SignedDecision } from '../../workflows/trust/statement.js';
import type { LookalikeInput } from '../fixtures/lookalike-workflows.js';
import { expectRefused, reissueCalls, reissuesOf, waitForRequest, type AgentHandle } from '../support/adversarial.js';
import { uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { startForeignWorker, uniqueTaskQueue } from '../support/temporal.js';
import { waitUntil } from '../support/wait.js';
import { suiteBundle } from '../support/bundles.js';
import { pendingRequest } from '../support/phase.js';

const lookalikeWorkflows = fileURLToPath(new URL('../fixtures/lookalike-workflows.ts', import.meta.url));

/** The real run's answer with its card's amount changed; `consistent`: the digest recomputed over the edited lines too. */
function forged(real: StateAnswer, amount: string, consistent: boolean): StateAnswer {
  const awaiting = real.awaiting;
  const pending = pendingRequest(real.state);
  if (!awaiting || !pending) throw new Error('the real run is not waiting');
  const display = { ...awaiting.display, amount };
  const digest = consistent ? approvalDigest(real.state.runId, awaiting.requestId, pending.call, real.state.chain, display) : awaiting.digest;
  return {
    ...real,
    state: { ...real.state, phase: { name: 'awaiting_approval', request: { ...pending, display, digest } } },
    awaiting: { ...awaiting, display, digest },
  };
}

/** What a card built from an answer shows, as the signing code takes it. */
function shownFrom(view: StateAnswer): ShownRequest {
  const a = view.awaiting;
  if (!a) throw new Error('the answer shows no request');
  return {
    runId: view.state.runId,
    requestId: a.requestId,
    tool: a.tool,
    args: a.args,
    subject: a.subject,
    chain: view.state.chain,
    display: a.display,
    digest: a.digest,
  };
}

/** A CLI command run in-process against `agent`, its lines collected. */
async function command(
  agent: AgentClient,
  run: typeof list,
  args: Record<string, string> = {},
  json = false,
  flags: Record<string, string> = {},
): Promise<string[]> {
  const lines: string[] = [];
  const ctx: CommandContext = {
    json,
    program: 'agent',
    agent: () => Promise.resolve(agent),
    out: (line) => void lines.push(line),
    err: (line) => void lines.push(line),
    env: process.env,
  };
  await run(ctx, args, new Flags(flags));
  return lines;
}

describe('a look-alike run on a queue of its own, answering a copy of a real pending request', () => {
  const h = useAgentHarness();
  const attackerQueue = uniqueTaskQueue('lookalike');
  let stopAttacker: () => Promise<void>;
  let operator: AgentClient;

  beforeAll(async () => {
    stopAttacker = await startForeignWorker(attackerQueue, { workflowBundle: await suiteBundle(lookalikeWorkflows) });
    operator = new AgentClient({ client: h.client, taskQueue: h.taskQueue });
  });
  afterAll(async () => stopAttacker?.());

  /** A real payments run waiting to reissue 9,999,999.00 EUR. */
  async function realRequest(): Promise<{ transferId: string; handle: AgentHandle; real: StateAnswer }> {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, {
      ledgerStatus: 'FAILED',
      replicaStatus: 'FAILED',
      processorAck: 'REJECTED',
      amountMinor: 999_999_900,
      currency: 'EUR',
    });
    const started = await operator.start({ domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const handle: AgentHandle = h.client.workflow.getHandle(started.runId);
    const awaiting = await waitForRequest(handle);
    expect(awaiting.display).toMatchObject({ amount: '9999999.00', currency: 'EUR' });
    return { transferId, handle, real: await handle.query(stateQuery) };
  }

  async function lookalike(transferId: string, input: LookalikeInput, phase: 'awaiting_approval' | 'terminal' = 'awaiting_approval'): Promise<WorkflowHandle> {
    return h.client.workflow.start('agentWorkflow', {
      taskQueue: attackerQueue,
      workflowId: `payments-${transferId}-review`,
      args: [input],
      typedSearchAttributes: [
        ...runSearchAttributes({ domain: 'payments', caseId: transferId }, phase),
        ...(phase === 'terminal'
          ? [
              { key: terminalKey, value: 'resolved' },
              { key: stopReasonKey, value: 'probe_confirmed' },
            ]
          : []),
      ],
    });
  }

  it('is not listed as ours, gets no card, nothing is signed from its card, the real run refuses what was signed over its lines, and nothing is reissued', async () => {
    const { transferId, handle, real } = await realRequest();
    const requestId = real.awaiting?.requestId ?? '';
    const lying = await lookalike(transferId, { answer: forged(real, '0.01', false) });
    try {
      // (i) The list marks it; asked for our runs alone, the server leaves it out; the inbox names it and shows no card.
      const listed = await waitUntil(async () => {
        const rows = await operator.list({ domain: 'payments', phase: 'awaiting_approval', limit: 10_000 });
        const look = rows.find((r) => r.runId === lying.workflowId);
        const ours = rows.find((r) => r.runId === handle.workflowId);
        return look && ours ? { look, ours } : undefined;
      }, 'the look-alike and the real run listed as awaiting approval');
      expect(listed.look).toMatchObject({ taskQueue: attackerQueue, served: false });
      expect(listed.ours).toMatchObject({ taskQueue: h.taskQueue, served: true });
      const ours = await operator.list({ domain: 'payments', phase: 'awaiting_approval', served: true, limit: 10_000 });
      expect(ours.map((r) => r.runId)).toContain(handle.workflowId);
      expect(ours.map((r) => r.runId)).not.toContain(lying.workflowId);

      const cli = await command(operator, list, {}, false, { domain: 'payments', phase: 'awaiting_approval', limit: '10000' });
      const cliRow = (runId: string) => cli.find((line) => line.startsWith(`${runId} `)) ?? '';
      expect(cliRow(lying.workflowId)).toMatch(/not served by this engine's queue: task queue lookalike-\S+ is not/);
      expect(cliRow(handle.workflowId)).toMatch(/^payments-PX-\S+\s+payments/);
      expect(cliRow(handle.workflowId)).not.toMatch(/not served/);

      const entries = await new InboxReader(operator, { stateTimeoutMs: 5_000 }).read();
      // Named among the runs of other queues (when it is among the first few of them), never asked.
      const look = entries.find((e) => e.row.runId === lying.workflowId);
      if (look) {
        expect(look.view).toBeUndefined();
        expect(look.notice).toMatch(/not served by this engine's queue.*no card is shown for it/);
      }
      const cards = entries.filter((e) => e.view?.awaiting?.requestId === requestId);
      expect(cards.map((e) => [e.row.runId, e.view?.awaiting?.display?.amount])).toEqual([[handle.workflowId, '9999999.00']]);

      const said = await command(operator, status, { run: lying.workflowId });
      expect(said[0]).toMatch(/^NOT ONE OF THIS ENGINE'S RUNS: not served by this engine's queue/);
      // The forged amount as a number of its own, not the digits of a start time ("17:53:10.012Z").
      expect(said.join('\n')).not.toMatch(/(?<![\d.:])0\.01(?!\d)/);
      expect(said.join('\n')).not.toMatch(/^awaiting/m);

      // (ii) A client that did read the look-alike's answer: its card's lines do not give the
      // digest it reports, so nothing is signed; the CLI's approve refuses the run outright.
      const answer = await lying.query<StateAnswer>('state');
      expect(answer.awaiting?.display?.amount).toBe('0.01');
      const fromCard = signShownDecision(keys.alice, shownFrom(answer), 'approve', 'small change, fine');
      // Were anything signed, the attacker replays it at the real run; were it taken, the run goes on to its end.
      if (fromCard.ok) {
        const taken = await handle.executeUpdate(approveUpdate, { args: [fromCard.signed] }).then(
          () => true,
          () => false,
        );
        if (taken) await handle.result();
      }
      expect(await reissueCalls(h.world, transferId)).toEqual([]);
      expect(await reissuesOf(h.world, transferId)).toEqual([]);
      expect(fromCard).toEqual({ ok: false, error: expect.stringMatching(/^the card does not match the digest the run reports; do not approve/) as unknown });
      const approved = await operator.approve(lying.workflowId, requestId, keys.alice).catch((e: unknown) => e);
      expect(approved).toBeInstanceOf(InvalidRequestError);
      expect((approved as Error).message).toMatch(/not served by this engine's queue/);

      // A look-alike that reports the digest of its own lines gets a signature, over lines the real run never showed: refused there.
      const consistent = forged(real, '0.01', true);
      const signed = signShownDecision(keys.alice, shownFrom(consistent), 'approve');
      if (!signed.ok) throw new Error(signed.error);
      await expectRefused(handle.executeUpdate(approveUpdate, { args: [signed.signed] }), /not the one that would run/);
      // Sent through the console's path instead, it never leaves: the run it names is served, but the statement's lines are not its own.
      const sent = await operator.sendSignedDecision(handle.workflowId, signed.signed as SignedDecision, 'approve').catch((e: unknown) => e);
      expect((sent as Error).message).toMatch(/not the one that would run/);

      // (iii) The world's own records: no reissue was asked for or made, and the real run still waits.
      expect(await reissueCalls(h.world, transferId)).toEqual([]);
      expect(await reissuesOf(h.world, transferId)).toEqual([]);
      const after = await handle.query(stateQuery);
      expect(after.awaiting?.requestId).toBe(requestId);
      expect(after.state.approvals).toEqual([]);
    } finally {
      await lying.terminate('test over').catch(() => undefined);
      await handle.terminate('test over').catch(() => undefined);
    }
  });

  it('a closed look-alike showing a case nobody ran as resolved: status says it is not ours and shows nothing it answers', async () => {
    const { transferId, handle, real } = await realRequest();
    const resolved: StateAnswer = {
      ...real,
      awaiting: undefined,
      state: {
        ...real.state,
        phase: { name: 'terminal' },
        terminal: { class: 'resolved', reason: 'probe_confirmed', detail: 'reissued 0.01 EUR', at: Date.now() },
      },
    };
    const closed = await lookalike(transferId, { answer: resolved, closeAtOnce: true }, 'terminal');
    try {
      await closed.result();
      // Its worker still answers for it: what a status that asked would print.
      expect((await closed.query<StateAnswer>('state')).state.terminal?.class).toBe('resolved');
      const said = (await command(operator, status, { run: closed.workflowId })).join('\n');
      expect(said).toMatch(/^NOT ONE OF THIS ENGINE'S RUNS: not served by this engine's queue/);
      expect(said).not.toContain('reissued 0.01 EUR');
      expect(said).toMatch(/^terminal\s+resolved \(probe_confirmed\), as its starter set it \(not this engine's record\)$/m);
      const asJson = JSON.parse((await command(operator, status, { run: closed.workflowId }, true))[0] ?? '{}') as Record<string, unknown>;
      expect(asJson).toMatchObject({ served: false, answeredBy: 'server', workerAsked: false });
      expect(await reissuesOf(h.world, transferId)).toEqual([]);
    } finally {
      await handle.terminate('test over').catch(() => undefined);
    }
  });

  it('told that the attacker queue is served, the inbox still builds no card: the answer names another run than the execution listed', async () => {
    const { transferId, handle, real } = await realRequest();
    const lying = await lookalike(transferId, { answer: forged(real, '0.01', true) });
    // A console misconfigured to serve the attacker's queue: only the answer's identity is left to tell.
    const misled = new AgentClient({ client: h.client, taskQueue: attackerQueue });
    try {
      await waitUntil(
        async () => (await misled.list({ phase: 'awaiting_approval', served: true, limit: 10_000 })).some((r) => r.runId === lying.workflowId),
        'the look-alike listed on the queue the console serves',
      );
      const entries = await new InboxReader(misled, { stateTimeoutMs: 5_000 }).read();
      const look = entries.find((e) => e.row.runId === lying.workflowId);
      expect(look?.view).toBeUndefined();
      expect(look?.error).toBe(`run ${lying.workflowId} answers as run ${handle.workflowId}: no card is shown for it`);
      expect(entries.some((e) => e.view?.awaiting?.display?.amount === '0.01')).toBe(false);
      const approved = await misled.approve(lying.workflowId, real.awaiting?.requestId ?? '', keys.alice).catch((e: unknown) => e);
      expect((approved as Error).message).toMatch(/answers as run/);
      // What it received: nothing to replay.
      expect(await lying.query<unknown[]>('received')).toEqual([]);
      expect(await reissueCalls(h.world, transferId)).toEqual([]);
      expect(await reissuesOf(h.world, transferId)).toEqual([]);
    } finally {
      await lying.terminate('test over').catch(() => undefined);
      await handle.terminate('test over').catch(() => undefined);
    }
  });
});
