// The run's record, kept in its state: the transcript (what the model was told and shown, turn by
// turn), a receipt for every decision the controller took and every call that ran, with the
// budget left after it, and every decision a person made on a request, with the statements
// behind it. Nothing here steers the next step; it is what an operator, an auditor or an export
// reads to know why the run did what it did.
import { z } from 'zod';
import { workerScoped } from '../worker-scoped.js';
import { UsageFloor } from '../protocol.js';
import { SignedAmend, SignedDecision } from '../trust/statement.js';

export const TranscriptEntry = workerScoped('state.TranscriptEntry', () =>
  z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('proposal'), turn: z.number(), summary: z.string() }),
    z.strictObject({ kind: z.literal('observation'), turn: z.number(), evidenceId: z.string() }),
    z.strictObject({ kind: z.literal('control'), turn: z.number(), code: z.string(), message: z.string() }),
    /**
     * trusted: the note came with a valid signature from a directory key; otherwise it is untrusted
     * text. fields: the typed values it states, by kind (kept only when trusted). amends: the request
     * an approver amended (approvals.ts onAmended): their word on that one call, which vouches for
     * nothing after it and is no request the planner reads.
     */
    z.strictObject({
      kind: z.literal('note'),
      turn: z.number(),
      by: z.string(),
      text: z.string(),
      trusted: z.boolean(),
      fields: z.record(z.string(), z.union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))])).optional(),
      amends: z.string().optional(),
      /** The run's signed request (RunInput.request, taken before the first proposal), not a note sent later. */
      request: z.literal(true).optional(),
    }),
  ]),
);
export type TranscriptEntry = z.infer<typeof TranscriptEntry>;

export const BudgetLeft = workerScoped('state.BudgetLeft', () =>
  z.strictObject({
    turns: z.number(),
    toolCalls: z.number(),
    effects: z.number(),
    duplicates: z.number(),
    tokens: z.number(),
    msLeft: z.number(),
    /** Only in runs with a spend budget. */
    spendMicros: z.number().optional(),
  }),
);
export type BudgetLeft = z.infer<typeof BudgetLeft>;

export const DecisionReceipt = workerScoped('state.DecisionReceipt', () =>
  z.strictObject({
    turn: z.number(),
    at: z.number(),
    /** The proposal as parsed, or a short description of what could not be parsed. */
    proposal: z.string(),
    accepted: z.boolean(),
    reason: z.string(),
    evidenceIds: z.array(z.string()),
    budgetLeft: BudgetLeft,
    tokens: z.number(),
    contextTokens: z.number(),
    /** Who proposed it: the model, the domain's route, or the model's earlier plan (absent in runs recorded before shapes). */
    by: z.enum(['model', 'route', 'plan']).optional(),
    /** For a model turn: what was open, i.e. why the route (or plan) did not decide it. */
    open: z.array(z.string()).optional(),
    /** The endpoint reported fewer tokens than the engine's estimate of what went each way; the estimate was charged. */
    usageFloor: UsageFloor.optional(),
  }),
);
export type DecisionReceipt = z.infer<typeof DecisionReceipt>;

export const ExecutionReceipt = workerScoped('state.ExecutionReceipt', () =>
  z.strictObject({
    callId: z.string(),
    turn: z.number(),
    tool: z.string(),
    kind: z.enum(['read', 'effect', 'readback', 'probe']),
    accepted: z.boolean(),
    result: z.enum(['final', 'failed', 'timeout', 'unknown']),
    attempt: z.number(),
    durationMs: z.number(),
    idempotencyKey: z.string().optional(),
    evidenceId: z.string().optional(),
  }),
);
export type ExecutionReceipt = z.infer<typeof ExecutionReceipt>;

export const ApprovalRecord = workerScoped('state.ApprovalRecord', () =>
  z.strictObject({
    requestId: z.string(),
    callId: z.string(),
    turn: z.number(),
    decision: z.enum(['approved', 'denied', 'timed_out', 'cancelled', 'amended']),
    by: z.string(),
    comment: z.string(),
    at: z.number(),
    /** The signed statements behind the decision, exported for offline verification. */
    signed: z.array(SignedDecision).optional(),
    /** For `amended`: the approver's signed amendment (the arguments they asked for instead). */
    amendment: SignedAmend.optional(),
    /**
     * The run this execution was reset from, when the decision arrived after a reset: Temporal
     * re-applies the Updates that followed the reset point, so it may be a decision made before
     * the reset, judged again on the facts as they are now.
     */
    afterResetOf: z.string().optional(),
    /** The lines the approvers were shown beside the call: the digest covers them, so an auditor needs them. */
    display: z.record(z.string(), z.string()).optional(),
  }),
);
