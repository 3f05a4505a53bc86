// Signatures are bound to the execution they were made for, and a quorum counts keys. An
// attacker who holds someone's earlier signed statement, or a directory that lists one key
// under two names, gets nothing into the world:
// - a decision signed for one execution, sent to a later execution under the same workflow id
//   (which raises the same request id for the same call), is refused and no money moves;
// - an old start statement replayed to name someone else as the starter leaves the start unsigned;
// - one person holding one key cannot meet a quorum of two under two ids.
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import { AgentClient } from '../../client/agent-client.js';
import { signDecision, signNote, signStart, directoryEntry } from '../../client/sign.js';
import { implementations } from '../../domains/implementations.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { addNoteUpdate, approveUpdate, cancelSignal, stateQuery } from '../../workflows/messages.js';
import type { RunInput } from '../../workflows/run-input.js';
import { runBinding } from '../../workflows/trust/run-binding.js';
import { ApproverDirectory } from '../../workflows/trust/directory.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys, TEST_DIRECTORY } from '../support/keys.js';
import { startWorkerWith, uniqueTaskQueue, type StartedWorker } from '../support/temporal.js';
import { expectRefused, reissueCalls, reissuesOf, waitForRequest, type AgentHandle, type Awaiting } from '../support/adversarial.js';
import { waitUntil } from '../support/wait.js';
import { callsInFlight, dispatchOf } from '../support/phase.js';

/** What a start signed for a synthetic run of `caseId` with these replies names (trust/run-binding.ts). */
const boundFor = (caseId: string, replies: unknown[]) =>
  runBinding(inject('temporalNamespace'), { domain: 'synthetic', caseId, model: { adapter: 'scripted', replies } });

/** A synthetic run of `caseId` that asks for a dual_touch, with these budgets. */
const settingsOf = (caseId: string, budgets: { turns: number }): RunInput => ({
  domain: 'synthetic',
  caseId,
  model: { adapter: 'scripted', replies: dualTouch },
  budgets,
});

const dualTouch = [
  { type: 'call', calls: [{ tool: 'read_counter', args: { n: 1 } }] },
  { type: 'call', calls: [{ tool: 'dual_touch', args: { n: 1 } }] },
  { type: 'finish', outcome: 'resolved', claim: { done: true }, evidence: ['e2'] },
];

describe('statements are bound to their execution', () => {
  const h = useAgentHarness();

  it('a decision signed for one execution is refused by a later execution under the same workflow id', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const run: RunInput = { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } };

    // Alice signs the first execution's request; the statement never reaches it.
    const first = await startRun(h, run);
    const firstRequest = await waitForRequest(first);
    const captured = signDecision(keys.alice, first.workflowId, firstRequest, 'approve', 'for the first execution');
    await first.terminate('the attacker ends it');

    // A new execution under the same workflow id asks for the same call under the same request id.
    const second = await startRun(h, run);
    const secondRequest = await waitForRequest(second);
    expect(secondRequest.requestId).toBe(firstRequest.requestId);

    // The run refuses it and says why; a validator's refusal never reaches the controller, so
    // the state read after it is the state the captured decision left.
    await expectRefused(second.executeUpdate(approveUpdate, { args: [captured] }), /not the one that would run/);
    const view = await second.query(stateQuery);
    expect(view.awaiting).toMatchObject({ requestId: secondRequest.requestId, approvedBy: [] });
    expect(view.state.approvals).toEqual([]);
    expect(dispatchOf(view.state)).toBeUndefined();
    expect(callsInFlight(view.state)).toEqual([]);
    await second.signal(cancelSignal, { by: 'test', reason: 'done probing' });
    expect((await second.result()).terminal.class).toBe('cancelled');
    // What reached the world: not one reissue request.
    expect(await reissueCalls(h.world, transferId)).toHaveLength(0);
    expect(await reissuesOf(h.world, transferId)).toHaveLength(0);
  });

  it('a start statement within its window, spent by the execution it started, names nobody in a later one', async () => {
    const caseId = uniqueCase('Q');
    const workflowId = `synthetic-${caseId}`;
    // Sam starts an execution with a short-lived statement: it names him there.
    const samsStart = signStart(keys.sam, workflowId, { validForMs: 10 * 60_000, bound: boundFor(caseId, dualTouch) });
    const earlier = await startRun(h, { domain: 'synthetic', caseId, model: { adapter: 'scripted', replies: dualTouch }, start: samsStart });
    await waitForRequest(earlier);
    expect((await earlier.query(stateQuery)).state.starter).toBe(keys.sam.id);
    await earlier.terminate('over');
    // Replayed minutes later into a new execution under the same id, it is spent: nobody started that one.
    const handle: AgentHandle = await startRun(h, { domain: 'synthetic', caseId, model: { adapter: 'scripted', replies: dualTouch }, start: samsStart });
    const awaiting = await waitForRequest(handle);
    expect((await handle.query(stateQuery)).state.starter).toBeUndefined();
    await expectRefused(
      handle.executeUpdate(approveUpdate, { args: [signDecision(keys.tess, workflowId, awaiting, 'approve', 'mine')] }),
      /start was not signed/,
    );
    await handle.signal(cancelSignal, { by: 'test', reason: 'done probing' });
    expect((await handle.result()).effects.filter((e) => e.tool === 'dual_touch')).toEqual([]);
  });

  it('an earlier start statement replayed by someone else leaves the start unsigned, so notStarter holds', async () => {
    const caseId = uniqueCase('Q');
    const workflowId = `synthetic-${caseId}`;
    // Sam started an earlier execution under this id with a long-lived statement...
    const samsStart = signStart(keys.sam, workflowId, { validForMs: 2 * 3_600_000, bound: boundFor(caseId, dualTouch) });
    const earlier = await startRun(h, { domain: 'synthetic', caseId, model: { adapter: 'scripted', replies: dualTouch }, start: samsStart });
    await waitForRequest(earlier);
    await earlier.terminate('over');
    // ...which tess now replays to name sam as the starter of her own run, then approves it
    // herself with sam's help: if the start counted, tess would be an eligible non-starter.
    const handle: AgentHandle = await startRun(h, { domain: 'synthetic', caseId, model: { adapter: 'scripted', replies: dualTouch }, start: samsStart });
    const awaiting = await waitForRequest(handle);
    const approve = (key: typeof keys.tess) => handle.executeUpdate(approveUpdate, { args: [signDecision(key, workflowId, awaiting, 'approve', 'mine')] });
    await expectRefused(approve(keys.tess), /start was not signed/);
    expect((await handle.query(stateQuery)).state.starter).toBeUndefined();
    await handle.signal(cancelSignal, { by: 'test', reason: 'done probing' });
    const result = await handle.result();
    expect(result.effects.filter((e) => e.tool === 'dual_touch')).toEqual([]);
  });
});

