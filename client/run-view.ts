// What a program may rely on about a run, decoupled from the engine's internal RunState. The
// workflow's `state` query answers with the whole state the controller keeps (receipts,
// transcript, loop-guard memory, carried migrations), which changes whenever the controller
// does; a client that read it would break with every engine change. The client boundary maps
// that answer once, here, into RunView: its phase and outcome, the effects ledger, the pending
// approval, the budgets and the evidence in summary. A field added to RunState changes nothing
// for a client; a field taken from this schema is a breaking change of the package.
import { z } from 'zod';
import type { RunView as StateAnswer } from '../workflows/messages.js';

/**
 * A request for a person's signed decision on one effect, as the run shows it. Approving binds
 * to `digest` (the exact call); a request just raised is shown once its approver directory has
 * loaded (`eligible` names who may decide).
 */
export const PendingApproval = z.object({
  requestId: z.string(),
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
  /** What the domain shows beside the call (amount, beneficiary...); not signed. */
  display: z.record(z.string(), z.string()).optional(),
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

/**
 * A run as a client sees it: `AgentClient.state` answers with this. Times are epoch
 * milliseconds. Receipts one by one (decisions, executions, notes, approval steps) come from
 * `AgentClient.watch`; the full audit record from `AgentClient.export`.
 */
export const RunView = z.object({
  runId: z.string(),
  domain: z.string(),
  caseId: z.string(),
  /** Where the run is: proposing, acting, verifying, awaiting_approval, reconciling, terminal. */
  phase: z.enum(['proposing', 'acting', 'verifying', 'awaiting_approval', 'reconciling', 'terminal']),
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
  budgets: z.object({ limits: Counts.extend({ deadlineMs: z.number() }), used: Counts, left: Counts.extend({ msLeft: z.number() }) }),
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
  /** Decisions on approval requests so far: approved, denied, timed out, cancelled, amended. */
  approvals: z.array(z.object({ requestId: z.string(), decision: z.string(), by: z.string(), comment: z.string(), at: z.number() })),
  /** The run's evidence in summary: each observation's tool, status, freshness and facts (no raw output, no quoted text). */
  evidence: z.object({
    /** Observations made in all, including those retention dropped from the run's state. */
    total: z.number(),
    items: z.array(
      z.object({
        id: z.string(),
        tool: z.string(),
        status: z.enum(['ok', 'error', 'timeout', 'unknown']),
        fresh: z.boolean(),
        observedAt: z.number(),
        subject: z.string().optional(),
        facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
        error: z.object({ class: z.string(), message: z.string() }).optional(),
      }),
    ),
  }),
});
/** A run as a client sees it (see the {@link RunView} schema). */
export type RunView = z.infer<typeof RunView>;

/** The one mapping from the workflow's state query answer to what clients see. */
export function toRunView(answer: StateAnswer): RunView {
  const st = answer.state;
  const optional = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as { [P in K]: V }));
  return RunView.parse({
    runId: st.runId,
    domain: st.domain,
    caseId: st.caseId,
    phase: st.phase,
    terminal: st.terminal ? { class: st.terminal.class, reason: st.terminal.reason, detail: st.terminal.detail, at: st.terminal.at } : null,
    ...optional('headline', answer.headline),
    startedAt: st.startedAt,
    deadlineAt: st.deadlineAt,
    budgets: { limits: st.budgets, used: { turns: st.turn, ...st.used }, left: answer.budgetLeft },
    // Runs recorded before the trust boundary kept their clock running while a person decided.
    deadlinePaused: st.guardVersion === 2 && st.phase === 'awaiting_approval',
    effects: st.effects.map((e) => ({
      callId: e.callId,
      turn: e.turn,
      tool: e.tool,
      args: e.args,
      key: e.key,
      status: e.status,
      attempts: e.attempts,
      readbacks: e.readbacks,
      ...optional('settledBy', e.settledBy),
      ...optional('subject', e.subject),
    })),
    awaiting: answer.awaiting ?? null,
    approvals: st.approvals.map((a) => ({ requestId: a.requestId, decision: a.decision, by: a.by, comment: a.comment, at: a.at })),
    evidence: {
      total: st.evidence.length + (st.dropped?.evidence ?? 0),
      items: st.evidence.map((e) => ({
        id: e.id,
        tool: e.tool,
        status: e.status,
        fresh: e.fresh,
        observedAt: e.observedAt,
        ...optional('subject', e.subject),
        facts: e.facts,
        ...optional('error', e.error),
      })),
    },
  });
}
