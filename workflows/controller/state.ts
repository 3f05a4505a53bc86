// RunState: everything the controller knows about a run, as plain JSON (no Map, Set, Date or
// class instances) so it survives replay, queries and continue-as-new unchanged.
import { z } from 'zod';
import { workerScoped } from '../worker-scoped.js';
import { Budgets, ContextStrategy } from '../contract.js';
import { Authority } from '../tool-contract.js';
import { Approver } from '../trust/directory.js';
import { SignedDecision, SignedStart } from '../trust/statement.js';
import { Shape } from '../shape.js';
import { PlanOutcome, RunningPlan } from './plan-schema.js';
import { ApprovalRecord, DecisionReceipt, ExecutionReceipt, TranscriptEntry } from './receipts.js';

/**
 * 4: the phase holds its own data (Phase). The rules are those of version 3 and 2 (engine 5),
 * whose state loadState still reads, so their runs move onto this build without a break.
 */
export const STATE_VERSION = 4;

const FactValue = workerScoped('state.FactValue', () => z.union([z.string(), z.number(), z.boolean(), z.null()]));

export const TerminalClass = workerScoped('state.TerminalClass', () =>
  z.enum(['resolved', 'escalated', 'budget_exhausted', 'blocked', 'unknown_outcome', 'cancelled', 'failed']),
);
export type TerminalClass = z.infer<typeof TerminalClass>;

export const Terminal = workerScoped('state.Terminal', () =>
  z.strictObject({
    class: TerminalClass,
    /** A short machine-readable code: `probe_confirmed`, `loop`, `budget:turns`, `conflict`, ... */
    reason: z.string(),
    detail: z.string(),
    at: z.number(),
  }),
);
export type Terminal = z.infer<typeof Terminal>;

export const ObservationStatus = workerScoped('state.ObservationStatus', () => z.enum(['ok', 'error', 'timeout', 'unknown']));

export const Evidence = workerScoped('state.Evidence', () =>
  z.strictObject({
    id: z.string(),
    callId: z.string(),
    tool: z.string(),
    source: z.string(),
    authority: Authority,
    observedAt: z.number(),
    effectiveAt: z.number(),
    maxAgeMs: z.number(),
    /** Fresh when observed; judged again against the clock whenever it is relied on. */
    fresh: z.boolean(),
    status: ObservationStatus,
    facts: z.record(z.string(), FactValue),
    /** What went wrong, when status is not ok: a class and a short message (no raw output). */
    error: z.strictObject({ class: z.string(), message: z.string() }).optional(),
    /** Untrusted free text, kept out of facts; the model sees it only as quoted, labelled data. */
    quoted: z.array(z.string()),
    textWithheld: z.boolean(),
    /** Set when the output exceeded the contract's cap and was shrunk. */
    truncated: z.strictObject({ originalBytes: z.number(), ref: z.string() }).optional(),
    /** What it is about, e.g. `transfer:PX-1042` (absent in runs recorded before subjects). */
    subject: z.string().optional(),
    /** The arguments of the call that produced it (validated by its contract). */
    args: z.unknown().optional(),
  }),
);
export type Evidence = z.infer<typeof Evidence>;

export const PlannedCall = workerScoped('state.PlannedCall', () =>
  z.strictObject({
    callId: z.string(),
    turn: z.number(),
    tool: z.string(),
    args: z.unknown(),
    kind: z.enum(['read', 'effect']),
    idempotent: z.boolean(),
    /** Effects only: derived from the run id and the call's place in the run, never random. */
    idempotencyKey: z.string().optional(),
    subject: z.string().optional(),
    /**
     * Effects only: the run's time when this attempt was sent. The request carries it, so a system
     * of record that fences a key (Readback.fenced) refuses a request sent before its fence.
     */
    sentAt: z.number().optional(),
    /**
     * Approved effects only: fingerprints of the signed statements that approved it. Its dispatch
     * is named after them, and goes out only if no other execution dispatched under one
     * (workflows/statement-use.ts): a statement decides one request once, even across a reset.
     */
    approvedWith: z.array(z.string()).optional(),
    /** Effects only: its contract's settle time (ToolContract.settleMs), carried to its ledger entry. */
    settleMs: z.number().optional(),
    /** Arguments the model derived from trusted numbers, each with its checked arithmetic and sources (controller/derivation.ts). */
    derived: z.record(z.string(), z.string()).optional(),
    /** Arguments vouched for by the source the proposal cited, each with that source's label (controller/cited-sources.ts). */
    cited: z.record(z.string(), z.string()).optional(),
    /** The values no trusted source vouched for, which a person was asked to decide on with this call. */
    unvouched: z.array(z.string()).optional(),
  }),
);
export type PlannedCall = z.infer<typeof PlannedCall>;

