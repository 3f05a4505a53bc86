// How each of the controller's commands is carried out durably: which activity runs it, with
// which retry and timeout policy (policy.ts), and how its outcome, or its failure, becomes the
// controller's next event. The loop in agent.ts knows only that a command becomes Work. What a
// tool call's result is when the call cannot give one that counts is tool-results.ts.
import { ActivityFailure, CancellationScope, TimeoutFailure, condition, proxyActivities, sleep } from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.js';
import { actedOn, loopNow } from './arrivals.js';
import type { Domain } from './contract.js';
import { type Command, compactJson, type RunEvent, type PlannedCall } from './controller/index.js';
import { ProbeVerdict, ReadbackResult, type ReadSeal, type ReplySeal, type ToolResult, UsageFloor } from './protocol.js';
import { CLAIMED_READBACKS, MODEL_OUTAGE_MS, modelOptions, probeOptions, toolCallOptions } from './policy.js';
import type { RunInput } from './run-input.js';
import { firstTakeable, nonce, openRead, own, readSeals, readsVouched, sealedCall, type Opened } from './sealed.js';
import { directorySpending, spentBy } from './statement-spending.js';
import { approvedDispatchId } from './statement-use.js';
import { claimedResult, failedCallResult, failureMessage, notSent, toolResultOf } from './tool-results.js';

// Every proxy's options come from the one retry and timeout policy.
const models = proxyActivities<AgentActivities>(modelOptions);
const probes = proxyActivities<AgentActivities>(probeOptions);

/**
 * A command under way: what it waits for, and how its outcome becomes the controller's event.
 * The loop awaits `pending` itself rather than a promise chain made here: the SDK records a
 * stack trace for every promise a workflow creates (for its stack-trace query), and on a turn
 * that does nothing but wait for two activities each extra `.then` was a measurable share of
 * the worker's CPU.
 */
export interface Work {
  pending: Promise<unknown>;
  done(value: unknown): RunEvent;
  failed(err: unknown): RunEvent;
}

function work<T>(pending: Promise<T>, done: (value: T) => RunEvent, failed: (err: unknown) => RunEvent = rethrow): Work {
  return { pending, done: done as (value: unknown) => RunEvent, failed };
}

/** For work whose promise never rejects on purpose: a rejection there is a bug, and fails the task. */
function rethrow(err: unknown): never {
  throw err;
}

