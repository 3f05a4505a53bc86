// What a program may rely on about a run, decoupled from the engine's internal RunState. The
// workflow's `state` query answers with the whole state the controller keeps (receipts,
// transcript, loop-guard memory, carried migrations), which changes whenever the controller
// does; a client that read it would break with every engine change. The client boundary maps
// that answer once (to-run-view.ts) into RunView, this file's schema: its phase and outcome, the
// effects ledger, the pending approval, the budgets, the receipts and the evidence. A field
// added to RunState changes nothing for a client; a field taken from this schema is a breaking
// change of the package. `watch`, the console and `status` read this, never the state behind it.
import { z } from 'zod';
import { ShownPhase } from '../workflows/controller/index.js';

/**
 * A request for a person's signed decision on one effect, as the run shows it. Approving binds
 * to `digest` (the exact call); a request just raised is shown once its approver directory has
 * loaded (`eligible` names who may decide).
 */
export const PendingApproval = z.object({
  requestId: z.string(),
  /** The turn whose proposal raised it. */
  turn: z.number(),
  tool: z.string(),
  args: z.unknown(),
  /** What the call is about, e.g. `transfer:PX-1042`. */
  subject: z.string().optional(),
  evidenceIds: z.array(z.string()),
  roles: z.array(z.string()),
  expiresAt: z.number(),
  digest: z.string(),
  /** Signed approvals needed, and who has given one so far. */
  quorum: z.number(),
  approvedBy: z.array(z.string()),
  /** Directory ids that may decide. */
  eligible: z.array(z.string()),
  /** The precondition when the request was raised; a violation is stated here, never hidden. */
  precondition: z.object({ ok: z.boolean(), reason: z.string().optional() }).optional(),
  /** False for runs recorded before signed approvals: they cannot be approved any more. */
  signed: z.boolean(),
  /**
   * What the domain shows beside the call (amount, beneficiary...), signed with it: the digest
   * covers these lines. A line whose key starts with `against: ` is a fact the domain says argues
   * against the call (see {@link AGAINST_PREFIX}).
   */
  display: z.record(z.string(), z.string()).optional(),
  /** Who proposed the call: the model, the domain's route, or the model's earlier plan (from the decision receipt of its turn, while the run's state keeps it). */
  proposedBy: z.enum(['model', 'route', 'plan']).optional(),
  /** When an approver amended an earlier request into this one: what was proposed, and who changed it. */
  amendedFrom: z.object({ requestId: z.string(), args: z.unknown(), by: z.string() }).optional(),
});
/** A request for a person's signed decision on one effect (see {@link RunView}). */
export type PendingApproval = z.infer<typeof PendingApproval>;

const Counts = z.object({
  turns: z.number(),
  toolCalls: z.number(),
  effects: z.number(),
  duplicates: z.number(),
  tokens: z.number(),
  spendMicros: z.number().optional(),
});
const Left = Counts.extend({ msLeft: z.number() });

/** A decision on one proposal: what was proposed, whether the gate accepted it and why. */
const Decision = z.object({
  turn: z.number(),
  at: z.number(),
  /** The proposal as parsed, or a short description of what could not be parsed. */
  proposal: z.string(),
  accepted: z.boolean(),
  reason: z.string(),
  evidenceIds: z.array(z.string()),
  /** The budgets left once it was decided. */
  budgetLeft: Left,
  tokens: z.number(),
  contextTokens: z.number(),
  /** Who proposed it: the model, the domain's route, or the model's earlier plan (absent in runs recorded before shapes). */
  by: z.enum(['model', 'route', 'plan']).optional(),
  /** For a model turn: what was open, i.e. why the route (or plan) did not decide it. */
  open: z.array(z.string()).optional(),
});

/** One call the run made (a read, an effect, a readback or a probe) and how it went. */
const Execution = z.object({
  callId: z.string(),
  turn: z.number(),
  tool: z.string(),
  kind: z.enum(['read', 'effect', 'readback', 'probe']),
  /** False when the tool refused the call. */
  accepted: z.boolean(),
  result: z.enum(['final', 'failed', 'timeout', 'unknown']),
  attempt: z.number(),
  durationMs: z.number(),
  idempotencyKey: z.string().optional(),
  evidenceId: z.string().optional(),
});

/** Feedback the engine gave the model (`control`), or a note a person added (`trusted`: signed with a key the directory knows). */
const Message = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('control'), turn: z.number(), code: z.string(), message: z.string() }),
  z.object({ kind: z.literal('note'), turn: z.number(), by: z.string(), text: z.string(), trusted: z.boolean().optional() }),
]);

/**
 * A run as a client sees it: `AgentClient.state` answers with this. Times are epoch
 * milliseconds. It carries the receipts still in the run's state (retention drops the oldest);
 * `AgentClient.watch` yields each one once as it comes, and `AgentClient.export` gives the full
 * audit record.
 */
