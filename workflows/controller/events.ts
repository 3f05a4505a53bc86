// Everything that can happen to a run, as plain data. Time always arrives on the event
// (workflow time), so the controller never reads a clock.
import { z } from 'zod';
import { workerScoped } from '../worker-scoped.js';
import { Approver } from '../trust/directory.js';
import { SignedAmend, SignedDecision } from '../trust/statement.js';

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
  }),
);
export type ReadbackResult = z.infer<typeof ReadbackResult>;

export const RunEvent = workerScoped('events.RunEvent', () =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('started'), ...base }),
    /** contextTokens: the estimate of the context the model was shown (from the propose command). */
    /** costMicros: what the call cost by the worker's price table (engine-v4 runs; absent when unpriced). */
    z.strictObject({
      type: z.literal('proposed'),
      ...base,
      reply: z.unknown(),
      tokens: z.number(),
      contextTokens: z.number(),
      costMicros: z.number().optional(),
    }),
    /** The worker refused the model call before making it: a spend cap held outside the run (a team's day) is spent. */
    z.strictObject({ type: z.literal('spendRefused'), ...base, cap: z.string(), detail: z.string() }),
    z.strictObject({ type: z.literal('modelFailed'), ...base, message: z.string() }),
    z.strictObject({ type: z.literal('observed'), ...base, results: z.array(ToolResult) }),
    z.strictObject({ type: z.literal('verified'), ...base, verdict: ProbeVerdict }),
    z.strictObject({ type: z.literal('reconciled'), ...base, result: ReadbackResult }),
    /** signed: the statement the Update validator verified (runs with the trust boundary). */
    z.strictObject({
      type: z.literal('approved'),
      ...base,
      requestId: z.string(),
      by: z.string(),
      comment: z.string(),
      signed: SignedDecision.optional(),
      /** The worker's directory as it was when the decision arrived (engine-v4 runs): revocation counts at once. */
      directory: z.array(Approver).optional(),
      /** Set when the decision arrived in an execution reset from this run: Temporal may have re-applied it from before the reset. */
      afterResetOf: z.string().optional(),
    }),
    z.strictObject({
      type: z.literal('denied'),
      ...base,
      requestId: z.string(),
      by: z.string(),
      comment: z.string(),
      signed: SignedDecision.optional(),
      /** The worker's directory as it was when the decision arrived (engine-v4 runs): revocation counts at once. */
      directory: z.array(Approver).optional(),
      /** Set when the decision arrived in an execution reset from this run: Temporal may have re-applied it from before the reset. */
      afterResetOf: z.string().optional(),
    }),
    /** An approver asked for the pending call with other arguments (engine-v4 runs). */
    z.strictObject({ type: z.literal('amended'), ...base, signed: SignedAmend, directory: z.array(Approver) }),
    z.strictObject({ type: z.literal('approversLoaded'), ...base, requestId: z.string(), approvers: z.array(Approver) }),
    z.strictObject({ type: z.literal('approvalTimedOut'), ...base, requestId: z.string() }),
    z.strictObject({ type: z.literal('noteAdded'), ...base, by: z.string(), text: z.string(), trusted: z.boolean().optional() }),
    /**
     * settle: read back an effect in flight or in doubt before stopping (runs with
     * native-cancel-v1); without it a cancel stops at once, as runs recorded before it did.
     */
    z.strictObject({ type: z.literal('cancelled'), ...base, by: z.string(), reason: z.string(), settle: z.boolean().optional() }),
    z.strictObject({ type: z.literal('deadlinePassed'), ...base }),
  ]),
);
export type RunEvent = z.infer<typeof RunEvent>;