export function perform(command: Exclude<Command, { type: 'stop' }>, run: RunInput, domain: Domain, queue: RunEvent[]): Work {
  switch (command.type) {
    case 'propose': {
      const turn = command.context.runtime.turn;
      // In shape plan the planner's reply is what the plan's own values rest on: it is sealed, and taken as a read.
      const once = run.shape === 'plan' ? nonce() : undefined;
      return work(
        models.propose.executeWithOptions(modelCallOptions(run, `propose turn ${turn} (${run.model.adapter})`), [
          {
            domain: domain.name,
            caseId: run.caseId,
            model: run.model,
            context: command.context,
            proposalIndex: command.proposalIndex,
            ...(run.team ? { team: run.team } : {}),
            ...(once ? { nonce: once } : {}),
          },
        ]),
        (reply): RunEvent =>
          spendRefusal(reply) ??
          (once ? unsealedPlan(reply, once, turn) : undefined) ??
          (typeof reply?.tokens === 'number' && Number.isFinite(reply.tokens)
            ? {
                type: 'proposed',
                now: loopNow(),
                reply: reply.reply,
                tokens: reply.tokens,
                contextTokens: command.context.tokenEstimate,
                ...costOf(reply),
                ...floorOf(reply),
              }
            : { type: 'modelFailed', now: loopNow(), message: 'the model activity returned no numeric token count' }),
        (err): RunEvent => ({ type: 'modelFailed', now: loopNow(), message: failureMessage(err), ...(isOutage(err) ? { outage: true } : {}) }),
      );
    }
    case 'invoke': {
      const observed = (results: ToolResult[]): RunEvent => ({ type: 'observed', now: loopNow(), results });
      // Most turns make one call, and it needs no Promise.all (which adds a promise per call).
      const [only] = command.calls;
      if (command.calls.length === 1 && only) {
        const call = callTool(only, run, domain);
        return work(
          call.pending,
          (raw) => observed([call.done(raw)]),
          (err) => observed([call.failed(err)]),
        );
      }
      return work(Promise.all(command.calls.map((c) => callTool(c, run, domain)).map((call) => call.pending.then(call.done, call.failed))), observed);
    }
    case 'verify': {
      const { soak } = command;
      // The probe carries the seals of the run's reads too: a run does not end on a read nobody vouched for.
      const ask = () => {
        const reads = readSeals();
        return sealedCall<unknown>((nonce) =>
          probes.verify.executeWithOptions({ summary: `verify ${compactJson(command.claim, 80)}${soak ? ' over the soak window' : ''}` }, [
            { domain: domain.name, caseId: run.caseId, claim: command.claim, ...(soak ? { soak } : {}), nonce, ...(reads.length ? { reads } : {}) },
          ]),
        ).then((opened) => {
          if (opened.sealed && (opened.value as { decided?: unknown } | null)?.decided === true) readsVouched(reads);
          return opened;
        });
      };
      // A soak waits on a durable timer: a worker restart or a deploy in the window changes nothing.
      const asked = soak && soak.until > loopNow() ? sleep(soak.until - loopNow(), { summary: 'soak window' }).then(ask) : ask();
      return work(
        asked,
        (opened): RunEvent => {
          const verdict = opened.sealed ? ProbeVerdict.safeParse(opened.value) : undefined;
          if (verdict?.success) return { type: 'verified', now: loopNow(), verdict: verdict.data };
          const now = loopNow();
          const detail = opened.sealed
            ? 'the probe returned something that is not a verdict'
            : `the probe's answer is not a worker's (${opened.reason}): it decides nothing`;
          return { type: 'verified', now, verdict: { holds: false, conflict: false, decided: false, detail, facts: {}, checkedAt: now } };
        },
        (err): RunEvent => {
          const now = loopNow();
          return {
            type: 'verified',
            now,
            verdict: { holds: false, conflict: false, decided: false, detail: `probe could not run: ${failureMessage(err)}`, facts: {}, checkedAt: now },
          };
        },
      );
    }
    case 'readback':
      return work(readback(command, run, domain), (result): RunEvent => ({ type: 'reconciled', now: loopNow(), result }));
    case 'loadApprovers': {
      // The directory is the worker's configuration; what comes back is checked like any input.
      const requestId = command.request.requestId;
      return work(directorySpending(`approvers for ${command.request.call.tool}`), ({ approvers }): RunEvent => ({
        type: 'approversLoaded',
        now: loopNow(),
        requestId,
        approvers: approvers ?? [],
      }));
    }
    case 'awaitApproval':
      return work(arrival(queue, command.request.expiresAt, `approval wait: ${command.request.call.tool}`), (arrived): RunEvent =>
        arrived ? (queue.shift() as RunEvent) : { type: 'approvalTimedOut', now: loopNow(), requestId: command.request.requestId },
      );
  }
}

/**
 * Whether something arrived for a run awaiting approval (first in the queue, for the loop to
 * take) before the request expired. A decision counts as arrived only once the directory read it
 * was judged on holds (sealed.ts firstTakeable); one that does not leaves the queue untaken
 * (its handler says why) and the wait goes on.
 */
async function arrival(queue: RunEvent[], expiresAt: number, summary: string): Promise<boolean> {
  for (;;) {
    if (!(await condition(() => queue.length > 0, Math.max(1, expiresAt - loopNow()), { summary }))) return false;
    const check = firstTakeable(queue);
    if (!check || (await check)) return true;
    actedOn(); // the wait starts again: what arrived meanwhile may arrive now (arrivals.ts)
  }
}

/**
 * A run with a model queue sends its model calls there, where the queue's workers rate-limit
 * them across every run (maxTaskQueueActivitiesPerSecond) and the server shares the rate
 * fairly between teams (the fairness key). Runs without one schedule exactly as before.
 */
function modelCallOptions(
  run: RunInput,
  summary: string,
): { summary: string; scheduleToCloseTimeout: number; taskQueue?: string; priority?: { fairnessKey: string } } {
  const scheduleToCloseTimeout = run.modelOutageMs ?? MODEL_OUTAGE_MS;
  if (!run.modelQueue) return { summary, scheduleToCloseTimeout };
  return { summary, scheduleToCloseTimeout, taskQueue: run.modelQueue, priority: { fairnessKey: run.team ?? run.domain } };
}

/** The model call ran out of time, not of reasons: every attempt failed to reach an answer (modelOptions' retry). */
function isOutage(err: unknown): boolean {
  return err instanceof ActivityFailure && (err.retryState === 'TIMEOUT' || err.cause instanceof TimeoutFailure);
}

/** The model activity's word that a cap held outside the run is spent (activities/spend), as the controller's event. */
function spendRefusal(reply: unknown): RunEvent | undefined {
  const refused = (reply as { spendRefused?: unknown } | undefined)?.spendRefused as { cap?: unknown; detail?: unknown } | undefined;
  if (!refused || typeof refused !== 'object') return undefined;
  return { type: 'spendRefused', now: loopNow(), cap: String(refused.cap).slice(0, 120), detail: String(refused.detail).slice(0, 300) };
}

