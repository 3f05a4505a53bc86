// What a caller hands the agent workflow. Shared by the workflow, the client and the CLI.
import { z } from 'zod';
import { ContextStrategy } from './contract.js';

export const ModelConfig = z.discriminatedUnion('adapter', [
  /** Replies given in advance, one per proposal; running out is a loud failure. */
  z.strictObject({ adapter: z.literal('scripted'), replies: z.array(z.unknown()), latencyMs: z.number().int().min(0).max(60_000).optional() }),
  /** The domain's deterministic policy: the demo's default model. */
  z.strictObject({ adapter: z.literal('rules'), latencyMs: z.number().int().min(0).max(60_000).optional() }),
  /** An OpenAI-compatible chat-completions endpoint; connection details live on the worker. */
  z.strictObject({ adapter: z.literal('openai'), model: z.string().optional() }),
]);
export type ModelConfig = z.infer<typeof ModelConfig>;

export const BudgetOverrides = z.strictObject({
  turns: z.number().int().min(1).max(100_000).optional(),
  toolCalls: z.number().int().min(0).max(1_000_000).optional(),
  effects: z.number().int().min(0).max(1_000).optional(),
  duplicates: z.number().int().min(0).max(1_000).optional(),
  tokens: z.number().int().min(1).optional(),
  deadlineMs: z.number().int().min(1_000).optional(),
});

export const RunInput = z.strictObject({
  domain: z.string(),
  caseId: z.string().min(1).max(80),
  model: ModelConfig,
  budgets: BudgetOverrides.optional(),
  context: z.strictObject({ strategy: ContextStrategy, window: z.number().int().min(1).max(200) }).partial().optional(),
  /** Who holds which approval roles, e.g. {"alice@example.com": ["payments-approver"]}. */
  approvers: z.record(z.string(), z.array(z.string())).optional(),
  /** Overrides every contract's approval wait (tests use seconds, production hours). */
  approvalTimeoutMs: z.number().int().min(1_000).optional(),
  /** Continue-as-new after this many history events (default: when the server suggests it). */
  continueAsNewAfterEvents: z.number().int().min(100).optional(),
});
export type RunInput = z.infer<typeof RunInput>;
