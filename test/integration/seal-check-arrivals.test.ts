// What reaches a run while it has not yet acted on a result whose seal it is checking (a local
// activity) waits for it (workflows/arrivals.ts): an Update is refused as busy, and the engine's
// client sends it again; a cancel signal, and Temporal's own cancel, reach the loop only once it
// has started its next work; a rollover in that window carries a waiting cancel to the next
// execution; and the loop judges the result at the time the check started (arrivals.ts
// loopNow). Each test holds the seal checks of one run (the worker's own local activity, wrapped)
// until core has reported the run's workflow task without the result and taken the next, so what
// the test sends is delivered while the check is pending, as it is when core hands the check's
// result over a task late. Every history is then replayed.
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { describe, expect, inject, it } from 'vitest';
import { sentUntilTaken } from '../../client/bounded-calls.js';
import { agentWorkflow } from '../../domains/workflows.js';
import { seedIncident } from '../../domains/world/seeds.js';
import { addNoteUpdate, cancelSignal, stateQuery } from '../../workflows/messages.js';
import { ErrorTypes } from '../../workflows/policy.js';
import type { RunInput } from '../../workflows/run-input.js';
import { uniqueCase, useAgentHarness } from '../support/agent.js';
import { heldActivity } from '../support/held-activity.js';
import { waitUntil } from '../support/wait.js';

type Handle = WorkflowHandle<typeof agentWorkflow>;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

// metrics c1 -> e2; restart c3 -> e4 (its reply's seal is checked: the held check); metrics; finish.
const restartReplies = [
  { type: 'call', calls: [{ tool: 'get_metrics', args: { service: 'cache' } }] },
  { type: 'call', calls: [{ tool: 'restart_service', args: { service: 'cache' } }] },
  { type: 'call', calls: [{ tool: 'get_metrics', args: { service: 'cache' } }] },
  { type: 'finish', outcome: 'resolved', claim: { remediated: 'cache' }, evidence: ['e6'] },
];

