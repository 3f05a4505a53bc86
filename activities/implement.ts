// The activity side of a domain, as one typed object: how each tool reaches your systems, how
// an effect is read back by key, how the live probe checks "done", and optionally a `rules`
// policy that can stand in for a model. `implement(domain).with<Deps>({...})` checks it against
// the domain: a missing tool, a wrong argument type or a readback the contracts do not name is
// a compile error.
import type { z } from 'zod';
import type { Domain } from '../workflows/contract.js';
import type { AnyTool } from '../workflows/tool-contract.js';
import { DomainDefinitionError, validateDomain } from '../workflows/domain-checks.js';
import type { CompiledContext } from '../workflows/controller/index.js';
import type { ProbeVerdict } from '../workflows/protocol.js';
import type { ToolRefused, ToolUnavailable } from './tool-errors.js';

/** What a tool, readback or probe is handed: the case, the effect's idempotency key, your deps, its timeout and an abort signal. */
export interface ToolContext<Deps = unknown> {
  caseId: string;
  /** Effects only: the key the system of record must dedupe on. */
  idempotencyKey?: string;
  /**
   * Effects only: when the run sent this attempt (epoch ms, the run's clock). Send it with the
   * request if your system can fence keys: a request sent before a fence must be refused.
   */
  sentAt?: number;
  /**
   * Effects a person approved: the fingerprints of the signed statements this attempt goes out
   * under. Store them with the effect, in the same record as its key, and refuse a request under
   * a statement your system already decided a request with another key on (or refused): then an
   * approval is spent once at the system of record, even after the run's history is gone.
   */
  approvedWith?: readonly string[];
  /**
   * Readbacks only: fence the key as you read it, if your system can. Any request under the key
   * sent before this time (epoch ms, the run's clock) must from now on be refused; say so with
   * `fenced: true`. Then "not applied" is final: the request can no longer commit.
   */
  fenceBefore?: number;
  /**
   * Probes only, for a domain with a soak (Domain.soak): the window (epoch ms) over which the
   * condition must have stayed false. Check the whole window, not this instant.
   */
  soak?: { from: number; to: number };
  /** What the worker was created with: your clients, connections, configuration. */
  deps: Deps;
  /** How long one request may take before it counts as a timeout. */
  timeoutMs: number;
  /** Aborted when the activity is cancelled or its worker shuts down. */
  signal?: AbortSignal;
}

/** A readback's answer: did the effect with this key happen, and if so what the system of record stored. */
export interface Readback {
  applied: boolean;
  /** The effect as the system of record stored it, in the effect tool's output shape. */
  output?: unknown;
  /**
   * With `applied: false`: the key is fenced (ToolContext.fenceBefore), so a request still on its
   * way can no longer commit. Without it the engine reads back again once the contract's commit
   * window has passed before it believes the effect did not happen.
   */
  fenced?: boolean;
}

/** A probe's answer: does the world now show what the claim says (`holds`), is there a conflict, was it decided, in words and facts. */
export type ProbeAnswer = Omit<ProbeVerdict, 'checkedAt'>;

type ToolsOf<D> = D extends Domain<infer T, z.ZodType> ? T[number] : never;
type ReadbacksOf<D> = ToolsOf<D> extends infer C ? (C extends { readback?: infer R } ? (R extends string ? R : never) : never) : never;

/** One function per tool, keyed by tool name, typed by its contract. */
export type ToolImplementations<D, Deps> = {
  [K in ToolsOf<D> as K['name']]: (args: z.infer<K['input']>, ctx: ToolContext<Deps>) => Promise<z.input<K['output']>>;
};

export type ReadbackImplementations<D, Deps> = { [R in ReadbacksOf<D>]: (key: string, ctx: ToolContext<Deps>) => Promise<Readback> };

/** A domain's implementation: one function per tool and per readback, the probe, and optionally a `policy` (the `rules` model) and an error classifier. Made with implement(). */
export interface DomainImplementation<D extends Domain = Domain, Deps = unknown> {
  domain: D;
  tools: ToolImplementations<D, Deps>;
  readbacks: ReadbackImplementations<D, Deps>;
  /** Model-independent: does the world now show what the claim says? Throwing means "could not tell". */
  probe(claim: z.infer<D['claim']>, ctx: ToolContext<Deps>): Promise<ProbeAnswer>;
  /** A deterministic policy usable as the `rules` model (tests, demos, a safe fallback). */
  policy?(context: CompiledContext): unknown;
  /** Turns your own errors into "definitely refused" or "unavailable"; anything else counts as unavailable. */
  classify?(err: unknown): ToolRefused | ToolUnavailable | undefined;
}

/**
 * `implement(domain).with<Deps>({ tools, readbacks, probe })`: the Deps are yours to name. Checked
 * against the domain's types: a tool or readback missing, misnamed or of the wrong argument or
 * output type is a compile error.
 *
 * @example
 * ```ts
 * const implementation = implement(orders).with<{ book: OrderBook }>({
 *   tools: {
 *     read_order: async (args, ctx) => ctx.deps.book.get(args.orderId),
 *     cancel_order: async (args, ctx) => ctx.deps.book.cancel(args.orderId, ctx.idempotencyKey ?? ''),
 *   },
 *   readbacks: {
 *     cancellation_by_key: async (key, ctx) => {
 *       const found = ctx.deps.book.cancellationByKey(key);
 *       return found ? { applied: true, output: found } : { applied: false };
 *     },
 *   },
 *   probe: async (_claim, ctx) => {
 *     const { status } = ctx.deps.book.get(ctx.caseId);
 *     return { holds: status === 'CANCELLED', conflict: false, decided: true, detail: `order is ${status}`, facts: { 'order.status': status } };
 *   },
 * });
 * ```
 */
export function implement<const D extends Domain<readonly AnyTool[], z.ZodType>>(domain: D) {
  return {
    with<Deps = unknown>(impl: Omit<DomainImplementation<D, Deps>, 'domain'>): DomainImplementation<D, Deps> {
      return { domain, ...impl };
    },
  };
}

/** Erased for the registry the activities keep: one entry per domain name. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyImplementation = DomainImplementation<any, any>;

/**
 * The worker's implementations by domain name. Each domain is checked as defineDomain checks it
 * (a domain built without it is caught here, when the worker is created), and each
 * implementation against its domain: a tool or a readback with no function would otherwise be
 * found by the first run that needed it.
 */
export function registry(implementations: readonly AnyImplementation[]): Map<string, AnyImplementation> {
  const byName = new Map<string, AnyImplementation>();
  for (const impl of implementations) {
    if (byName.has(impl.domain.name)) throw new Error(`two implementations of domain ${impl.domain.name}`);
    const problems = [...validateDomain(impl.domain), ...implementationProblems(impl)];
    if (problems.length) throw new DomainDefinitionError(impl.domain.name, problems);
    byName.set(impl.domain.name, impl);
  }
  return byName;
}

function implementationProblems(impl: AnyImplementation): string[] {
  const problems: string[] = [];
  const tools = (impl.tools ?? {}) as Record<string, unknown>;
  const readbacks = (impl.readbacks ?? {}) as Record<string, unknown>;
  for (const tool of impl.domain.tools as readonly AnyTool[]) {
    if (typeof tools[tool.name] !== 'function') problems.push(`${tool.name}: the implementation has no function for it`);
    if (tool.kind === 'effect' && typeof tool.readback === 'string' && typeof readbacks[tool.readback] !== 'function') {
      problems.push(`${tool.name}: the implementation has no readback ${tool.readback}`);
    }
  }
  if (typeof impl.probe !== 'function') problems.push('the implementation has no probe');
  return problems;
}