/**
 * Undefined when the planner's reply carries a seal, which the run's next effect (and probe) then
 * carries with its reads' (workflows/sealed.ts): one that fails refuses them. A reply that carries
 * none is no worker's, and the run does not take it: whoever completed the call by hand, or served
 * the run's model queue with a poller of their own, wrote it.
 */
function unsealedPlan(reply: unknown, once: string, turn: number): RunEvent | undefined {
  const { reply: said, replySeal } = (reply ?? {}) as { reply?: unknown; replySeal?: Partial<ReplySeal> | null };
  // A reply with no seal beside it is not read as an envelope of its own: what is digested is what the controller takes.
  const envelope = replySeal && typeof replySeal === 'object' ? { sealed: said ?? null, keyId: replySeal.keyId, mac: replySeal.mac } : undefined;
  const opened = openRead(`the planner's reply, turn ${turn}`, once, envelope);
  if (opened.sealed) return undefined;
  return { type: 'modelFailed', now: loopNow(), message: `the planner's reply is not a worker's (${opened.reason}): the run does not take it` };
}

/** The sides the worker charged at its own estimate, checked where they enter. */
function floorOf(reply: unknown): { usageFloor?: UsageFloor } {
  const floor = UsageFloor.safeParse((reply as { usageFloor?: unknown }).usageFloor);
  return floor.success && floor.data ? { usageFloor: floor.data } : {};
}

/** What the call cost by the worker's price table, when the worker priced it. */
function costOf(reply: unknown): { costMicros?: number } {
  const cost = (reply as { costMicros?: unknown }).costMicros;
  return typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? { costMicros: cost } : {};
}

/** `transfer:PX-1042` -> `PX-1042`: what an operator scanning the Web UI's activity summaries needs. */
function subjectLabel(subject: string): string {
  const colon = subject.indexOf(':');
  return colon < 0 ? subject : subject.slice(colon + 1);
}

/**
 * Starts one tool call, and says how its outcome becomes the call's result. Reads and
 * idempotent effects may be retried by Temporal; a non-idempotent effect gets exactly one
 * attempt, and any failure after the request may have reached the system is `unknown`, to be
 * read back, never retried blind.
 */
function callTool(
  call: PlannedCall,
  run: RunInput,
  domain: Domain,
): { pending: Promise<unknown>; done(opened: unknown): ToolResult; failed(err: unknown): ToolResult } {
  const startedAt = loopNow();
  const summary = `${call.tool} ${call.subject ? subjectLabel(call.subject) : compactJson(call.args, 60)}`;
  const approvedWith = call.approvedWith ?? [];
  const invoke = (once: string, reads: ReadSeal[] = []) =>
    toolsFor(call).invokeTool.executeWithOptions({ summary, ...(approvedWith.length ? { activityId: approvedDispatchId({ ...call, approvedWith }) } : {}) }, [
      { domain: domain.name, caseId: run.caseId, call, nonce: once, ...(reads.length ? { reads } : {}) },
    ]);
  const opened = (result: Opened<unknown>): ToolResult =>
    result.sealed ? toolResultOf(call, result.value, startedAt) : claimedResult(call, result, startedAt);
  const failed = (err: unknown): ToolResult => failedCallResult(call, err, startedAt);
  if (call.kind !== 'effect') {
    // A read's seal is checked with the others' before the run's next effect (workflows/sealed.ts).
    const once = nonce();
    const what = `${call.tool} (${call.callId})`;
    if (!leavesOnEvidence(call, domain)) return { pending: invoke(once), done: (raw) => opened(openRead(what, once, raw)), failed };
    // A read that reaches the world (egress) or that a person approved goes out on the run's
    // evidence as an effect does: it carries the reads' seals, and its activity sends nothing if
    // one fails. It vouches for none of them (its own answer is a read, checked later). An
    // approved one is spent once, like an effect's approval.
    const send = () => invoke(once, readSeals()).then((raw) => openRead(what, once, raw));
    return { pending: spentOnce(call, approvedWith, startedAt, send)(), done: (result) => opened(result as Opened<unknown>), failed };
  }
  // An effect carries the seals of the run's reads, and its activity sends nothing if one fails;
  // its own reply is checked at once (workflows/sealed.ts).
  const send = (): Promise<Opened<unknown>> => {
    const reads = readSeals();
    return sealedCall((once) => invoke(once, reads)).then((result) => {
      const refused = result.sealed && (result.value as { errorClass?: unknown } | null)?.errorClass === 'not_sent';
      if (result.sealed && !refused) readsVouched(reads);
      return result;
    });
  };
  // An effect once sent may have committed: a cancel never abandons it, but waits for its
  // reply (bounded by its timeouts) and reads it back if the reply says nothing.
  return {
    pending: CancellationScope.nonCancellable(spentOnce(call, approvedWith, startedAt, send)),
    done: (result) => opened(result as Opened<unknown>),
    failed,
  };
}