describe('arrivals while a seal check is pending', () => {
  const checks = heldActivity('checkResultSeals');
  const h = useAgentHarness({ wrapActivities: checks.wrap });

  /**
   * Starts the restart run. While its check is held, core reports the workflow task before it
   * times out (a heartbeat, at four fifths of the task's timeout) and takes the next one, which
   * brings what the server has for the run. A short timeout makes that a few seconds, well within
   * the check's own timeout.
   */
  async function start(caseId: string, run: Partial<RunInput> = {}): Promise<Handle> {
    await seedIncident(h.world, caseId);
    return h.client.workflow.start(agentWorkflow, {
      taskQueue: h.taskQueue,
      workflowId: `incidents-${caseId}`,
      workflowTaskTimeout: '3 seconds',
      args: [{ run: { domain: 'incidents', caseId, model: { adapter: 'scripted', replies: restartReplies }, ...run } }],
    });
  }

  /** Starts the run with its seal checks held, once one is running. */
  async function startHeld(run: Partial<RunInput> = {}) {
    const caseId = uniqueCase('INC');
    const held = checks.hold(`incidents-${caseId}`);
    const handle = await start(caseId, run);
    await held.entered;
    return { caseId, handle, held };
  }

  /** The marker of a seal check (the run's only local activity); the rule set's patch is a marker too. */
  const sealChecked = (e: HistoryEvent) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity';
  const events = async (handle: Handle): Promise<HistoryEvent[]> => (await handle.fetchHistory()).events ?? [];

  /** An event `seen` picks out is in the history with a workflow task completed after it: the workflow has had it. */
  async function delivered(handle: Handle, seen: (e: HistoryEvent) => unknown, what: string): Promise<void> {
    await waitUntil(async () => {
      const history = await events(handle);
      const at = history.findIndex((e) => seen(e));
      return at >= 0 && history.slice(at).some((e) => e.workflowTaskCompletedEventAttributes);
    }, what);
  }

  async function replays(handle: Handle): Promise<void> {
    const history = await handle.fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, handle.workflowId);
  }

  /**
   * The restart applied and its checked reply acted on before what arrived while it was held: the
   * next activity after the check is the model call (not a stop), the restart's metrics were read
   * once, and the history replays.
   */
  async function repliedBeforeArrival(handle: Handle, caseId: string, result: Awaited<ReturnType<Handle['result']>>): Promise<void> {
    expect(result.effects).toEqual([expect.objectContaining({ tool: 'restart_service', status: 'applied' })]);
    const history = await events(handle);
    const next = history.slice(history.findIndex(sealChecked)).find((e) => e.activityTaskScheduledEventAttributes);
    expect(next?.activityTaskScheduledEventAttributes?.activityType?.name).toBe('propose');
    expect(await h.world.calls({ key: caseId, op: 'incidents.metrics' })).toHaveLength(1);
    await replays(handle);
  }

  it('an Update is refused as busy, leaves no trace, and the client sends it again until it is taken', async () => {
    const { handle, held } = await startHeld();

    // Sent while the check is held: the server hands it over with the task after the heartbeat.
    const direct = await handle.executeUpdate(addNoteUpdate, { args: [{ by: 'ops', text: 'sent once' }] }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(direct).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (direct as WorkflowUpdateFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe(ErrorTypes.runBusy);

    // The engine's client sends it again until the run takes it: after the check is acted on.
    let attempts = 0;
    const noted = sentUntilTaken(() => {
      attempts++;
      return handle.executeUpdate(addNoteUpdate, { args: [{ by: 'ops', text: 'sent until taken' }] });
    }, Date.now() + 100_000);
    await waitUntil(() => attempts >= 2, 'the note sent again after a refusal');
    held.release();
    expect(await noted).toEqual({ accepted: true, trusted: false });

    const result = await handle.result();
    expect(result.terminal.class).toBe('resolved');
    const history = await events(handle);
    const accepted = history.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(accepted).toHaveLength(1); // the refused one left nothing
    const marker = history.findIndex(sealChecked);
    expect(history.indexOf(accepted[0] as HistoryEvent)).toBeGreaterThan(marker);
    const notes = (await handle.query(stateQuery)).state.transcript.filter((t) => t.kind === 'note');
    expect(notes.map((n) => (n.kind === 'note' ? n.text : ''))).toEqual([expect.stringContaining('sent until taken')]);
    await replays(handle);
  });

  it("a cancel signal waits until the loop has started its next work, and the run's history replays", async () => {
    const { caseId, handle, held } = await startHeld();

    await handle.signal(cancelSignal, { by: 'ops', reason: 'stop after the restart' });
    // The signal has reached the workflow (a task completed after it) while the check is held.
    await delivered(handle, (e) => e.workflowExecutionSignaledEventAttributes, 'the cancel to reach the workflow');
    held.release();

    const result = await handle.result();
    expect(result.terminal).toMatchObject({ class: 'cancelled', reason: 'operator_cancel' });
    // The checked reply was acted on first: the next model call was scheduled before the cancel was taken.
    await repliedBeforeArrival(handle, caseId, result);
  });

  it("the loop acts on a held check's result at the check's own time: a deadline that passes meanwhile is taken after the next model call is scheduled", async () => {
    // The deadline must pass while the check is held, so the run has to reach its restart first:
    // where it did not (a slow machine), the run is dropped and tried with a longer deadline. Each
    // is short of the check's own timeouts (3 attempts of 10 s: policy.ts), so the check still answers.
    const fired = (e: HistoryEvent) => e.timerFiredEventAttributes;
    let run: { caseId: string; handle: Handle; held: ReturnType<typeof checks.hold> } | undefined;
    for (const deadlineMs of [8_000, 16_000, 24_000]) {
      const caseId = uniqueCase('INC');
      const held = checks.hold(`incidents-${caseId}`);
      const handle = await start(caseId, { budgets: { deadlineMs } });
      // A run whose deadline came before its restart ends without a check to hold.
      const reached = await Promise.race([held.entered.then(() => true), handle.result().then(() => false)]);
      if (reached && !(await events(handle)).some(fired)) {
        run = { caseId, handle, held };
        break;
      }
      held.release();
      if (reached) await handle.terminate('the deadline passed before the check started');
    }
    if (!run) throw new Error('the run never reached its restart before its deadline');
    const { caseId, handle, held } = run;

    // The deadline's timer has fired and the workflow has had it, while the check is held.
    await delivered(handle, fired, "the deadline's timer to reach the workflow");
    held.release();

    const result = await handle.result();
    expect(result.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:deadline' });
    // Judged at the check's own time, which is before the deadline, the reply was followed by the
    // next model call; judged at the time the result came (after the deadline), the run would
    // have stopped on it there. (This history replays either way: a long check's result comes
    // with a later task on replay too. Where a query made core hand a short check's result over a
    // task late, replay takes it at the check's own task: only the check's time agrees with both.)
    await repliedBeforeArrival(handle, caseId, result);
  }, 180_000); // up to three deadlines of the run's own

  it("Temporal's own cancel, after the agent's, waits too: the run ends cancelled, no task fails, and its history replays", async () => {
    const { handle, held } = await startHeld();

    await handle.signal(cancelSignal, { by: 'ops', reason: 'stop after the restart' });
    await delivered(handle, (e) => e.workflowExecutionSignaledEventAttributes, 'the signal to reach the workflow');
    await handle.cancel();
    await delivered(handle, (e) => e.workflowExecutionCancelRequestedEventAttributes, "Temporal's cancel to reach the workflow");
    held.release();

    const result = await handle.result();
    expect(result.terminal).toMatchObject({ class: 'cancelled', reason: 'operator_cancel' });
    expect(result.effects).toEqual([expect.objectContaining({ tool: 'restart_service', status: 'applied' })]);
    const history = await events(handle);
    // Both waited without failing a task (a wait that Temporal's cancel could reject would fail every one).
    expect(history.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
    await replays(handle);
  });

  it('a rollover while a cancel waits carries it, and the next execution takes it first', async () => {
    // The rollover's threshold is the history's length when the restart's check starts, taken
    // from the same script run once without a hold: the run is short of it at every quiet point
    // before its restart, and past it at the one after, where the loop judges by the task its
    // check started in (arrivals.ts loopTask).
    const reads = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((limit) => ({ type: 'call', calls: [{ tool: 'get_logs', args: { service: 'cache', limit } }] }));
    const script = { model: { adapter: 'scripted' as const, replies: [...reads, ...restartReplies] }, budgets: { turns: 30 } };
    const dry = await start(uniqueCase('INC'), script);
    expect((await dry.result()).terminal.class).toBe('resolved');
    const dryHistory = await events(dry);
    expect(dryHistory.some(sealChecked)).toBe(true);
    const checkTask = [...dryHistory.slice(0, dryHistory.findIndex(sealChecked))].reverse().find((e) => e.workflowTaskStartedEventAttributes);
    const threshold = Number(checkTask?.eventId) - 6; // the quiet point before is 12 events earlier: a task timed out in either run moves it by 3
    const { handle, held } = await startHeld({ ...script, continueAsNewAfterEvents: threshold });
    const first = (await handle.describe()).runId;

    // Seventeen of them: the rollover carries one (the next execution would refuse more than 16).
    for (let i = 0; i < 17; i++) await handle.signal(cancelSignal, { by: 'ops', reason: 'stop after the restart' });
    await delivered(handle, (e) => e.workflowExecutionSignaledEventAttributes, 'the signal to reach the workflow');
    held.release();

    const result = await handle.result();
    expect(result.terminal).toMatchObject({ class: 'cancelled', reason: 'operator_cancel' });
    expect(result.terminal.detail).toContain('ops');
    expect(result.effects).toEqual([expect.objectContaining({ tool: 'restart_service', status: 'applied' })]);
    // It rolled over with the cancel it was holding, and the next execution took it first.
    const firstHistory = (await h.client.workflow.getHandle(handle.workflowId, first).fetchHistory()).events ?? [];
    const continued = firstHistory.at(-1)?.workflowExecutionContinuedAsNewEventAttributes;
    expect(continued).toBeDefined();
    const second = await handle.fetchHistory();
    expect(second.events?.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'propose')).toEqual([]);
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, { events: firstHistory }, handle.workflowId);
    await replays(handle);
  });
});