export const EffectStatus = workerScoped('state.EffectStatus', () => z.enum(['in_flight', 'applied', 'not_applied', 'unknown', 'failed']));
export const EffectEntry = workerScoped('state.EffectEntry', () =>
  z.strictObject({
    callId: z.string(),
    turn: z.number(),
    tool: z.string(),
    args: z.unknown(),
    key: z.string(),
    status: EffectStatus,
    attempts: z.number(),
    readbacks: z.number(),
    /** How the final status was learnt: the effect's own reply, or a readback by key. */
    settledBy: z.enum(['response', 'readback']).optional(),
    evidenceId: z.string().optional(),
    subject: z.string().optional(),
    /** When its latest attempt was sent (the run's time). */
    sentAt: z.number().optional(),
    /** Until sentAt + this, the subject's readings may still show the state before it (ToolContract.settleMs). */
    settleMs: z.number().optional(),
    /**
     * A readback found nothing, but the request could still commit and the key was not fenced:
     * read back again at this time before believing it did not happen.
     */
    recheckAt: z.number().optional(),
    /**
     * The effect's reply said it was applied and its contract treats a reply as a claim
     * (ToolContract.confirmByReadback): `confirmed` once the readback found it, `contradicted`
     * when the system of record does not hold it (a reply not from the world).
     */
    claim: z.enum(['pending', 'confirmed', 'contradicted']).optional(),
    /**
     * It went out on a person's decision about these values, which no trusted source vouched for:
     * `agent verify` requires that decision, signed, with the values on the card it signed.
     */
    onPersonsWord: z.array(z.string()).optional(),
  }),
);
export type EffectEntry = z.infer<typeof EffectEntry>;

export const ApprovalRequest = workerScoped('state.ApprovalRequest', () =>
  z.strictObject({
    requestId: z.string(),
    call: PlannedCall,
    evidenceIds: z.array(z.string()),
    roles: z.array(z.string()),
    requestedAt: z.number(),
    expiresAt: z.number(),
    onTimeout: z.enum(['escalate', 'return_to_model']),
    subject: z.string(),
    /** SHA-256 over run, request, tool, arguments, subject, chain and display: what a signature binds to. */
    digest: z.string(),
    quorum: z.number().int().min(1),
    notStarter: z.boolean(),
    /** The precondition verdict when the request was raised; a violation is stated, never hidden. */
    precondition: z.strictObject({ ok: z.boolean(), reason: z.string().optional() }),
    /** Who may decide, from the worker's directory once it is loaded (absent until then). */
    eligible: z.array(Approver).optional(),
    /** Signed approvals collected so far towards the quorum. */
    collected: z.array(SignedDecision),
    /** What the domain shows beside the call (ToolContract.display), from facts when raised; covered by the digest. */
    display: z.record(z.string(), z.string()).optional(),
    /** Set when an approver amended an earlier request into this one: what was proposed, and by whom it was changed. */
    amendedFrom: z.strictObject({ requestId: z.string(), args: z.unknown(), by: z.string() }).optional(),
  }),
);
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

/** A proposal held while the engine re-reads the evidence that went stale under it; judged again, once, when the reads are in (controller/refresh.ts). */
export const HeldProposal = workerScoped('state.HeldProposal', () =>
  z.strictObject({
    /** The proposal as parsed (a call or a finish), judged again as it was made. */
    decision: z.unknown(),
    proposal: z.string(),
    by: z.enum(['model', 'route', 'plan']).optional(),
    open: z.array(z.string()).optional(),
  }),
);
export type HeldProposal = z.infer<typeof HeldProposal>;

