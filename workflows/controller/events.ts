// Everything that can happen to a run, as plain data. Time always arrives on the event
// (workflow time), so the controller never reads a clock.
import { z } from 'zod';
import { workerScoped } from '../worker-scoped.js';
import { Approver } from '../trust/directory.js';
import { SignedAmend, SignedDecision, SignedNote } from '../trust/statement.js';

const base = workerScoped('events.base', () => ({ now: z.number() }));

export const ToolResult = workerScoped('events.ToolResult', () =>
  z.discriminatedUnion('status', [
    z.strictObject({
      status: z.literal('ok'),
      callId: z.string(),
      output: z.unknown(),
      attempt: z.number(),
      startedAt: z.number(),
      finishedAt: z.number(),
      truncated: z.strictObject({ originalBytes: z.number(), ref: z.string() }).optional(),
      /** No worker sealed this reply (workflows/sealed.ts): an effect's is a claim the readback must confirm. */
      unsealed: z.literal(true).optional(),
    }),
    z.strictObject({
      status: z.enum(['error', 'timeout', 'unknown']),
      callId: z.string(),
      /** transient (5xx, connection), semantic (the system said no), bad_output (broke its contract) */
      // not_sent: refused before dispatch (no such tool on the worker, arguments invalid there).
      errorClass: z.enum(['transient', 'semantic', 'bad_output', 'timeout', 'unknown', 'not_sent']),
      message: z.string(),
      attempt: z.number(),
      startedAt: z.number(),
      finishedAt: z.number(),
    }),
  ]),
);
export type ToolResult = z.infer<typeof ToolResult>;

export const ProbeVerdict = workerScoped('events.ProbeVerdict', () =>
  z.strictObject({
    holds: z.boolean(),
    conflict: z.boolean(),
    /** Undecided: the probe could not read the world (timeout, outage). Never counts as holds. */
    decided: z.boolean(),
    detail: z.string(),
    facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    checkedAt: z.number(),
  }),
);
export type ProbeVerdict = z.infer<typeof ProbeVerdict>;

export const ReadbackResult = workerScoped('events.ReadbackResult', () =>
  z.strictObject({
    callId: z.string(),
    outcome: z.enum(['applied', 'not_applied', 'undecided']),
    output: z.unknown().optional(),
    detail: z.string(),
    attempts: z.number(),
    /** With not_applied: the system of record now refuses any request under the key sent before the readback. */
    fenced: z.boolean().optional(),
  }),
);
export type ReadbackResult = z.infer<typeof ReadbackResult>;

/**
 * The sides of a model call whose reported token count was below the engine's own estimate of
 * what it sent or received, so the estimate was charged instead (activities/model/usage-floor.ts).
 */
export const UsageFloor = workerScoped('events.UsageFloor', () => {
  const side = z.strictObject({ reported: z.number().int().min(0), charged: z.number().int().min(0) });
  return z.strictObject({ input: side.optional(), output: side.optional() });
});
export type UsageFloor = z.infer<typeof UsageFloor>;

export const RunEvent = workerScoped('events.RunEvent', () =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('started'), ...base }),
    /** contextTokens: the estimate of the context the model was shown (from the propose command). */
    /** costMicros: what the call cost by the worker's price table (absent when unpriced). */
    z.strictObject({
      type: z.literal('proposed'),
      ...base,
      reply: z.unknown(),
      tokens: z.number(),
      contextTokens: z.number(),
      costMicros: z.number().optional(),
      /** Present when the endpoint reported less than the engine's estimate and the estimate was charged. */
      usageFloor: UsageFloor.optional(),
    }),
    /** The worker refused the model call before making it: a spend cap held outside the run (a team's day) is spent. */
    z.strictObject({ type: z.literal('spendRefused'), ...base, cap: z.string(), detail: z.string() }),
    /** `outage`: the endpoint did not answer for the run's whole model-outage allowance (not a refusal of the request). */
    z.strictObject({ type: z.literal('modelFailed'), ...base, message: z.string(), outage: z.boolean().optional() }),
    z.strictObject({ type: z.literal('observed'), ...base, results: z.array(ToolResult) }),
    z.strictObject({ type: z.literal('verified'), ...base, verdict: ProbeVerdict }),
    z.strictObject({ type: z.literal('reconciled'), ...base, result: ReadbackResult }),
    /**
     * A person's signed decision (approve or deny, as the statement says), with the worker's
     * directory as it was when it arrived, so a key revoked since the request was raised decides
     * nothing. The controller judges it again (controller/trust.ts); the Update validator only
     * spares the history a forgery.
     */
    z.strictObject({
      type: z.literal('decided'),
      ...base,
      signed: SignedDecision,
      directory: z.array(Approver),
      /** Set when the decision arrived in an execution reset from this run: Temporal may have re-applied it from before the reset. */
      afterResetOf: z.string().optional(),
    }),
    /** An approver asked for the pending call with other arguments. */
    z.strictObject({ type: z.literal('amended'), ...base, signed: SignedAmend, directory: z.array(Approver) }),
    z.strictObject({ type: z.literal('approversLoaded'), ...base, requestId: z.string(), approvers: z.array(Approver) }),
    /**
     * The run's start statement, taken as the run starts: the directory to verify it against, and
     * spentBy, the run id of another execution under the workflow id that took it first.
     */
    z.strictObject({ type: z.literal('startTaken'), ...base, directory: z.array(Approver), spentBy: z.string().optional() }),
    z.strictObject({ type: z.literal('approvalTimedOut'), ...base, requestId: z.string() }),
    /**
     * A note: unsigned (`by` is whatever the sender claimed; untrusted text), or signed, with the
     * directory that may vouch for it; whether it is trusted is the controller's rule (controller/trust.ts).
     */
    z.strictObject({ type: z.literal('noteAdded'), ...base, by: z.string(), text: z.string() }),
    /** spentBy: the start's signed request, already taken by that other execution of the workflow id (so it vouches for nothing here). */
    z.strictObject({ type: z.literal('signedNoteAdded'), ...base, signed: SignedNote, directory: z.array(Approver), spentBy: z.string().optional() }),
    /** A cancel: an effect in flight or in doubt is read back before the run stops. */
    z.strictObject({ type: z.literal('cancelled'), ...base, by: z.string(), reason: z.string() }),
    z.strictObject({ type: z.literal('deadlinePassed'), ...base }),
  ]),
);
export type RunEvent = z.infer<typeof RunEvent>;
