// Everything that can happen to a run, as plain data. Time always arrives on the event
// (workflow time), so the controller never reads a clock.
import { z } from 'zod';
import { workerScoped } from '../worker-scoped.js';
import { Approver } from '../trust/directory.js';
import { SignedAmend, SignedDecision, SignedNote } from '../trust/statement.js';
import { ProbeVerdict, ReadbackResult, ToolResult, UsageFloor } from '../protocol.js';

const base = workerScoped('events.base', () => ({ now: z.number() }));

// What activities hand back is the protocol's (workflows/protocol.ts); the events carry it.
export { ProbeVerdict, ReadbackResult, ToolResult, UsageFloor };

export const RunEvent = workerScoped('events.RunEvent', () =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('started'), ...base }),
    /**
     * contextTokens: the estimate of the context the model was shown (from the propose command);
     * costMicros: what the call cost by the worker's price table (absent when unpriced).
     */
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
     * The run's start statement, taken as the run starts: the directory to verify it against,
     * spentBy, the run id of another execution under the workflow id that took it first, and
     * unbound, when it was not signed for this run's namespace and settings (trust/run-binding.ts).
     */
    z.strictObject({
      type: z.literal('startTaken'),
      ...base,
      directory: z.array(Approver),
      spentBy: z.string().optional(),
      unbound: z.literal(true).optional(),
    }),
    z.strictObject({ type: z.literal('approvalTimedOut'), ...base, requestId: z.string() }),
    /**
     * A note: unsigned (`by` is whatever the sender claimed; untrusted text), or signed, with the
     * directory that may vouch for it; whether it is trusted is the controller's rule (controller/trust.ts).
     */
    z.strictObject({ type: z.literal('noteAdded'), ...base, by: z.string(), text: z.string() }),
    /**
     * later: sent through the addNote Update, not with the start (RunInput.request). spentBy: the
     * statement was already taken by that other execution of the workflow id (so it vouches for nothing here).
     * unbound: a request (a note that names a run: trust/run-binding.ts) signed for another run's
     * namespace or settings, at the start or sent later.
     */
    z.strictObject({
      type: z.literal('signedNoteAdded'),
      ...base,
      signed: SignedNote,
      directory: z.array(Approver),
      spentBy: z.string().optional(),
      later: z.literal(true).optional(),
      unbound: z.literal(true).optional(),
    }),
    /** A cancel: an effect in flight or in doubt is read back before the run stops. */
    z.strictObject({ type: z.literal('cancelled'), ...base, by: z.string(), reason: z.string() }),
    z.strictObject({ type: z.literal('deadlinePassed'), ...base }),
  ]),
);
export type RunEvent = z.infer<typeof RunEvent>;