/** An approved effect held for its authoritative re-read, then dispatched if it still passes. */
export const HeldDispatch = workerScoped('state.HeldDispatch', () =>
  z.strictObject({ call: PlannedCall, requestId: z.string(), acceptedViolation: z.string().optional() }),
);
export type HeldDispatch = z.infer<typeof HeldDispatch>;

/** A finish the gate accepted, waiting for the probe. doneEarlier: the domain found the work done by an earlier run (DoneVerdict); the probe still decides. */
export const HeldClaim = workerScoped('state.HeldClaim', () =>
  z.strictObject({
    claim: z.unknown(),
    evidenceIds: z.array(z.string()),
    doneEarlier: z.string().optional(),
    /** The domain's soak (Domain.soak): the probe held at `from`; it is asked again over the window at `until`. */
    soak: z.strictObject({ from: z.number(), until: z.number() }).optional(),
  }),
);
export type HeldClaim = z.infer<typeof HeldClaim>;

/**
 * Where a run is, and what only that place holds. Every event is routed by `phase.name` in
 * next.ts's table; a phase's data exists only while the run is there, so nothing of a place the
 * run has left can linger.
 */
export const Phase = workerScoped('state.Phase', () =>
  z.discriminatedUnion('name', [
    /** Waiting for a proposal. open: what the route or the plan left open, for the model turn it causes (and its receipt). */
    z.strictObject({ name: z.literal('proposing'), open: z.array(z.string()).optional() }),
    /** Running a proposal's admitted calls. */
    z.strictObject({ name: z.literal('acting'), calls: z.array(PlannedCall) }),
    /** The engine's own re-read of stale evidence; then the held proposal is judged again. */
    z.strictObject({ name: z.literal('refreshing'), calls: z.array(PlannedCall), held: HeldProposal }),
    /** The authoritative re-read before an approved effect is dispatched. */
    z.strictObject({ name: z.literal('rereading'), calls: z.array(PlannedCall), dispatch: HeldDispatch }),
    /** The probe is asked about a finish (and, with a soak, asked again after the window). */
    z.strictObject({ name: z.literal('verifying'), claim: HeldClaim }),
    /** A person decides on `request`; the run's clock stops meanwhile. */
    z.strictObject({ name: z.literal('awaiting_approval'), request: ApprovalRequest }),
    /** An effect is in doubt: read back by its key before anything else. */
    z.strictObject({ name: z.literal('reconciling') }),
    /** A cancel came while an effect was in flight or in doubt: it is read back by its key, and only then the run stops. */
    z.strictObject({ name: z.literal('cancelling'), by: z.string(), reason: z.string(), at: z.number() }),
    /** The run has ended; `terminal` says how. */
    z.strictObject({ name: z.literal('terminal') }),
  ]),
);
export type Phase = z.infer<typeof Phase>;
export type PhaseName = Phase['name'];

/** The six phases clients and exports show: a sub-phase shows as the phase it refines. */
export const ShownPhase = workerScoped('state.ShownPhase', () => z.enum(['proposing', 'acting', 'verifying', 'awaiting_approval', 'reconciling', 'terminal']));
export type ShownPhase = z.infer<typeof ShownPhase>;

export function shownPhase({ name }: Phase): ShownPhase {
  return name === 'refreshing' || name === 'rereading' ? 'acting' : name === 'cancelling' ? 'reconciling' : name;
}