/** What `key`'s approval of the waiting request came to: the decision recorded, or the refusal's words. */
const decisionOf = (handle: AgentHandle, key: typeof keys.tess, awaiting: Awaiting) =>
  handle.executeUpdate(approveUpdate, { args: [signDecision(key, handle.workflowId, awaiting, 'approve', 'mine')] }).then(
    (ack) => ack.decision,
    (err: unknown) => (err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err)),
  );

describe('a start statement is spent as the run starts, whether or not it ever raises a request', () => {
  // A third synthetic approver, so that a quorum of two can be met without the starter.
  const threeApprovers = {
    approvers: [...TEST_DIRECTORY.approvers.filter((a) => a.id !== keys.alice.id), directoryEntry(keys.alice, ['payments-approver', 'synthetic-approver'])],
  };
  // What reached the world: every dual_touch the worker's tool activity was asked to run.
  const touches: string[] = [];
  const taskQueue = uniqueTaskQueue('start-spent');
  let w: StartedWorker;
  beforeAll(async () => {
    w = await startWorkerWith({
      taskQueue,
      activities: { approvers: threeApprovers },
      swap: (built) => ({
        invokeTool: async (input: Parameters<typeof built.invokeTool>[0]) => {
          if (input.call.tool === 'dual_touch') touches.push(input.caseId);
          return built.invokeTool(input);
        },
        // A run of the held case has taken its start and waits on its first proposal: it asks for nothing yet.
        propose: async (input: Parameters<typeof built.propose>[0]) => {
          if (input.caseId === held?.caseId) await held.released;
          return built.propose(input);
        },
      }),
    });
  });
  afterAll(async () => {
    held?.release();
    await w.close();
  });
  let held: { caseId: string; released: Promise<void>; release: () => void } | undefined;
  const hold = (caseId: string) => {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    held = { caseId, released, release };
    return held;
  };

  it("sam's start, replayed by tess into her own run after sam's ended without a request, names nobody: her own approval is refused and no dual_touch reaches the world", async () => {
    const caseId = uniqueCase('Q');
    const workflowId = `synthetic-${caseId}`;
    // Sam's run takes his start and ends while its first proposal is still out: it never raises a
    // request, so it never reads the directory for one.
    const samsStart = signStart(keys.sam, workflowId, { validForMs: 10 * 60_000, bound: boundFor(caseId, dualTouch) });
    const gate = hold(caseId);
    const earlier = await startRun(w, { domain: 'synthetic', caseId, model: { adapter: 'scripted', replies: dualTouch }, start: samsStart });
    await waitUntil(async () => (await earlier.query(stateQuery)).state.starter === keys.sam.id, "sam's start to be taken");
    await earlier.terminate('over before it asked anything');
    gate.release();
    expect((await earlier.fetchHistory()).events?.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'invokeTool')).toBe(false);

    // Tess replays it to name sam as the starter of her own run, and approves that run herself, with alice.
    const handle: AgentHandle = await startRun(w, { domain: 'synthetic', caseId, model: { adapter: 'scripted', replies: dualTouch }, start: samsStart });
    const awaiting = await waitForRequest(handle);
    const decisions = [await decisionOf(handle, keys.tess, awaiting), await decisionOf(handle, keys.alice, awaiting)];
    await handle.signal(cancelSignal, { by: 'test', reason: 'done probing' });
    const result = await handle.result();
    // What reached the world first: nothing.
    expect(touches.filter((c) => c === caseId)).toEqual([]);
    expect(result.effects.filter((e) => e.tool === 'dual_touch')).toEqual([]);
    // Why: the start was taken by sam's execution, so this one names nobody and four-eyes refuses every approval.
    for (const decision of decisions) expect(decision).toMatch(/start was not signed/);
    const view = await handle.query(stateQuery);
    expect(view.state.starter).toBeUndefined();
    expect(view.state.transcript.some((t) => t.kind === 'control' && t.code === 'start_spent')).toBe(true);
  });

  it("sam's start and request, lifted onto a run of other settings, are not used up there: sam's own run, started after it with them, names him and takes his request", async () => {
    const caseId = uniqueCase('Q');
    const workflowId = `synthetic-${caseId}`;
    const signedFor = runBinding(inject('temporalNamespace'), settingsOf(caseId, { turns: 6 }));
    const statements = {
      start: signStart(keys.sam, workflowId, { validForMs: 10 * 60_000, bound: signedFor }),
      request: signNote(keys.sam, workflowId, 'touch it, please', { bound: signedFor }),
    };
    // Someone who read sam's input starts the id first, with his statements and a larger budget.
    const lifted: AgentHandle = await startRun(w, { ...settingsOf(caseId, { turns: 60 }), ...statements });
    await waitForRequest(lifted);
    const liftedView = await lifted.query(stateQuery);
    expect(liftedView.state.starter).toBeUndefined();
    await lifted.signal(cancelSignal, { by: 'test', reason: 'done probing' });
    await lifted.result();

    // Sam starts his own run, with the settings he signed for: his start names him, his request is his word.
    const own: AgentHandle = await startRun(w, { ...settingsOf(caseId, { turns: 6 }), ...statements });
    await waitForRequest(own);
    const view = await own.query(stateQuery);
    await own.signal(cancelSignal, { by: 'test', reason: 'done probing' });
    await own.result();
    const codes = (v: typeof view) => v.state.transcript.flatMap((t) => (t.kind === 'control' ? [t.code] : []));
    expect(codes(liftedView)).toEqual(expect.arrayContaining(['start_unbound', 'request_unbound']));
    expect(view.state.starter).toBe(keys.sam.id);
    expect(codes(view)).not.toEqual(expect.arrayContaining(['start_spent']));
    expect(view.state.transcript.filter((t) => t.kind === 'note').map((t) => t.trusted)).toEqual([true]);
    expect(touches.filter((c) => c === caseId)).toEqual([]);
  });

  it("sam's start and request, lifted onto a run of other settings or another namespace before his own run took them, name nobody and vouch for nothing: approvals are refused and no dual_touch reaches the world", async () => {
    // Sam signs for a run with a small turn budget. Before his run's first workflow task, someone
    // who read its input ends it and starts the same id with his statements and settings of their
    // own (here a larger budget), or replays them in another namespace: neither was signed for.
    // The request goes with the lifted start in one case, and as a note to the lifted run in the other.
    for (const [label, bound, budgets, requestCode] of [
      ['other settings', (caseId: string) => runBinding(inject('temporalNamespace'), settingsOf(caseId, { turns: 6 })), { turns: 60 }, 'request_unbound'],
      ['another namespace', (caseId: string) => runBinding('elsewhere', settingsOf(caseId, { turns: 6 })), { turns: 6 }, 'note_unbound'],
    ] as const) {
      const caseId = uniqueCase('Q');
      const workflowId = `synthetic-${caseId}`;
      const signedFor = bound(caseId);
      const request = signNote(keys.sam, workflowId, 'touch it, please', { bound: signedFor });
      const lifted: RunInput = {
        ...settingsOf(caseId, budgets),
        start: signStart(keys.sam, workflowId, { validForMs: 10 * 60_000, bound: signedFor }),
        ...(requestCode === 'request_unbound' ? { request } : {}),
      };
      const handle: AgentHandle = await startRun(w, lifted);
      const awaiting = await waitForRequest(handle);
      if (requestCode === 'note_unbound') expect((await handle.executeUpdate(addNoteUpdate, { args: [request] })).trusted, label).toBe(false);
      const decisions = [await decisionOf(handle, keys.tess, awaiting), await decisionOf(handle, keys.alice, awaiting)];
      await handle.signal(cancelSignal, { by: 'test', reason: 'done probing' });
      await handle.result();
      expect(
        touches.filter((c) => c === caseId),
        label,
      ).toEqual([]);
      for (const decision of decisions) expect(decision, label).toMatch(/start was not signed/);
      const view = await handle.query(stateQuery);
      expect(view.state.starter, label).toBeUndefined();
      const codes = view.state.transcript.flatMap((t) => (t.kind === 'control' ? [t.code] : []));
      expect(codes, label).toEqual(expect.arrayContaining(['start_unbound', requestCode]));
    }
  });
  it("a note signed through AgentClient names the run's namespace and settings, so its copy vouches in no other namespace's run of the id", async () => {
    const caseId = uniqueCase('Q');
    const settings = settingsOf(caseId, { turns: 6 });
    const handle: AgentHandle = await startRun(w, settings);
    await waitForRequest(handle);
    const sent = await new AgentClient({ client: w.client, taskQueue }).note(handle.workflowId, 'touch it, please', { key: keys.sam });
    // Trusted here: what the client computed from the run's input is what the run computes from it.
    expect(sent.trusted).toBe(true);
    // The note as the server keeps it, which anyone who reads the history can copy: it names this
    // namespace and these settings, and a run that differs in either takes it as unsigned text
    // (note_unbound, the test above).
    const accepted = (await handle.fetchHistory()).events?.find(
      (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'addNote',
    );
    const [payload] = accepted?.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.args?.payloads ?? [];
    const note = JSON.parse(Buffer.from(payload?.data ?? new Uint8Array()).toString()) as { statement?: { bound?: string } };
    expect(note.statement?.bound).toBe(runBinding(inject('temporalNamespace'), settings));
    await handle.signal(cancelSignal, { by: 'test', reason: 'done probing' });
    await handle.result();
  });
});

