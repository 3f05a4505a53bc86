// How a team writes a tool: the five parts every tool states (name, description, input, output,
// kind; an effect also names its readback), with every other part of its contract
// (tool-contract.ts) filled in by its conservative default, and what the types alone can refuse
// refused at compile time (an effect without a readback, a read with an effect's parts, a tool
// under a name the controller keeps for its own decisions). defineDomain checks the rest.
import type { z } from 'zod';
import { DEFAULT_MAX_AGE_MS, DEFAULT_MAX_OBSERVATION_BYTES } from './policy.js';
import type { Facts, ToolContract, ToolKind } from './tool-contract.js';

/** The parts of a tool that have a default, stated on each in ToolContract. */
type DefaultedPart = 'idempotent' | 'source' | 'authority' | 'maxAgeMs' | 'maxObservationBytes' | 'facts' | 'effectiveAt' | 'freeText';

/**
 * A tool as its author writes it for defineTool: name, description, input, output and kind (and
 * an effect's readback); every other part is optional, with the conservative default stated on
 * it in ToolContract.
 */
export type ToolDefinition<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  N extends string = string,
  R extends string = string,
  K extends ToolKind = ToolKind,
  W extends string = string,
> = Omit<ToolContract<I, O, N, R, K, W>, DefaultedPart> & Partial<Pick<ToolContract<I, O, N, R, K, W>, DefaultedPart>>;

/** Names the controller gives its own decisions; a tool under one could never be called. */
export const RESERVED_TOOL_NAMES = ['finish', 'escalate'] as const;
type ReservedToolName = (typeof RESERVED_TOOL_NAMES)[number];

/**
 * What the kind requires: an effect names the readback that tells, by idempotency key, whether
 * it happened (its outcome is read back, never guessed); a read has none of an effect's parts.
 */
type KindRules<K extends ToolKind, R extends string> = K extends 'effect'
  ? { readback: R; egress?: never }
  : {
      readback?: never;
      businessKey?: never;
      precondition?: never;
      narrativeArgs?: never;
      approval?: never;
      display?: never;
      confirmByReadback?: never;
      commitWindowMs?: never;
    };
type NameRules<N extends string> = N extends ReservedToolName ? { name: `the tool name '${N}' is the engine's own decision` } : unknown;

/**
 * Defines a tool from five parts (name, description, input, output, kind; an effect also names
 * its readback) and fills every part left out with its default (see ToolContract). Its name,
 * input, output, readback, kind and reread types stay with it, and what the types can tell is
 * checked here (see KindRules). `defineDomain` checks the rest when the domain is defined.
 *
 * @example
 * const readOrder = defineTool({
 *   name: 'read_order',
 *   description: 'The order as the order book has it.',
 *   input: z.strictObject({ orderId: z.string() }),
 *   output: z.object({ status: z.string() }),
 *   kind: 'read',
 * });
 * const refund = defineTool({
 *   name: 'refund',
 *   description: 'Refund an order once.',
 *   input: z.strictObject({ orderId: z.string() }),
 *   output: z.object({ refundId: z.string() }),
 *   kind: 'effect',
 *   readback: 'read_refund',
 * });
 */
export function defineTool<
  I extends z.ZodType,
  O extends z.ZodType,
  const N extends string,
  const K extends ToolKind,
  const R extends string = never,
  const W extends string = never,
>(definition: ToolDefinition<I, O, N, R, K, W> & KindRules<K, R> & NameRules<N>): ToolContract<I, O, N, R, K, W> & KindRules<K, R> {
  return withDefaults(definition as ToolDefinition) as ToolContract<I, O, N, R, K, W> & KindRules<K, R>;
}

/** The definition with each part it leaves out set to that part's default (see ToolContract). */
function withDefaults(tool: ToolDefinition): ToolContract {
  return {
    ...tool,
    idempotent: tool.idempotent ?? tool.kind === 'read',
    source: tool.source ?? tool.name,
    authority: tool.authority ?? 'secondary',
    maxAgeMs: tool.maxAgeMs ?? DEFAULT_MAX_AGE_MS,
    maxObservationBytes: tool.maxObservationBytes ?? DEFAULT_MAX_OBSERVATION_BYTES,
    facts: tool.facts ?? noFacts,
    effectiveAt: tool.effectiveAt ?? asOfTheCall,
    freeText: tool.freeText ?? quoteAll,
  };
}

function noFacts(): Facts {
  return {};
}

function asOfTheCall(): undefined {
  return undefined;
}

/** Every value of an output as a `path: value` line, in the output's own order: all of it untrusted text. */
function quoteAll(output: unknown): string[] {
  const lines: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) walk(item, path ? `${path}.${key}` : key);
    else if (value !== undefined) lines.push(path ? `${path}: ${String(value)}` : String(value));
  };
  walk(output, '');
  return lines;
}
