// The activity side of a domain: how its tools reach the world, how an effect is read back by
// key, how the live probe checks "done", and the deterministic `rules` policy used as a model.
import type { CompiledContext } from '../workflows/controller/context.js';
import type { ProbeVerdict } from '../workflows/controller/events.js';
import type { WorldClient } from './world/client.js';

export interface ToolContext {
  caseId: string;
  /** Effects only: the key the system of record dedupes on. */
  idempotencyKey?: string;
  world: WorldClient;
  timeoutMs: number;
}

export type ToolImplementation = (args: never, ctx: ToolContext) => Promise<unknown>;

export interface Readback {
  applied: boolean;
  /** The effect as the system of record stored it, in the effect tool's output shape. */
  output?: unknown;
}

export interface DomainImplementation {
  tools: Record<string, ToolImplementation>;
  readbacks: Record<string, (key: string, ctx: ToolContext) => Promise<Readback>>;
  probe(claim: unknown, ctx: ToolContext): Promise<Omit<ProbeVerdict, 'checkedAt'>>;
  /** The `rules` model: a fixed policy that reads the same context a language model would. */
  policy(context: CompiledContext): unknown;
}
