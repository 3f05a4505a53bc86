// The floor under a model call's usage. What a provider reports is what a team is billed, so it
// is charged as reported, but never below what the engine can see for itself: a proxy, a gateway
// or a local server that reports 0 tokens (or nothing, or nonsense) would otherwise make every
// call free, and then no token budget, run spend or team cap would ever stop anything. Each side
// is floored on its own: the input at the engine's estimate of the request it sent, the output at
// its estimate of the reply it got back. When the floor lifts a side, the reply says so, with both
// numbers, so a receipt shows the provider's count was not believed.

/**
 * The one estimator for the floor: about four characters a token over the exact text on the
 * wire. It is the rule the compiled context is budgeted with (workflows/controller/context.ts,
 * `estimateTokens`), so a floor and a budget never disagree about what a prompt weighs. It errs
 * on the side of charging: JSON and escaped text tokenize denser than prose, and only a provider
 * that renders its tool declarations more compactly than their JSON would count less; such a
 * provider's calls are charged the estimate and say so, which is the safe direction for a budget.
 */
export const CHARS_PER_TOKEN = 4;

/** Tokens in a text by the floor's estimate. */
export function textTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * Tokens in a request body as it goes on the wire, by the same estimate. Provider packages hand
 * the body back either as the serialized text they sent or as the object they serialized: text is
 * counted as it is (serializing it again would count its escapes twice), an object as its JSON.
 */
export function wireTokens(body: unknown): number {
  return textTokens(typeof body === 'string' ? body : (JSON.stringify(body) ?? ''));
}

/** Present on the model activity's reply only when the floor lifted a side; the run's receipt carries it (one schema, with the workflow's event). */
export { UsageFloor } from '../../workflows/protocol.js';
import type { UsageFloor } from '../../workflows/protocol.js';
/** One side of a call whose reported count was below the engine's estimate: what was reported (0 when nothing usable) and what was charged. */
export type FloorSide = NonNullable<UsageFloor['input']>;

export interface FlooredUsage {
  inputTokens: number;
  outputTokens: number;
  usageFloor?: UsageFloor;
}

/**
 * charged = max(reported, estimate), per side. A reported count that is missing, zero, negative
 * or not a finite number counts as 0, so it is floored too; estimates are at least 1, since no
 * call sends or receives nothing.
 */
export function floorUsage(reported: { input: unknown; output: unknown }, estimate: { input: number; output: number }): FlooredUsage {
  const input = side(reported.input, estimate.input);
  const output = side(reported.output, estimate.output);
  const usageFloor: UsageFloor = {
    ...(input.floored ? { input: { reported: input.reported, charged: input.charged } } : {}),
    ...(output.floored ? { output: { reported: output.reported, charged: output.charged } } : {}),
  };
  return { inputTokens: input.charged, outputTokens: output.charged, ...(input.floored || output.floored ? { usageFloor } : {}) };
}

function side(reported: unknown, estimate: number): { reported: number; charged: number; floored: boolean } {
  const count = typeof reported === 'number' && Number.isFinite(reported) && reported > 0 ? Math.ceil(reported) : 0;
  const floor = Math.max(1, Math.ceil(Number.isFinite(estimate) ? estimate : 0));
  return count >= floor ? { reported: count, charged: count, floored: false } : { reported: count, charged: floor, floored: true };
}
