// What a tool promises, and what a domain is. Workflow-safe: zod and plain data only, so the
// controller can check proposals inside the workflow sandbox and activities can share it.
import { z } from 'zod';

export const Authority = z.enum(['authoritative', 'secondary', 'untrusted']);
export type Authority = z.infer<typeof Authority>;

/** A fact the controller may reason about: scalar values only, never free text. */
export type FactValue = string | number | boolean | null;
export type Facts = Record<string, FactValue>;

export interface ToolContract<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  input: I;
  output: O;
  kind: 'read' | 'effect';
  /** True when calling it twice does no harm: reads, or effects the system dedupes by key. */
  idempotent: boolean;
  source: string;
  authority: Authority;
  /** Older than this (from the time the source says the data holds) and it is stale. */
  maxAgeMs: number;
  /** Tool output above this many bytes (JSON) is shrunk with a marker before anyone sees it. */
  maxObservationBytes: number;
  /** For effects: the readback tool that tells, by idempotency key, whether it happened. */
  readback?: string;
  /** For effects: who may approve it; without this the gate admits it on its own. */
  approval?: { roles: string[]; timeoutMs: number; onTimeout: 'escalate' | 'return_to_model' };
  /** Control-relevant facts, keyed so that a newer reading of the same thing replaces the older. */
  facts(output: z.infer<O>): Facts;
  /** When the source says its data holds (ISO time); absent means "as of the call". */
  effectiveAt(output: z.infer<O>): string | undefined;
  /** Free-text fields: never control state, shown to the model only as quoted data. */
  freeText(output: z.infer<O>): string[];
}

/** Type helper that keeps each contract's input/output types while storing them in one list. */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(contract: ToolContract<I, O>): ToolContract {
  return contract as unknown as ToolContract;
}

export interface EvidenceView {
  id: string;
  tool: string;
  source: string;
  authority: Authority;
  fresh: boolean;
  status: 'ok' | 'error' | 'timeout' | 'unknown';
  facts: Facts;
}

/** How a domain judges a claimed finish against evidence alone, before the live probe runs. */
export type EvidenceVerdict =
  | { kind: 'supported' }
  | { kind: 'unsupported'; reason: string }
  | { kind: 'conflict'; reason: string };

export const Budgets = z.strictObject({
  turns: z.number().int(),
  toolCalls: z.number().int(),
  effects: z.number().int(),
  duplicates: z.number().int(),
  tokens: z.number().int(),
  /** Wall-clock limit from the start of the run. */
  deadlineMs: z.number().int(),
});
export type Budgets = z.infer<typeof Budgets>;

export const ContextStrategy = z.enum(['full', 'window', 'window_pinned']);
export type ContextStrategy = z.infer<typeof ContextStrategy>;

export interface Domain {
  name: string;
  goal(caseId: string): string;
  tools: ToolContract[];
  /** The shape of `finish.claim` for this domain. */
  claim: z.ZodType;
  /** Fresh, authoritative evidence must support the claim; disagreeing sources are a conflict. */
  judgeEvidence(claim: unknown, cited: EvidenceView[], all: EvidenceView[]): EvidenceVerdict;
  defaults: { budgets: Budgets; context: ContextStrategy; window: number; approvers: Record<string, string[]> };
}
