// Shared helpers of the adversarial suite. The suite judges the engine by what reached the
// world (the simulated systems of record), so most helpers here read the world's own call log
// and effects table; the rest start runs and play the people around them (approvers who
// approve whatever they are shown, polling for a request).
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { expect } from 'vitest';
import { signDecision, type KeyFile } from '../../client/sign.js';
import type { WorldClient } from '../../domains/world/client.js';
import type { CallRecord, EffectRecord } from '../../domains/world/contract.js';
import type { AgentWorkflow } from '../../workflows/agent.js';
import type { RunInput } from '../../workflows/run-input.js';
import { addNoteUpdate, approveUpdate, stateQuery, type RunResult, type RunView } from '../../workflows/messages.js';
import { PATIENCE_MS, untilAwaiting, waitUntil } from './wait.js';

export type AgentHandle = WorkflowHandle<AgentWorkflow>;
export type Awaiting = NonNullable<RunView['awaiting']>;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Every reissue request the processor received for a transfer (including refused ones). */
export async function reissueCalls(world: WorldClient, transferId: string): Promise<CallRecord[]> {
  const calls = await world.calls({ op: 'payments.reissue' });
  return calls.filter((c) => c.key === transferId || bodyField(c, 'transferId') === transferId);
}

/** Reissues the processor actually made for a transfer. */
export async function reissuesOf(world: WorldClient, transferId: string): Promise<EffectRecord[]> {
  return (await world.effects({ key: transferId })).filter((e) => e.kind === 'reissue' && e.key === transferId);
}

/** Restart or revert requests the orchestrator received for one service of an incident. */
export async function incidentCalls(world: WorldClient, caseId: string, op: 'incidents.restart' | 'incidents.revert', service?: string): Promise<CallRecord[]> {
  const calls = await world.calls({ key: caseId, op });
  return calls.filter((c) => service === undefined || bodyField(c, 'service') === service);
}

/** Restarts or reverts the orchestrator applied in an incident, optionally of one service. */
export async function incidentEffects(world: WorldClient, caseId: string, kind: 'restart' | 'revert', service?: string): Promise<EffectRecord[]> {
  const effects = await world.effects({ key: caseId });
  return effects.filter((e) => e.kind === kind && (service === undefined || e.details.service === service));
}

export function bodyField(call: CallRecord, field: string): unknown {
  return call.body && typeof call.body === 'object' ? (call.body as Record<string, unknown>)[field] : undefined;
}

/** The pending approval request, once the approver directory has been loaded for it. */
export function waitForRequest(handle: AgentHandle): Promise<Awaiting> {
  return untilAwaiting(async () => {
    const view = await handle.query(stateQuery);
    return { awaiting: view.awaiting, terminal: view.state.terminal };
  }, 'an approval request');
}

export interface Watched {
  result: RunResult;
  view: RunView;
  /** Every approval request seen while the run was live (by request id). */
  requests: Awaiting[];
}

/**
 * Follows a run to its end. Whenever it asks for approval, `approver` (if given) signs and
 * approves whatever it is shown: a careless approver, so only the engine stands between the
 * model and the world.
 */
export async function watchRun(handle: AgentHandle, approver?: KeyFile): Promise<Watched> {
  const requests = new Map<string, Awaiting>();
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const view = await handle.query(stateQuery);
    if (view.state.terminal) break;
    const awaiting = view.awaiting;
    if (awaiting && !requests.has(awaiting.requestId)) requests.set(awaiting.requestId, awaiting);
    if (awaiting && approver && awaiting.eligible.length > 0 && !awaiting.approvedBy.includes(approver.id)) {
      await handle
        .executeUpdate(approveUpdate, { args: [signDecision(approver, handle.workflowId, awaiting, 'approve', 'looks fine to me')] })
        .catch(() => undefined); // the request may have closed in between; the loop looks again
    }
    if (Date.now() > deadline) throw new Error(`run ${handle.workflowId} did not end within ${PATIENCE_MS} ms`);
    await sleep(50);
  }
  const result = await handle.result();
  const view = await handle.query(stateQuery);
  return { result, view, requests: [...requests.values()] };
}

/**
 * Resolves once the run's deadline timer has fired and a workflow task has completed after it:
 * from then on the state query answers with the controller's verdict on that deadline, so a
 * test can assert what the deadline did (or did not do) without guessing how long it takes.
 */
export function deadlineTaken(handle: AgentHandle): Promise<true> {
  const id = (v: unknown) => Number(String(v));
  return waitUntil(async () => {
    const events = (await handle.fetchHistory()).events ?? [];
    const armed = events.filter((e) => e.timerStartedEventAttributes && payloadText(e.userMetadata?.summary) === JSON.stringify('run deadline'));
    const fired = events.find((e) => e.timerFiredEventAttributes && armed.some((a) => id(a.eventId) === id(e.timerFiredEventAttributes?.startedEventId)));
    return fired !== undefined && events.some((e) => e.workflowTaskCompletedEventAttributes && id(e.eventId) > id(fired.eventId));
  }, 'the run deadline timer to fire and the run to take it');
}

function payloadText(payload: { data?: Uint8Array | null } | null | undefined): string | undefined {
  return payload?.data ? Buffer.from(payload.data).toString('utf8') : undefined;
}

/** The promise's value, or a failure naming `what` if it takes longer than `ms`. */
export async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A validator's refusal arrives as WorkflowUpdateFailedError with the reason as its cause. */
export async function expectRefused(update: Promise<unknown>, reason: RegExp): Promise<void> {
  const error = await update.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected the update to be refused with ${String(reason)}`).toBeInstanceOf(WorkflowUpdateFailedError);
  expect((error as WorkflowUpdateFailedError).cause?.message).toMatch(reason);
}

/** The control codes the controller fed back to the model, in order. */
export function controlCodes(view: RunView): string[] {
  return view.state.transcript.flatMap((t) => (t.kind === 'control' ? [t.code] : []));
}

/** The control messages the controller fed back to the model, in order. */
export function controlMessages(view: RunView): string[] {
  return view.state.transcript.flatMap((t) => (t.kind === 'control' ? [`${t.code}: ${t.message}`] : []));
}

/**
 * A payments run that rolls over past 100 events and waits an hour for its approval: notesUntil
 * can then force rollovers while its request is pending.
 */
export function rollingPaymentsRun(transferId: string): RunInput {
  return { domain: 'payments', caseId: transferId, model: { adapter: 'rules' }, approvalTimeoutMs: 3_600_000, continueAsNewAfterEvents: 100 };
}

/**
 * Unsigned notes, as anyone may add them, until `done()` says so (the run rolled over, say): each
 * adds to the history, and a run rolls over at its next quiet point past its event limit. At most
 * `limit` notes; whether `done()` came.
 */
export async function notesUntil(handle: WorkflowHandle<AgentWorkflow>, done: () => Promise<boolean>, limit: number): Promise<boolean> {
  for (let i = 0; i < limit; i++) {
    if (await done()) return true;
    await handle.executeUpdate(addNoteUpdate, { args: [{ by: 'anyone', text: `filler ${i}` }] }).catch(() => undefined);
  }
  return done();
}
