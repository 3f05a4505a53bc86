// The agent workflow's interface to people and programs: one query, one signal, three
// updates. Shared by the workflow, the client and the CLI so names and shapes cannot drift.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import type { BudgetLeft, RunState } from './controller/state.js';

export interface RunView {
  state: RunState;
  budgetLeft: BudgetLeft;
  /** Present while an effect waits for a human; `digest` binds an approval to this exact call. */
  awaiting?: { requestId: string; tool: string; args: unknown; evidenceIds: string[]; roles: string[]; expiresAt: number; digest: string };
}

export const stateQuery = defineQuery<RunView>('state');

export const CancelInput = z.strictObject({ by: z.string().min(1).max(200), reason: z.string().max(500).default('') });
export const cancelSignal = defineSignal<[z.input<typeof CancelInput>]>('cancel');

export const ApprovalInput = z.strictObject({
  requestId: z.string().min(1),
  by: z.string().min(1).max(200),
  /** Digest of the tool and arguments the approver was shown; must match what will run. */
  digest: z.string().min(1),
  comment: z.string().max(500).default(''),
});
export type ApprovalInput = z.input<typeof ApprovalInput>;
export interface ApprovalAck {
  requestId: string;
  decision: string;
  /** What the run did with it: the effect started, or why it did not. */
  outcome: string;
}
export const approveUpdate = defineUpdate<ApprovalAck, [ApprovalInput]>('approve');
export const denyUpdate = defineUpdate<ApprovalAck, [ApprovalInput]>('deny');

export const NoteInput = z.strictObject({ by: z.string().min(1).max(200), text: z.string().min(1).max(2_000) });
export const addNoteUpdate = defineUpdate<{ accepted: true }, [z.input<typeof NoteInput>]>('addNote');

export interface RunResult {
  runId: string;
  domain: string;
  caseId: string;
  terminal: NonNullable<RunState['terminal']>;
  turns: number;
  toolCalls: number;
  effects: RunState['effects'];
}
