// What a plan is, as data: the planner's reply, the plan as the run keeps it, and what became
// of each step. Shared by the run's state (state.ts), the plan's runner (plan.ts) and its
// replies (plan-replies.ts); the rules about plans live in plan.ts.
import { z } from 'zod';
import { workerScoped } from '../worker-scoped.js';

/** A plan longer than this is a program, not a plan: the planner is asked for a shorter one. */
export const MAX_PLAN_STEPS = 12;

const CallStep = workerScoped('plan.CallStep', () =>
  z.strictObject({
    id: z.string().regex(/^s\d{1,3}$/, 'a call step is s<n>'),
    tool: z.string().min(1).max(80),
    /** Top-level values are literals the planner wrote, `{"$ref": ...}` or `{"$quote": ...}` (a list may mix them). */
    args: z.record(z.string().min(1).max(80), z.unknown()).optional(),
  }),
);

const ExtractStep = workerScoped('plan.ExtractStep', () =>
  z.strictObject({
    id: z.string().regex(/^x\d{1,3}$/, 'an extraction is x<n>'),
    extract: z.strictObject({
      /** The read whose text holds the value: a step of this plan (`s1`) or earlier evidence (`e3`). */
      from: z.string().regex(/^(s\d{1,3}|e\d+)$/),
      /** What to take, in the planner's words (the extractor sees them beside the text). */
      want: z.string().min(1).max(300),
      kind: z.string().min(1).max(40).optional(),
      type: z.enum(['string', 'number']).optional(),
    }),
  }),
);

export const PlanStep = workerScoped('plan.PlanStep', () => z.union([CallStep, ExtractStep]));
export type PlanStep = z.infer<typeof PlanStep>;

export const PlanReply = workerScoped('plan.PlanReply', () =>
  z.strictObject({
    type: z.literal('plan'),
    steps: z.array(PlanStep).max(MAX_PLAN_STEPS),
    /** The claim the run finishes with once every step is done (its values may be references). */
    finish: z.strictObject({ claim: z.unknown() }).optional(),
    reason: z.string().max(500).optional(),
  }),
);
export type PlanReply = z.infer<typeof PlanReply>;

/** An extractor's answer: the value, or null when the text holds none. */
export const ExtractedReply = workerScoped('plan.ExtractedReply', () =>
  z.strictObject({ type: z.literal('extracted'), value: z.union([z.string().max(2_000), z.number().finite(), z.null()]) }),
);

/** What became of one step, as the planner is told it: codes and ids, never text. */
export const PlanOutcome = workerScoped('plan.PlanOutcome', () =>
  z.strictObject({
    step: z.string(),
    tool: z.string(),
    outcome: z.enum(['ok', 'failed', 'refused', 'unresolved', 'no_value', 'not_run']),
    code: z.string().optional(),
    /** The reads a refused precondition judges (Precondition.needs), when it names them. */
    needs: z.array(z.string()).optional(),
    evidenceId: z.string().optional(),
  }),
);
export type PlanOutcome = z.infer<typeof PlanOutcome>;

/** The plan being run: its steps, the evidence each one left, and the steps whose outcome is awaited. */
export const RunningPlan = workerScoped('plan.RunningPlan', () =>
  z.strictObject({
    steps: z.array(PlanStep),
    finish: z.strictObject({ claim: z.unknown() }).optional(),
    reason: z.string().optional(),
    done: z.record(z.string(), z.string()),
    /** Steps proposed and not yet settled, and the evidence counter when they were. */
    sent: z.strictObject({ steps: z.array(z.string()), seq: z.number() }).optional(),
    /** The extraction the model is being asked for. */
    extracting: z.string().optional(),
    /** The run's counter when the planner wrote it: evidence numbered after it, the planner had not been shown. */
    writtenAt: z.number().optional(),
    /** The values (as spelled) the planner could be shown by value when it wrote it: still "shown" once their reads are no longer kept (planner-view.ts). */
    shown: z.array(z.string()).max(2_000).optional(),
    /**
     * Written from a reply the workflow took sealed: since engine-v24 it takes no planner's reply
     * without one (workflows/perform.ts). A plan carried over from a build before that has no mark,
     * and what it wrote vouches for nothing (provenance.ts): anyone may have written it.
     */
    sealed: z.literal(true).optional(),
  }),
);
export type RunningPlan = z.infer<typeof RunningPlan>;

export type CallStep = z.infer<typeof CallStep>;