/** `send`, for a call a person approved only if no other execution of this workflow id has spent the approval already. */
function spentOnce(call: PlannedCall, approvedWith: string[], startedAt: number, send: () => Promise<Opened<unknown>>): () => Promise<Opened<unknown>> {
  if (!approvedWith.length) return send;
  return () => unspent(call, approvedWith, startedAt).then((refusal) => (refusal ? own(refusal) : send()));
}

/** A read whose arguments leave for the world (an egress read), or that a person approved. */
function leavesOnEvidence(call: PlannedCall, domain: Domain): boolean {
  if (call.approvedWith?.length) return true;
  return domain.tools.some((t) => t.name === call.tool && t.kind === 'read' && t.egress === true);
}

/**
 * Undefined when none of the statements behind the call was dispatched under by another execution
 * (workflows/statement-use.ts); otherwise the call's result without sending it: a used (or
 * unverifiable) approval authorises nothing, and a new decision is needed.
 */
async function unspent(call: PlannedCall, approvedWith: string[], startedAt: number): Promise<ToolResult | undefined> {
  const refused = (message: string): ToolResult => notSent(call, startedAt, message);
  try {
    const spent = await spentBy(approvedWith);
    if (spent === undefined) return undefined;
    return refused(
      `the approval was already used by execution ${spent} of this run (a reset, or a statement sent again): nothing was sent; it needs a new decision`,
    );
  } catch (err) {
    return refused(`could not confirm with the server that the approval was not used before, so nothing was sent: ${failureMessage(err)}`);
  }
}

// One proxy per kind and retry policy, made once (see callTool).
const tools = {
  read: { retried: proxyActivities<AgentActivities>(toolCallOptions('read', true)), once: proxyActivities<AgentActivities>(toolCallOptions('read', false)) },
  effect: {
    retried: proxyActivities<AgentActivities>(toolCallOptions('effect', true)),
    once: proxyActivities<AgentActivities>(toolCallOptions('effect', false)),
  },
};

function toolsFor(call: PlannedCall) {
  const byKind = call.kind === 'effect' ? tools.effect : tools.read;
  return call.idempotent ? byKind.retried : byKind.once;
}

/**
 * Shielded from a cancel: the readback is what lets a cancelled run say whether its effect took.
 * A readback asked to wait (`after`: the request could still commit until then) waits on a
 * durable timer first. It asks the system to fence the key against anything sent before now.
 */
function readback(command: Extract<Command, { type: 'readback' }>, run: RunInput, domain: Domain): Promise<ReadbackResult> {
  const { effect, readbackTool, after } = command;
  const readOnce = () =>
    sealedCall<unknown>((nonce) =>
      probes.readback.executeWithOptions({ summary: `readback ${readbackTool} ${effect.key}` }, [
        { domain: domain.name, caseId: run.caseId, tool: readbackTool, key: effect.key, callId: effect.callId, fenceBefore: loopNow(), nonce },
      ]),
    );
  // An answer no worker sealed is a claim about the world, not a reading of it: ask again.
  const read = async (): Promise<ReadbackResult> => {
    for (let asked = 1; ; asked++) {
      const opened = await readOnce();
      if (opened.sealed) {
        const result = ReadbackResult.safeParse(opened.value);
        if (result.success && result.data.callId === effect.callId) return result.data;
        return { callId: effect.callId, outcome: 'undecided', detail: 'the readback returned a malformed result', attempts: asked };
      }
      if (asked >= CLAIMED_READBACKS) {
        const detail = `${asked} readbacks in a row came back in a hand no worker's seal vouches for (${opened.reason})`;
        return { callId: effect.callId, outcome: 'undecided', detail, attempts: asked };
      }
    }
  };
  return CancellationScope.nonCancellable(() =>
    after !== undefined && after > loopNow() ? sleep(after - loopNow(), { summary: `until ${effect.tool} can no longer commit` }).then(read) : read(),
  ).catch((err: unknown): ReadbackResult => ({ callId: effect.callId, outcome: 'undecided', detail: `readback failed: ${failureMessage(err)}`, attempts: 3 }));
}
