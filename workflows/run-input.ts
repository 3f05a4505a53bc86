// What a caller hands the agent workflow. Shared by the workflow, the client and the CLI.
import { z } from 'zod';
import { workerScoped } from './worker-scoped.js';
import { ContextStrategy } from './contract.js';
import { SignedStart } from './trust/statement.js';

export const ModelConfig = workerScoped('run-input.ModelConfig', () =>
  z.discriminatedUnion('adapter', [
    /** Replies given in advance, one per proposal; running out is a loud failure. */
    z.strictObject({ adapter: z.literal('scripted'), replies: z.array(z.unknown()), latencyMs: z.number().int().min(0).max(60_000).optional() }),
    /** The domain's deterministic policy: the demo's default model. */
    z.strictObject({ adapter: z.literal('rules'), latencyMs: z.number().int().min(0).max(60_000).optional() }),
    /** An OpenAI-compatible chat-completions endpoint; connection details live on the worker. */
    z.strictObject({ adapter: z.literal('openai'), model: z.string().optional() }),
    /** A model adapter the worker was created with, by name (a team's own model, a test's adversary). */
    z.strictObject({ adapter: z.literal('custom'), name: z.string().min(1).max(80) }),
  ]),
);
export type ModelConfig = z.infer<typeof ModelConfig>;

export const BudgetOverrides = workerScoped('run-input.BudgetOverrides', () =>
  z.strictObject({
    turns: z.number().int().min(1).max(100_000).optional(),
    toolCalls: z.number().int().min(0).max(1_000_000).optional(),
    effects: z.number().int().min(0).max(1_000).optional(),
    duplicates: z.number().int().min(0).max(1_000).optional(),
    tokens: z.number().int().min(1).optional(),
    deadlineMs: z.number().int().min(1_000).optional(),
  }),
);

export const RunInput = workerScoped('run-input.RunInput', () =>
  z.strictObject({
    domain: z.string(),
    caseId: z.string().min(1).max(80),
    model: ModelConfig,
    budgets: BudgetOverrides.optional(),
    context: z.strictObject({ strategy: ContextStrategy, window: z.number().int().min(1).max(200) }).partial().optional(),
    /**
     * Narrows the worker's approver directory to these ids; it can never add one. (The old form,
     * a record of id to roles, is read as its ids: the roles in it are ignored.)
     */
    approvers: z.union([z.array(z.string().min(1).max(200)).max(100), z.record(z.string(), z.array(z.string()))]).optional(),
    /** The starter's signed statement; a contract may then refuse the starter as its approver. */
    start: SignedStart.optional(),
    /** Overrides every contract's approval wait (tests use seconds, production hours). */
    approvalTimeoutMs: z.number().int().min(1_000).optional(),
    /** Continue-as-new after this many history events (default: when the server suggests it). */
    continueAsNewAfterEvents: z.number().int().min(100).optional(),
  }),
);
export type RunInput = z.infer<typeof RunInput>;

/** The ids a run's input narrows the approver directory to, if it narrows it. */
export function approverScope(run: RunInput): string[] | undefined {
  if (run.approvers === undefined) return undefined;
  return Array.isArray(run.approvers) ? run.approvers : Object.keys(run.approvers);
}
