// The agent workflow's interface to people and programs: one query, one signal, three
// updates. Shared by the workflow, the client and the CLI so names and shapes cannot drift.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { workerScoped } from './worker-scoped.js';
import type { BudgetLeft, RunState, Shape } from './controller/index.js';
import { SignedDecision, SignedNote, type SignedAmend } from './trust/statement.js';
import type { RunInput } from './run-input.js';
import type { ToolResult } from './protocol.js';

/**
 * What the `state` query answers: the whole internal state and what an operator is shown beside
 * it. Internal to the engine (its tools read receipts from it); a client reads the RunView of
 * client/run-view.ts, mapped from this once at the client boundary.
 */
export interface RunView {
  state: RunState;
  budgetLeft: BudgetLeft;
  /** What the run was started with (so a second start for the case can tell whether it matches). */
  input?: RunInput;
  /** Present while an effect waits for a human; `digest` binds an approval to this exact call. */
  awaiting?: {
    requestId: string;
    tool: string;
    args: unknown;
    /** What the call is about, e.g. `transfer:PX-1042`. */
    subject?: string;
    evidenceIds: string[];
    roles: string[];
    expiresAt: number;
    digest: string;
    /** Signed approvals needed, and who has given one so far. */
    quorum: number;
    approvedBy: string[];
    /** Directory ids that may decide (empty until the directory is loaded). */
    eligible: string[];
    /** The precondition when the request was raised; a violation is stated here, never hidden. */
    precondition?: { ok: boolean; reason?: string };
    /** False for runs recorded before signed approvals: they cannot be approved any more. */
    signed: boolean;
    /** What the domain shows beside the call (amount, beneficiary, the ledger's word), from facts when it was raised. Signed with the call: the digest covers these lines. */
    display?: Record<string, string>;
    /** When an approver amended an earlier request into this one: what was proposed, and who changed it. */
    amendedFrom?: { requestId: string; args: unknown; by: string };
  };
  /** Once the run has ended: what it did and how it ended, in one line (controller/headline.ts). */
  headline?: string;
  /** The tools of the run's domain whose contract asks for approval: an auditor checks every effect of these (absent from older workers). */
  approvalTools?: string[];
}

export const stateQuery = defineQuery<RunView>('state');

export const CancelInput = workerScoped('messages.CancelInput', () =>
  z.strictObject({ by: z.string().min(1).max(200), reason: z.string().max(500).default('') }),
);
export const cancelSignal = defineSignal<[z.input<typeof CancelInput>]>('cancel');

/** A decision is a statement signed with the approver's key (see trust/statement.ts). */
export type ApprovalInput = z.input<typeof SignedDecision>;
export interface ApprovalAck {
  requestId: string;
  decision: string;
  /** What the run did with it: the effect started, or why it did not. */
  outcome: string;
}
export const approveUpdate = defineUpdate<ApprovalAck, [ApprovalInput]>('approve');
export const denyUpdate = defineUpdate<ApprovalAck, [ApprovalInput]>('deny');
/** An approver's signed amendment of the pending call: a new request for the amended call, decided afresh. */
export const amendUpdate = defineUpdate<ApprovalAck, [SignedAmend]>('amend');

/** An unsigned note reaches the model as untrusted text; a signed one as an operator's word. */
export const NoteInput = workerScoped('messages.NoteInput', () =>
  z.union([SignedNote, z.strictObject({ by: z.string().min(1).max(200), text: z.string().min(1).max(2_000) })]),
);
export const addNoteUpdate = defineUpdate<{ accepted: true; trusted: boolean }, [z.input<typeof NoteInput>]>('addNote');

/** What became of one closing call (workflows/closing.ts). */
export interface ClosingOutcome {
  tool: string;
  status: ToolResult['status'];
  /** Why it did not go through, when it did not. */
  message?: string;
}

/** What the agent workflow returns: how the run ended, what it used and the effects it asked for. */
export interface RunResult {
  runId: string;
  domain: string;
  caseId: string;
  terminal: NonNullable<RunState['terminal']>;
  /** Decisions taken, by whoever took them (the model, the route, a plan). */
  turns: number;
  /** Runs with a shape: who decided its steps, and how many of them the model was asked for. */
  shape?: Shape;
  modelCalls?: number;
  toolCalls: number;
  effects: RunState['effects'];
  /** The domain's closing calls made as the run ended (Domain.closing), and what became of each. */
  closing?: ClosingOutcome[];
}
