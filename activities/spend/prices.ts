// What a model call costs. Spend budgets are charged from a price table, so money is bounded
// the way tokens are: the model activity prices each call and the controller adds it up. The
// table is the team's (configuration, checked here where it enters); a small default covers
// the models this repository names. Costs are integers in millionths of the table's currency,
// which makes a price per million tokens times a token count exactly the cost in micros.
import { z } from 'zod';

export const ModelPrice = z.strictObject({
  /** Price of a million input (prompt) tokens, in the table's currency. */
  inputPerMillion: z.number().min(0).max(1_000_000),
  /** Price of a million output (completion) tokens, in the table's currency. */
  outputPerMillion: z.number().min(0).max(1_000_000),
});
export type ModelPrice = z.infer<typeof ModelPrice>;

export const PriceTable = z.strictObject({
  /** ISO 4217 code; every price in the table is in it. */
  currency: z.string().regex(/^[A-Z]{3}$/, 'a currency is a three-letter ISO 4217 code such as USD'),
  /** Model id (as the run's model configuration names it) -> its price. */
  models: z.record(z.string().min(1).max(200), ModelPrice),
});
export type PriceTable = z.infer<typeof PriceTable>;

/**
 * List prices in USD as the providers published them when this was written; a team replaces
 * them with its own (or its negotiated ones) through configuration. The offline adapters
 * (`scripted`, `rules`) cost nothing.
 */
export const DEFAULT_PRICES: PriceTable = {
  currency: 'USD',
  models: {
    scripted: { inputPerMillion: 0, outputPerMillion: 0 },
    rules: { inputPerMillion: 0, outputPerMillion: 0 },
    'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
    'gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10 },
    'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 },
    'gpt-4.1': { inputPerMillion: 2, outputPerMillion: 8 },
    'claude-haiku-4-5': { inputPerMillion: 1, outputPerMillion: 5 },
    'claude-sonnet-4-5': { inputPerMillion: 3, outputPerMillion: 15 },
    'gemini-2.5-flash': { inputPerMillion: 0.3, outputPerMillion: 2.5 },
  },
};

/** A price table from configuration (a JSON file's text or a parsed value); a bad one is an error value naming the field. */
export function parsePriceTable(raw: unknown): { ok: true; table: PriceTable } | { ok: false; problem: string } {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (err) {
      return { ok: false, problem: `the price table is not JSON: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
  const parsed = PriceTable.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, problem: `the price table is invalid at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? parsed.error.message}` };
  }
  return { ok: true, table: parsed.data };
}

/** Usage as a provider reports it; either side may be missing. */
export interface ModelUsage {
  inputTokens?: number;
  outputTokens?: number;
}

/**
 * The cost of one call in micros. Usage a provider leaves out is never taken as free: when
 * either side is missing the call's whole token count (at least the context it was shown) is
 * charged at the dearer of the two prices.
 */
export function costMicros(price: ModelPrice, usage: ModelUsage | undefined, fallback: { tokens: number; contextTokens: number }): number {
  const input = countOf(usage?.inputTokens);
  const output = countOf(usage?.outputTokens);
  if (input !== undefined && output !== undefined) return Math.ceil(input * price.inputPerMillion + output * price.outputPerMillion);
  const tokens = Math.max(countOf(fallback.tokens) ?? 0, countOf(fallback.contextTokens) ?? 0, (input ?? 0) + (output ?? 0));
  return Math.ceil(tokens * Math.max(price.inputPerMillion, price.outputPerMillion));
}

function countOf(n: unknown): number | undefined {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}