describe('a quorum counts keys, not ids', () => {
  // One person, one key, two names in the directory.
  const twoNames = { approvers: [...TEST_DIRECTORY.approvers, { ...directoryEntry(keys.sam, ['synthetic-approver']), id: 'sam-again@bench' }] };

  it('the directory refuses a public key listed under two ids, naming them', () => {
    const parsed = ApproverDirectory.safeParse(twoNames);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/sam@bench and sam-again@bench/);
    expect(() => createActivities({ implementations, deps: { world: new WorldClient(inject('worldUrl')) }, blobDir: tmpdir(), approvers: twoNames })).toThrow(
      /sam-again@bench/,
    );
  });

  // A worker whose directory activity answers with that directory anyway (a misconfigured or
  // compromised worker): the run itself must still not count one key twice.
  const taskQueue = uniqueTaskQueue('two-names');
  let h: StartedWorker;
  beforeAll(async () => {
    h = await startWorkerWith({ taskQueue, swap: () => ({ loadApprovers: async () => twoNames }) });
  });
  afterAll(async () => h.close());

  it('one key under two ids cannot meet quorum 2: no dual_touch happens', async () => {
    const caseId = uniqueCase('Q');
    const workflowId = `synthetic-${caseId}`;
    const handle = await startRun(h, {
      domain: 'synthetic',
      caseId,
      model: { adapter: 'scripted', replies: dualTouch },
      start: signStart(keys.alice, workflowId, { bound: boundFor(caseId, dualTouch) }),
    });
    // The run checks the directory it is given like any input and refuses it whole, so the
    // request has nobody eligible: it is closed at once, never shown, and the run escalates
    // (dual_touch escalates when nobody can approve). Were the directory taken, sam would show
    // as eligible under both names and the request would be shown, waiting for approvals.
    const settled = await waitUntil(async () => {
      const view = await handle.query(stateQuery);
      return view.state.terminal || view.awaiting ? view : undefined;
    }, 'the dual_touch request to be shown or the run to end');
    expect(settled.awaiting).toBeUndefined();
    const result = await handle.result();
    expect(result.terminal).toMatchObject({ class: 'escalated', reason: 'no_approver' });
    expect(result.terminal.detail).toMatch(/the directory has 0$/);
    expect(settled.state.approvals).toEqual([expect.objectContaining({ decision: 'timed_out', by: 'directory' })]);
    expect(result.effects.filter((e) => e.tool === 'dual_touch')).toEqual([]);
  });
});