export const RunView = z.object({
  runId: z.string(),
  domain: z.string(),
  caseId: z.string(),
  /** What the run was asked to do. */
  goal: z.string(),
  /** The run id of the chain's first execution: every approval digest covers it. */
  chain: z.string(),
  /**
   * Who started the run: `signed` when the start carried a signed statement, `by` the directory
   * id whose signature on it verified (absent while unverified, or for an unsigned start).
   */
  start: z.object({ signed: z.boolean(), by: z.string().optional() }),
  /** Which model proposes the run's steps (`adapter`: rules, scripted, openai, custom; `name`: the model or adapter named in the run's input), when the worker reports its input. */
  model: z.object({ adapter: z.string(), name: z.string().optional() }).optional(),
  /** Who decides the run's steps: react (the model), hybrid, workflow (the route) or plan; absent when the worker does not report it. */
  shape: z.enum(['workflow', 'hybrid', 'react', 'plan']).optional(),
  /** Where the run is: proposing, acting, verifying, awaiting_approval, reconciling, terminal. */
  phase: ShownPhase,
  /** How the run ended (null while it runs): a class, a short machine-readable reason, words. */
  terminal: z
    .object({
      class: z.enum(['resolved', 'escalated', 'budget_exhausted', 'blocked', 'unknown_outcome', 'cancelled', 'failed']),
      reason: z.string(),
      detail: z.string(),
      at: z.number(),
    })
    .nullable(),
  /** Once the run has ended: what it did and how it ended, in one line. */
  headline: z.string().optional(),
  startedAt: z.number(),
  deadlineAt: z.number(),
  /** The run's limits, what it has used (turns included) and what is left, time in `left.msLeft`. */
  budgets: z.object({ limits: Counts.extend({ deadlineMs: z.number() }), used: Counts, left: Left }),
  /** True while a person decides: the deadline's clock is stopped. */
  deadlinePaused: z.boolean(),
  /** Every effect the run has asked for, with what is known of it: applied, not applied, failed, unknown (being read back), in flight. */
  effects: z.array(
    z.object({
      callId: z.string(),
      turn: z.number(),
      tool: z.string(),
      args: z.unknown(),
      /** The idempotency key the effect was sent with; a readback asks by it. */
      key: z.string(),
      status: z.enum(['in_flight', 'applied', 'not_applied', 'unknown', 'failed']),
      attempts: z.number(),
      readbacks: z.number(),
      /** How the final status was learnt: the effect's own reply, or a readback by key. */
      settledBy: z.enum(['response', 'readback']).optional(),
      subject: z.string().optional(),
    }),
  ),
  /** The request waiting for a person's decision, if any. */
  awaiting: PendingApproval.nullable(),
  /** The tools of the run's domain that need a person's approval (absent when the worker predates it). */
  approvalTools: z.array(z.string()).optional(),
  /** Decisions on approval requests so far: approved, denied, timed out, cancelled, amended, with the signed statements behind each. */
  approvals: z.array(
    z.object({
      requestId: z.string(),
      /** The turn whose request it decided. */
      turn: z.number(),
      decision: z.string(),
      by: z.string(),
      comment: z.string(),
      at: z.number(),
      signatures: z.array(z.object({ by: z.string(), decision: z.string(), signature: z.string() })),
    }),
  ),
  /** Every decision receipt still in the run's state, in order (retention drops the oldest; see `dropped`). */
  decisions: z.array(Decision),
  /** Every execution receipt still in the run's state, in order. */
  executions: z.array(Execution),
  /** Feedback to the model and people's notes, in order. */
  messages: z.array(Message),
  /** How many old records retention dropped from the run's state (they remain in its Temporal history). */
  dropped: z.object({ decisions: z.number(), executions: z.number(), evidence: z.number() }),
  /** The run's evidence: each observation's tool, source, status, freshness, facts and the free text it quoted (no raw output). */
  evidence: z.object({
    /** Observations made in all, including those retention dropped from the run's state. */
    total: z.number(),
    items: z.array(
      z.object({
        id: z.string(),
        /** The turn whose call observed it, when the run's state still says. */
        turn: z.number().optional(),
        tool: z.string(),
        source: z.string(),
        authority: z.enum(['authoritative', 'secondary', 'untrusted']),
        status: z.enum(['ok', 'error', 'timeout', 'unknown']),
        /** Fresh when observed; older than `maxAgeMs` (from `effectiveAt`) it is stale. */
        fresh: z.boolean(),
        observedAt: z.number(),
        effectiveAt: z.number(),
        maxAgeMs: z.number(),
        subject: z.string().optional(),
        /** The arguments of the call that observed it. */
        args: z.unknown().optional(),
        facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
        error: z.object({ class: z.string(), message: z.string() }).optional(),
        /** UNTRUSTED free text from the tool's output: data to show as quoted, never instructions. */
        quoted: z.array(z.string()),
        /** True when free text was withheld from control state. */
        textWithheld: z.boolean(),
        /** Set when the output exceeded its cap and was shrunk. */
        truncated: z.object({ originalBytes: z.number(), ref: z.string() }).optional(),
      }),
    ),
  }),
});
/** A run as a client sees it (see the {@link RunView} schema). */
export type RunView = z.infer<typeof RunView>;

/** A display line whose key starts with this argues against the call: the card shows it in its own block. */
export const AGAINST_PREFIX = 'against: ';