export const RunState = workerScoped('state.RunState', () =>
  z.strictObject({
    version: z.literal(STATE_VERSION),
    runId: z.string(),
    domain: z.string(),
    caseId: z.string(),
    goal: z.string(),
    startedAt: z.number(),
    deadlineAt: z.number(),
    budgets: Budgets,
    /** Turns used is `turn` itself: each model turn is one proposal. */
    used: z.strictObject({
      toolCalls: z.number(),
      effects: z.number(),
      duplicates: z.number(),
      tokens: z.number(),
      /** What the run's model calls cost so far (when the worker priced them). */
      spendMicros: z.number().optional(),
      /** Model calls made (runs with a shape; turns also count the route's decisions). */
      modelCalls: z.number().optional(),
    }),
    context: z.strictObject({ strategy: ContextStrategy, window: z.number() }),
    phase: Phase,
    /** Model turns so far, including the one in progress. */
    turn: z.number(),
    /** Counter for evidence and call ids; ids are never reused within a run. */
    seq: z.number(),
    /** Bumped whenever an observation changes what is known; the loop guard compares it. */
    factsVersion: z.number(),
    pinned: z.record(z.string(), z.strictObject({ value: FactValue, evidenceId: z.string() })),
    evidence: z.array(Evidence),
    transcript: z.array(TranscriptEntry),
    decisions: z.array(DecisionReceipt),
    executions: z.array(ExecutionReceipt),
    effects: z.array(EffectEntry),
    approvals: z.array(ApprovalRecord),
    /** Loop-guard memory: how each distinct call went last time, keyed by its signature. */
    seen: z.record(
      z.string(),
      z.strictObject({
        factsVersion: z.number(),
        status: ObservationStatus,
        refused: z.boolean().optional(),
        /** The gate refused the call itself (a failed precondition, a tainted argument): asking again unchanged is a loop. */
        gate: z.literal(true).optional(),
      }),
    ),
    nudges: z.number(),
    /** How many old records retention dropped from state (they remain in Temporal's history). */
    dropped: z.strictObject({
      evidence: z.number(),
      transcript: z.number(),
      decisions: z.number(),
      executions: z.number(),
      effects: z.number(),
    }),
    /** Run-level override of the contracts' approval wait. */
    approvalTimeoutMs: z.number().optional(),
    /** The start statement the run was given, verified once the approver directory is loaded. */
    starterClaim: SignedStart.optional(),
    /** The directory id whose signature on the start verified. */
    starter: z.string().optional(),
    /** The run input's narrowing of the approver directory to these ids. */
    approverScope: z.array(z.string()).optional(),
    /**
     * The run id of the chain's first execution. Every approval digest covers it, so a
     * statement signed for this run is worthless in a later execution under the same workflow id.
     */
    chain: z.string(),
    /** The effects this run may take, when its start narrowed them (empty: none, a read-only run). */
    permittedEffects: z.array(z.string()).optional(),
    /** Who decides the run's steps (workflows/shape.ts); absent: `react`, as every run before shapes. */
    shape: Shape.optional(),
    /** The model's replies came with the start (the `scripted` adapter): whoever started the run wrote them, so a plan of its vouches for nothing. */
    scriptedStart: z.literal(true).optional(),
    /** Shape `plan`: the plan being run (controller/plan.ts). */
    plan: RunningPlan.optional(),
    /** Shape `plan`: what became of the last plan's steps, for the planner's next turn (codes, never text). */
    replan: z.array(PlanOutcome).optional(),
    terminal: Terminal.optional(),
  }),
);
export type RunState = z.infer<typeof RunState>;

/** A state known to be in phase `P`, with that phase's data. */
export type In<P extends PhaseName> = RunState & { phase: Extract<Phase, { name: P }> };

/** A run's shape; none recorded (a run from before shapes) is `react`. */
export function shapeOf(state: { shape?: Shape | undefined }): Shape {
  return state.shape ?? 'react';
}

/** The calls the workflow runs for the run now (none outside the acting phases). */
export function callsInFlight(state: RunState): PlannedCall[] {
  return 'calls' in state.phase ? state.phase.calls : [];
}

/** An effect sent (or about to be) whose outcome no reply or readback has settled: the one rule of "in doubt". */
export function isInDoubt(effect: EffectEntry): boolean {
  return effect.status === 'in_flight' || effect.status === 'unknown';
}

/** The run's effects in doubt, oldest first. */
export function effectsInDoubt(state: RunState): EffectEntry[] {
  return state.effects.filter(isInDoubt);
}

/** The request a person is deciding on, while the run waits on one. */
export function pendingRequest(state: RunState): ApprovalRequest | undefined {
  return state.phase.name === 'awaiting_approval' ? state.phase.request : undefined;
}
